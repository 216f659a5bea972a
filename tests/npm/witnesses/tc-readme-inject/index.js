// The README's way: "The plugin prepends an agent/pre-step listener. When an
// injection is due it appends one injected user/message through
// agent.inject(), placed before step/start".
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { due, readingText, source, zoneOf } from './reading.js'

export const name = 'time-context'
export const inject = ['agents']

export function apply(ctx, config = {}) {
  const zone = zoneOf(config)
  ctx.on('agent/pre-step', async (payload, next) => {
    const { agent, turn, step, signal } = payload // messages: what the host claimed for the step
    if (!signal?.aborted) {
      const events = agent.session.events
      const now = Date.now()
      if (due(events, now, config.refreshIntervalMs)) {
        const text = readingText(events, now, turn, step, zone, payload.messages ?? [])
        agent.inject(createUserMessage({ content: [{ type: 'text', text }], source: source() }))
      }
    }
    return next()
  }, { prepend: true })
}

// The README's placement, reached without agent.inject(): the host queues an
// injected message for the next step, so the reading is appended to the
// session log directly, before later listeners run and before step/start.
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
        const message = createUserMessage({ content: [{ type: 'text', text }], source: source() })
        agent.session.append('user/message', message, { surfaceOp: 'append' })
      }
    }
    return next()
  }, { prepend: true })
}

// Runs before every other pre-step listener (prepended, and loaded after the
// host's own) and logs what it saw, so a test reads it from the session log.
export const name = 'first-listener'

export function apply(ctx) {
  ctx.on('agent/pre-step', (payload, next) => {
    const { agent, step, signal } = payload
    agent.session.append('test/first', { step, aborted: signal.aborted })
    return next()
  }, { prepend: true })
}

// A minimal ./invariant companion for a dsh-schedule plugin, written from the
// README's "Replay rejects ... reused ids": one rule, no other. A real
// companion applies the plugin's whole replay policy, with the same fold the
// plugin runs.
//
// The DSH host's invariant registry (ctx.invariants, @deepseek-ai/dsh-invariants)
// calls the installer once, in a context of its own, with fail(message), which
// throws the host's InvariantError. The installer sees logs three ways:
//   1. the sessions that exist already: ctx.sessions.list(), checked now;
//   2. a session about to be published (a resume, a fork): 'session/created';
//   3. a candidate event: the host announces every dispatch on
//      'internal/dispatch' before it runs it, and a session announces
//      'session/event' before it stores the event. Throwing there refuses the
//      candidate: session.append throws and the log is unchanged. (Listeners
//      of 'session/event' itself run after the event is stored; what they
//      throw is only logged.)

const OWNER = 'example-dsh-schedule-own-invariant'

// The README's own fork rule: a fork folds only the events after its seed.
function createdIdsAfterSeed(events, seedLength, fail) {
  const created = new Set()
  events.slice(seedLength ?? 0).forEach((event, index) => {
    if (event?.type !== 'schedule/change') return
    const data = event.data
    if (data?.operation !== 'create') return
    const id = data.schedule?.id
    if (created.has(id)) fail(`schedule create reuses id ${JSON.stringify(id)} (event ${index})`)
    created.add(id)
  })
}

function check(session, events, fail) {
  createdIdsAfterSeed(events, session?.header?.seedLength, fail)
}

const install = Object.assign((ctx, fail) => {
  for (const session of ctx.sessions.list()) check(session, session.events, fail)
  ctx.on('session/created', (session) => check(session, session.events, fail), { global: true })
  ctx.on('internal/dispatch', (mode, eventName, args) => {
    const [session, candidate] = args
    if (eventName !== 'session/event' || candidate?.type !== 'schedule/change') return
    check(session, [...session.events, candidate], fail)
  }, { global: true })
}, { inject: ['sessions'] })

export const name = `${OWNER}-invariant`
export const inject = ['invariants']
// register() returns the registration's disposer, settled once the installer
// has run: apply returns it inside a promise, which the host waits for, so a
// log the installer refuses makes loading the companion fail. apply is an
// arrow function: Cordis constructs a plugin function that has a prototype
// (a function declaration) as a class, and does not wait for what it returns.
export const apply = (ctx) => Promise.resolve(ctx.invariants.register(OWNER, install))

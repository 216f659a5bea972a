// The Node host: the real Cordis context with the real DSH services, the
// official plugins, an in-memory persistence with a fault plan, a scripted
// model and a fake clock. One Host stands for one test's host; a Process is
// what a crash destroys (context, live sessions, agents, timers).
import { Context } from '@deepseek-ai/cordis'
import LlmService, { CallId, createUserMessage } from '@deepseek-ai/dsh-llm'
import { Session, SessionId, isSurfaceEligibleType, snapshotJsonValue } from '@deepseek-ai/dsh-session'
import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
import ToolRuntime from '@deepseek-ai/dsh-tools'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import AgentLoop from '@deepseek-ai/dsh-agent-loop'
import InvariantRegistry from '@deepseek-ai/dsh-invariants'

import { dropTimers, realTimeout, setIoBusy, setWall, settle } from './lib/clock.mjs'
import { BridgeError } from './lib/errors.mjs'
import { Faults, installPluginCallFaults } from './lib/faults.mjs'
import { DurableStore, JsonlFiles, hostSessionStore, memoryPersistence } from './lib/persistence.mjs'
import { PRE_STEP_INJECT, countGrowth, noteInjectedLanding, noteSymptom } from './lib/growth.mjs'
import { ScriptedAdapter } from './lib/model.mjs'
import { loadPluginPackages } from './lib/packages.mjs'
import { toOfficialSeed } from './lib/seed.mjs'
import { hostTool, setToolJournal } from './lib/tool-journal.mjs'
import { patch } from './lib/patches.mjs'
import { stackHere } from './lib/stack.mjs'

/**
 * The plugin packages under test, named by the Python side at start
 * (DSH_BRIDGE_PACKAGES: {"schedule": NAME, "time-context": NAME}) and imported
 * from this folder's node_modules. PLUGINS maps driver plugin names to the
 * Cordis plugins found (a package's `./invariant` export is its companion);
 * PACKAGES says what was loaded, or why a package is not a DSH plugin.
 */
export const { PLUGINS, PACKAGES, SHAPES, STACK_READERS } = await loadPluginPackages(process.env.DSH_BRIDGE_PACKAGES)

const FIBER_ACTIVE = 2
const FIBER_FAILED = 3

/** Host services a test may withhold -> the Cordis service names they provide. */
const WITHHOLDABLE = {
  sessions: 'sessions',
  agents: 'agents',
  invariants: 'invariants',
  session_persistence: 'sessionPersistence',
}
const DRIVER_NAME = Object.fromEntries(Object.entries(WITHHOLDABLE).map(([k, v]) => [v, k]))

/** Every agent talks to the scripted model (see lib/model.mjs). */
const AGENT_OPTIONS = { provider: 'bridge', model: 'scripted' }

function injectNames(plugin) {
  const inject = plugin.inject ?? []
  return Array.isArray(inject) ? inject : Object.keys(inject)
}

// The official session header cannot carry a creation time before 1970; a
// host whose virtual clock starts earlier (DST tables reach back to 1900)
// stamps 0 instead. Event times still follow the clock.
function creationMeta() {
  return Date.now() < 0 ? { createdAt: 0 } : {}
}

export { BridgeError }

/** The message of a thrown value. */
function describe(value) {
  if (value instanceof Error) return value.message
  return typeof value === 'string' ? value : JSON.stringify(value)
}

// -- host seams patched once (the table: lib/patches.mjs) -----------------------

/** The process the seams below act for (the one host's live process). */
let currentProcess = null
setToolJournal((agent) => (currentProcess?.alive ? currentProcess.host.journalOf(agent.session.id) : null))
setIoBusy(
  () => currentProcess?.host.realIo === true && currentProcess.alive && currentProcess.flushesInFlight > 0,
)

/** Work done while no host is current (an append, an id minted): the work of
 *  a host already closed, still running. A process whose test ran away is only
 *  reused when none happens after the host closed (server.mjs `recycle`). */
let hostlessWork = 0
export function workWithoutHost() {
  return hostlessWork
}

// Deterministic message ids: a counter instead of random UUIDs, per host.
let uuidSeq = 0
function resetIds() {
  uuidSeq = 0
}
patch('ids', globalThis.crypto, 'randomUUID', () => () => {
  if (currentProcess === null) hostlessWork += 1
  return `00000000-0000-4000-8000-${String(++uuidSeq).padStart(12, '0')}`
})

patch('append-faults', Session.prototype, 'append', (originalAppend) => function appendWithFaults(type, ...rest) {
  const proc = currentProcess
  if (proc === null) hostlessWork += 1
  const live = proc?.alive && proc.sessions?.get(this.id) === this
  if (live && proc.faults.appendFails(type, rest[0])) {
    throw new Error(`append of '${type}' rejected by the fault plan`)
  }
  if (live) countGrowth(`${type} event`, OPENS[type] ?? null, fakeNow())
  const event = originalAppend.call(this, type, ...rest)
  if (live) noteGrowthSymptoms(this, type, rest[0])
  if (proc?.alive && proc.sessions?.get(this.id) === this) {
    trace('append', this.id, type)
    // A schedule/change appended inside the agent's maintenance claim is a
    // dispatch (pytest_dsh/driving/trace.py): recognised without reading its payload.
    if (type === 'schedule/change' && proc.host.claimed?.has(this.id)) {
      trace('dispatch', this.id, String(event.seq))
    }
  }
  return event
})

// An agent-created listener that throws vetoes the agent (the driver's
// AgentVetoedError); the errors that escaped an announcement are remembered.
// An agent is patched and, when the driver is creating it, given its record
// as it is announced, before any agent-created listener runs: what a plugin
// does while the creation settles meets the same seams, counters, trace and
// request record as its later work.
const vetoes = new WeakSet()
patch('announce-watch', AgentRegistry.prototype, 'announce', (originalAnnounce) => function announceWatched(agent) {
  patchAgent(agent)
  if (currentProcess?.alive) currentProcess.host.announced(agent)
  try {
    return originalAnnounce.call(this, agent)
  } catch (error) {
    if (error !== null && typeof error === 'object') vetoes.add(error)
    throw error
  }
})

// Agents gone when announced (create_agent(gone_when_announced=True)): the
// registry's views miss them from their announcement on, as a registry whose
// removal had already taken effect would (the official one defers a removal
// asked for during the announcement until it unwinds). The host then
// disposes the agent for real, which announces its disposal.
const goneAgents = new WeakSet()
patch('registry-get', AgentRegistry.prototype, 'get', (registryGet) => function getUnlessGone(id) {
  const agent = registryGet.call(this, id)
  return agent !== undefined && goneAgents.has(agent) ? undefined : agent
})
patch('registry-list', AgentRegistry.prototype, 'list', (registryList) => function listUnlessGone() {
  return registryList.call(this).filter((agent) => !goneAgents.has(agent))
})
patch('registry-roots', AgentRegistry.prototype, 'roots', (registryRoots) => function rootsUnlessGone() {
  return registryRoots.call(this).filter((agent) => !goneAgents.has(agent))
})
patch('registry-owned', AgentRegistry.prototype, 'isOwnedBy', (isOwnedBy) => function isOwnedByUnlessGone(id, owner) {
  return this.get(id) !== undefined && isOwnedBy.call(this, id, owner)
})

/** Per agent: maintenance claims and releases, whenIdle calls (driver counters). */
const agentCounts = new WeakMap()
function countsOf(agent) {
  let counts = agentCounts.get(agent)
  if (counts === undefined) {
    counts = { claims: 0, releases: 0, whenIdle: 0, refusals: 0 }
    agentCounts.set(agent, counts)
  }
  return counts
}

// Read faults hit the plugins' reads only: a read counts when its immediate
// caller is plugin code (the host's own reads, even on a plugin's behalf, do not).
// Plugin code is the code of the packages under test, whatever their names, and
// of the official plugin packages a third-party plugin may wrap.
const PLUGIN_PACKAGES = new Set([
  ...Object.values(PACKAGES).map((report) => report.package).filter((name) => typeof name === 'string'),
  '@deepseek-ai/dsh-schedule',
  '@deepseek-ai/dsh-time-context',
])
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const PLUGIN_FILES = new RegExp(
  `[\\\\/]node_modules[\\\\/](?:${[...PLUGIN_PACKAGES].map((name) => escapeRegExp(name).replace('/', '[\\\\/]')).join('|')})[\\\\/]`,
)
installPluginCallFaults({ current: () => currentProcess, pluginFiles: PLUGIN_FILES, agentRegistry: AgentRegistry })
function readByPlugin() {
  // frames: Error, readByPlugin, readFault, the patched read, its caller
  const caller = stackHere().split('\n')[4] ?? ''
  return PLUGIN_FILES.test(caller)
}
function readFault(kind) {
  const proc = currentProcess
  return proc?.alive === true && proc.faults.plans(kind) && readByPlugin() && proc.faults.readFails(kind)
}

/** Record one trace entry when the live host traces (see pytest_dsh/driving/trace.py). */
function trace(kind, subject, detail = '') {
  traceEntry(kind, subject, detail)
}

/** `trace`, returning the entry recorded (null when none was) for `untrace`. */
function traceEntry(kind, subject, detail = '') {
  const host = currentProcess?.alive ? currentProcess.host : null
  // Sessions whose agent holds a maintenance claim, kept while not recording.
  if (host && (kind === 'claim' || kind === 'release')) {
    host.claimed ??= new Set()
    if (kind === 'claim') host.claimed.add(subject)
    else host.claimed.delete(subject)
  }
  if (!host?.tracing) return null
  const entry = { kind, subject, detail }
  host.traceEntries.push(entry)
  return entry
}

/** Take back an entry of an operation that turned out not to happen. */
function untrace(entry) {
  const entries = currentProcess?.host.traceEntries
  const index = entry === null || entries === undefined ? -1 : entries.lastIndexOf(entry)
  if (index >= 0) entries.splice(index, 1)
}

// Timers a plugin arms or cancels (its own code calls setTimeout/clearTimeout).
function callerIsPlugin() {
  // frames: Error, callerIsPlugin, the patched timer function, its caller
  return PLUGIN_FILES.test(stackHere().split('\n')[3] ?? '')
}
patch('timer-trace-arm', globalThis, 'setTimeout', (fakeSetTimeout) => function setTimeoutTraced(callback, delay, ...args) {
  if (currentProcess?.host.tracing && callerIsPlugin()) trace('timer-arm', '', String(delay ?? 0))
  return fakeSetTimeout(callback, delay, ...args)
})
patch('timer-trace-cancel', globalThis, 'clearTimeout', (fakeClearTimeout) => function clearTimeoutTraced(id) {
  if (currentProcess?.host.tracing && callerIsPlugin()) trace('timer-cancel', '')
  return fakeClearTimeout(id)
})

const fakeNow = patch('clock-faults', Date, 'now', () => function nowWithFaults() {
  const reading = clockFault()
  if (reading?.failed) throw new Error('wall-clock read failed (fault plan)')
  return reading?.value ?? fakeNow()
}).bind(Date)
/** The fault plan's answer to a plugin's clock read (null: not a planned plugin read). */
function clockFault() {
  const proc = currentProcess
  if (proc?.alive !== true || !proc.faults.plans('clock') || !readByPlugin()) return null
  return proc.faults.clockRead()
}

patch('event-read-faults', Session.prototype, 'events', (eventsGetter) => function eventsWithFaults() {
  if (readFault('events')) throw new Error('session event read failed (fault plan)')
  return eventsGetter.call(this)
})

/** Per agent: test actions armed for its next call at a point (act_inside). */
const armedActions = new WeakMap()
/** Agents whose queued follow-ups open no turn for now (hold_turns). */
const heldTurns = new WeakSet()
/** Per agent held busy with no task (hold_busy): the release its idle waits wait for. */
const busyHolds = new WeakMap()
/** Per agent: rejecters of its whenIdle() calls still pending. */
const idleWaits = new WeakMap()

/** Run the actions armed for `agent` at `point`, once. */
function actInside(agent, point) {
  const armed = armedActions.get(agent)
  const actions = armed?.[point]
  if (actions === undefined) return
  delete armed[point]
  for (const action of actions) {
    if (action.kind === 'prompt') {
      agent.followup(createUserMessage({ content: [{ type: 'text', text: action.text }], source: { kind: 'user' } }))
    } else if (action.kind === 'append') {
      agent.session.append(action.type, structuredClone(action.data), ...(isSurfaceEligibleType(action.type) ? [{ surfaceOp: 'append' }] : []))
    } else if (action.kind === 'set_wall') {
      setWall(action.ms)
    } else if (action.kind === 'dispose') {
      const host = currentProcess?.host
      const record = host?.recordForAgent(agent)
      if (record !== undefined) host.beginDispose(record)
    } else if (action.kind === 'wake_fault') {
      currentProcess?.faults.wake(action.window)
    }
  }
}

function refuseClaim(agent, why) {
  countsOf(agent).refusals += 1
  trace('claim-refused', agent.session.id, why)
  actInside(agent, 'refused-claim')
}

const AGENT_LOOP_FILES = /[\\/]node_modules[\\/]@deepseek-ai[\\/]dsh-agent-loop[\\/]/
function calledByAgentLoop() {
  // frames: Error, calledByAgentLoop, the patched whenIdle, its caller
  return AGENT_LOOP_FILES.test(stackHere().split('\n')[3] ?? '')
}

const patchedAgentPrototypes = new WeakSet()
function patchAgent(agent) {
  const proto = Object.getPrototypeOf(agent)
  if (patchedAgentPrototypes.has(proto)) return
  patchedAgentPrototypes.add(proto)
  patch('agent-followup', proto, 'followup', (followup) => function followupWithFaults(message) {
    if (currentProcess?.alive && currentProcess.faults.followupFails()) {
      throw new Error('followup rejected by the fault plan')
    }
    if (currentProcess?.alive) countGrowth('follow-up')
    // Recorded when the call is made, before whatever the official agent
    // does inside it (its inbox append), as the Python host records it; a
    // call the agent refuses leaves no entry.
    const entry = traceEntry('followup', this.session.id)
    try {
      actInside(this, 'followup')
      return followup.call(this, message)
    } catch (error) {
      untrace(entry)
      throw error
    }
  })
  patchInject(proto)
  patch('agent-maintenance', proto, 'runMaintenance', (runMaintenance) => function countedMaintenance(task) {
    if (currentProcess?.alive && currentProcess.faults.maintenanceFails()) {
      // An asynchronous rejection: the claim is refused later, the task never runs.
      refuseClaim(this, 'fault')
      return Promise.reject(new Error('maintenance rejected by the fault plan'))
    }
    if (busyHolds.has(this)) {
      // Busy with no task running (hold_busy): refused as a busy agent refuses.
      refuseClaim(this, 'busy')
      throw new Error(`agent "${this.id}" is busy`)
    }
    const counts = countsOf(this)
    const sessionId = this.session.id
    // The claim is counted once it succeeded, before its task starts (DSH runs
    // the task synchronously inside runMaintenance).
    const claimed = (signal) => {
      counts.claims += 1
      trace('claim', sessionId)
      actInside(this, 'claim')
      return task(signal)
    }
    try {
      return runMaintenance.call(this, claimed) // throws synchronously when busy
    } catch (error) {
      refuseClaim(this, 'busy')
      throw error
    }
  })
  // Held turns: a wake of an idle agent is put off until the hold ends.
  patch('agent-wake', proto, 'wakeDriver', (wakeDriver) => function wakeDriverUnlessHeld(...args) {
    if ((heldTurns.has(this) || busyHolds.has(this)) && this.phase?.kind === 'idle') return
    return wakeDriver.apply(this, args)
  })
  // The release is the phase leaving maintenance (before a parked follow-up's
  // turn starts), not the later settling of runMaintenance's promise.
  patch('agent-phase', proto, 'setPhase', (setPhase) => function setPhaseCounted(next) {
    const releasing = this.phase?.kind === 'maintenance' && next?.kind !== 'maintenance'
    const result = setPhase.call(this, next)
    if (releasing) {
      countsOf(this).releases += 1
      trace('release', this.session.id)
    }
    return result
  })
  patch('agent-when-idle', proto, 'whenIdle', (whenIdle) => function countedWhenIdle() {
    // The agent loop's own wait (its disposal lets the current activity end)
    // is the host's, not a plugin's: the Python host makes no such call.
    if (calledByAgentLoop()) return whenIdle.call(this)
    countsOf(this).whenIdle += 1
    trace('when-idle', this.session.id)
    // A test may reject the wait while it is pending (reject_when_idle).
    const rejecter = Promise.withResolvers()
    let waits = idleWaits.get(this)
    if (waits === undefined) idleWaits.set(this, (waits = new Set()))
    waits.add(rejecter)
    const forget = () => waits.delete(rejecter)
    // Held busy: the wait ends once the hold is released, then as usual.
    const busy = busyHolds.get(this)
    const idle = busy === undefined ? whenIdle.call(this) : busy.promise.then(() => whenIdle.call(this))
    idle.then(forget, forget)
    return Promise.race([idle, rejecter.promise])
  })
}

/** The registry's refusal of arguments that are not lossless JSON (-0, NaN, Infinity), or null.
 *  Direct calls that bypass the registry (aborted, as another agent) meet it too. */
function notLossless(args) {
  if (snapshotJsonValue(args) !== undefined) return null
  const message = 'tool execution arguments must be losslessly JSON-serializable'
  return { is_error: true, value: null, text: message, error: message }
}

// -- the growth budget and the symptoms of host limits (lib/growth.mjs) ------

/** Sessions whose agent is preparing a step: agent/pre-step dispatched, no step/start yet. */
const preparing = new WeakSet()
/** Per session: ids of the messages given to agent.inject() while its agent prepared a step. */
const injectedAtPreStep = new WeakMap()

function notePreparing(session) {
  preparing.add(session)
}

/** The events that open a turn or a step (counted by the spin detector). */
const OPENS = { 'turn/start': 'turn', 'step/start': 'step' }

function noteGrowthSymptoms(session, type, data) {
  if (type === 'step/start' || type === 'turn/end') {
    preparing.delete(session)
  } else if (type === 'user/message' && injectedAtPreStep.get(session)?.delete(data?.id)) {
    noteInjectedLanding()
  }
}

/** agent.inject() counts as growth; called at a pre-step it is the symptom of
 * the host queueing the message for the next step. */
function patchInject(proto) {
  patch('agent-inject', proto, 'inject', (inject) => function injectCounted(message) {
    if (currentProcess?.alive) {
      countGrowth('injected message')
      if (preparing.has(this.session)) {
        noteSymptom(PRE_STEP_INJECT)
        if (typeof message?.id === 'string') {
          let ids = injectedAtPreStep.get(this.session)
          if (ids === undefined) injectedAtPreStep.set(this.session, (ids = new Set()))
          ids.add(message.id)
        }
      }
    }
    return inject.call(this, message)
  })
}

/** The driver's view of a tool result. */
function toolOutcome(result) {
  const text = (result.content ?? [])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('')
  if (result.isError) {
    const message = result.error?.message ?? text
    return { is_error: true, value: null, text: message, error: message }
  }
  return { is_error: false, value: result.value ?? null, text, error: null }
}

/** Work a test started and watches (pytest_dsh.driving.pending); settles on its own. */
class PendingWork {
  constructor(promise, controls = {}) {
    this.state = 'pending'
    this.value = undefined
    this.controls = controls
    promise.then(
      (value) => {
        this.state = 'resolved'
        this.value = value
      },
      (error) => {
        this.state = 'rejected'
        this.value = error
      },
    )
  }

  info() {
    if (this.state === 'resolved') return { done: true, ok: true, value: this.value ?? null }
    if (this.state === 'rejected') {
      const error = this.value
      const kind = error instanceof BridgeError ? error.kind : 'NodeError'
      return { done: true, ok: false, error: { kind, message: describe(error) } }
    }
    return { done: false }
  }
}

/** Wait for `promise` while the host settles; a promise still pending is stuck. */
async function drive(promise) {
  let state = 'pending'
  let value
  promise.then(
    (v) => {
      state = 'resolved'
      value = v
    },
    (e) => {
      state = 'rejected'
      value = e
    },
  )
  await settle()
  // A host on the real JSONL backend also waits (in real time) for file I/O.
  const realIo = currentProcess?.host.realIo === true
  for (let waited = 0; state === 'pending' && realIo && waited < 10000; waited++) {
    await new Promise((resolve) => realTimeout(resolve, 1))
    await settle()
  }
  if (state === 'resolved') return value
  if (state === 'rejected') throw value
  throw new BridgeError(
    'HostStuckError',
    'the operation is still waiting with nothing left to run ' +
      '(a hung flush? call faults.release_hung_flushes() or advance the clock)',
  )
}

// -- agents --------------------------------------------------------------------

class AgentRecord {
  constructor(host, handleId, agent, isRoot) {
    this.host = host
    this.handleId = handleId
    /** The creation handle (`dispose()`), set once the creation settled. */
    this.handle = null
    this.agent = agent
    this.proc = host.proc
    this.isRoot = isRoot
    this.script = []
    this.requests = []
    this.abortNext = false
    this.disposed = false
  }

  get live() {
    return !this.disposed && this.proc.alive && this.proc.ctx.agents.get(this.agent.id) === this.agent
  }

  historyEvents() {
    const { session } = this.agent
    const events = session.events
    return session.surface.nodes.map((seq) => events[seq])
  }

  header() {
    const { header } = this.agent.session
    return header.seedLength === undefined
      ? { id: header.id }
      : { id: header.id, seedLength: header.seedLength }
  }
}

// -- one process ---------------------------------------------------------------

class Process {
  constructor(host) {
    this.host = host
    this.faults = host.faults
    this.alive = true
    this.ctx = new Context()
    this.plugins = new Map()
    this.sessions = null
    this.loadErrors = null
    this.flushesInFlight = 0
    /** A plugin is loading now (zone-lookup faults apply only then). */
    this.loading = false
  }

  async start() {
    const { ctx, host } = this
    const proc = this
    const offered = (service) => !host.withhold.has(service)
    // Cordis exports only up to its default level (info) unless told: warnings too.
    ctx.logger.exporter({ levels: { default: 2 }, export: (message) => proc.log(message) })
    const Store = hostSessionStore(this)
    // Capture the live store instance for the append-fault seam.
    class CapturedStore extends Store {
      constructor(...args) {
        super(...args)
        proc.sessions = this
      }
    }
    await ctx.plugin(LlmService)
    if (offered('sessions')) await ctx.plugin(CapturedStore)
    await ctx.plugin(SystemPrompt, {})
    await ctx.plugin(ToolRuntime, {})
    if (offered('agents')) await ctx.plugin(AgentRegistry)
    if (offered('session_persistence')) {
      if (host.jsonlRoot === null) await ctx.plugin(memoryPersistence(this))
      else await ctx.plugin(await jsonlPersistence(), { root: host.jsonlRoot, compression: 'none' })
    }
    if (offered('invariants')) await ctx.plugin(InvariantRegistry, { enabled: true })
    ctx.llm.registerAdapter(['bridge'], new ScriptedAdapter(host))
    if (offered('sessions') && offered('agents')) await ctx.plugin(AgentLoop, { agents: [] })
    // Host listener (before any plugin's): the tools a test preregistered.
    ctx.on('agent/created', ({ agent }) => {
      for (const name of host.preregistered) agent.ctx.tools.register(hostTool(name))
    })
    // Honours abort_next_pre_step when the host dispatches agent/pre-step,
    // before its first listener runs: a listener of the host's own would run
    // after every prepended plugin listener, which would then see the step's
    // signal not yet aborted (the Python host aborts it before any listener).
    ctx.on('internal/dispatch', (_mode, name, args) => {
      if (name !== 'agent/pre-step') return
      const agent = args[0]?.agent
      if (agent?.session !== undefined) notePreparing(agent.session)
      const record = agent === undefined ? undefined : host.recordForAgent(agent)
      if (record?.abortNext) {
        record.abortNext = false
        agent.cancel({ kind: 'hook', reason: 'abort_next_pre_step' }, { keepInbox: true })
      }
    }, { global: true, prepend: true })
    // Ordinary watchers: one listener before any plugin's, not prepended, so
    // they run after every prepended listener and before every plugin
    // listener registered later, in the order they were added.
    ctx.on('agent/pre-step', (payload, next) => {
      for (const watcher of host.watchers) if (watcher.order === 'ordinary') proc.runWatcher(watcher, payload)
      return next()
    })
    await settle()
  }

  /**
   * A retired process is never driven again. Its agent registry holds two
   * AsyncLocalStorage instances; without AsyncContextFrame (Node 20) each
   * enabled instance taxes every later promise, so they are switched off.
   */
  retire() {
    this.alive = false
    try {
      const agents = this.ctx.get('agents')
      agents?.initiators?.disable?.()
      agents?.initiatorRuns?.disable?.()
    } catch {
      // best effort: a registry that is not there has nothing to switch off
    }
  }

  log(message) {
    const text = message.args.map(describe).join(' ')
    if (message.type === 'warn') this.host.warnings.push(text)
    else if (message.type === 'error') {
      if (this.loadErrors !== null) this.loadErrors.push(text)
      else this.host.errors.push(text)
    }
  }

  async loadPlugin(name, config) {
    const plugin = PLUGINS[name]
    if (plugin === undefined) {
      throw new BridgeError('UnknownPluginError', name, { available: Object.keys(PLUGINS).sort() })
    }
    if (this.plugins.has(name)) {
      throw new BridgeError('CompositionError', `plugin '${name}' is already loaded`)
    }
    // Apply errors (a refused config) reject the fiber; cordis also logs them.
    this.loadErrors = []
    this.loading = true
    let fiber
    let failure
    try {
      fiber = this.ctx.plugin(plugin, structuredClone(config))
      await drive(Promise.resolve(fiber))
    } catch (error) {
      if (error instanceof BridgeError || fiber === undefined) throw error
      failure = describe(error)
    } finally {
      this.loading = false
    }
    const logged = this.loadErrors
    this.loadErrors = null
    failure ??= fiber.state === FIBER_FAILED ? (logged[0] ?? `plugin ${name} failed to load`) : undefined
    if (failure === undefined && fiber.state !== FIBER_ACTIVE) {
      // Cordis leaves a plugin with an unmet inject pending; for the driver
      // that is a composition error.
      const missing = injectNames(plugin).filter((service) => this.ctx.get(service) === undefined)
      await fiber.dispose()
      await settle()
      const listed = missing.map((service) => DRIVER_NAME[service] ?? service).sort().join(', ')
      throw new BridgeError(
        'CompositionError',
        `plugin '${name}' requires ${listed || 'a service'}, which this host does not provide`,
      )
    }
    if (failure !== undefined) {
      await fiber.dispose()
      await settle()
      throw new BridgeError('PluginLoadError', failure, { plugin: name })
    }
    this.host.errors.push(...logged)
    this.plugins.set(name, fiber)
    this.keepLastWatchersLast()
  }

  async unloadPlugin(name) {
    const fiber = this.plugins.get(name)
    if (fiber === undefined) {
      throw new BridgeError('UnknownPluginError', name, { available: [...this.plugins.keys()].sort() })
    }
    this.plugins.delete(name)
    await drive(fiber.dispose())
  }

  /** Last watchers run from one listener, moved behind every plugin's listener
   *  whenever a plugin loads or a watcher is added, in the order they were added. */
  addWatcher(watcher) {
    if (watcher.order === 'ordinary') return // the listener registered at start runs it
    this.keepLastWatchersLast()
  }

  keepLastWatchersLast() {
    this.disposeLastWatchers?.()
    this.disposeLastWatchers = undefined
    if (!this.host.watchers.some((watcher) => watcher.order === 'last')) return
    this.disposeLastWatchers = this.ctx.on('agent/pre-step', (payload, next) => {
      for (const watcher of this.host.watchers) if (watcher.order === 'last') this.runWatcher(watcher, payload)
      return next()
    })
  }

  runWatcher(watcher, { agent, turn, step, signal }) {
    const host = this.host
    const record = host.recordForAgent(agent)
    host.watcherCalls.push({
      watcher: watcher.id,
      agent_id: record?.agent.id ?? agent.id,
      turn,
      step,
      aborted: signal.aborted,
      log_length: agent.session.events.length,
    })
    const selected = watcher.only === null || (watcher.only[0] === turn && watcher.only[1] === step)
    if (selected && watcher.mode === 'raise') {
      throw new Error(`pre-step watcher failed turn ${turn} step ${step}`)
    }
    if (selected && watcher.mode === 'abort') {
      // A pre-step the driver reached directly has no turn to cancel: abort
      // its own signal, as the Python host's watcher does.
      const direct = host.directPreSteps.get(signal)
      if (direct !== undefined) direct.abort()
      else agent.cancel({ kind: 'hook', reason: 'pre-step watcher' }, { keepInbox: true })
    }
  }
}

// -- the host ------------------------------------------------------------------

/** The official JSONL backend (imported lazily: it needs Node >= 22.15). */
async function jsonlPersistence() {
  try {
    return (await import('@deepseek-ai/dsh-session-persistence-jsonl')).default
  } catch (error) {
    throw new BridgeError(
      'BridgeUnsupported',
      `the JSONL backend cannot load on Node ${process.version} (it needs >= 22.15): ${describe(error)}`,
    )
  }
}

export class Host {
  constructor(withhold = [], jsonlRoot = null) {
    /** Sessions persist to real files under this folder instead of memory. */
    this.jsonlRoot = jsonlRoot
    this.realIo = jsonlRoot !== null
    resetIds()
    const unknown = withhold.filter((service) => !(service in WITHHOLDABLE))
    if (unknown.length > 0) {
      throw new BridgeError(
        'ValueError',
        `cannot withhold ${JSON.stringify(unknown.sort())}; withholdable: ${JSON.stringify(Object.keys(WITHHOLDABLE).sort())}`,
      )
    }
    this.withhold = new Set(withhold)
    // What is durable: the in-memory store, or the JSONL backend's files.
    this.store = jsonlRoot === null ? new DurableStore() : new JsonlFiles(jsonlRoot)
    this.faults = new Faults()
    this.flushes = []
    this.warnings = []
    this.errors = []
    this.watcherCalls = []
    this.loaded = []
    this.watchers = []
    this.records = new Map()
    this.ids = 0
    this.handles = 0
    this.directCalls = 0
    this.pending = new Map()
    this.pendingIds = 0
    this.disposals = new Map()
    this.directPreSteps = new WeakMap()
    this.tracing = false
    this.traceEntries = []
    this.preregistered = []
    this.registrations = new Map()
    this.proc = null
    /** The creation in progress: {sessionId, isRoot, record} (see `adopt`). */
    this.creating = null
  }

  // -- tool registry introspection

  journalOf(sessionId) {
    if (!this.registrations.has(sessionId)) this.registrations.set(sessionId, [])
    return this.registrations.get(sessionId)
  }

  toolVisible(entry) {
    return this.proc.ctx.tools.get(entry.name, entry.agent) === entry.definition
  }

  toolRegistrations(sessionId) {
    return (this.registrations.get(sessionId) ?? []).map((entry) => {
      let state = 'dropped'
      if (entry.refused) state = 'refused'
      else if (entry.disposed) state = 'disposed'
      else if (this.toolVisible(entry)) state = 'active'
      return { name: entry.name, state, output_schema: entry.output_schema, host_tool: entry.host_tool }
    })
  }

  // -- work a test starts and watches

  track(promise, controls) {
    const id = `p${++this.pendingIds}`
    this.pending.set(id, new PendingWork(promise, controls))
    return id
  }

  pendingInfo(id) {
    const work = this.pending.get(id)
    if (work === undefined) throw new BridgeError('TypeError', `no pending work ${id}`)
    return work
  }

  async startTool(handleId, name, args, aborted) {
    const { agent } = this.record(handleId)
    const callId = CallId(`direct-${++this.directCalls}`)
    const controller = new AbortController()
    if (aborted) controller.abort()
    const promise = aborted
      ? this.invokeAborted(agent, name, args, callId)
      : this.proc.ctx.tools
          .execute({ callId, name, arguments: args, signal: controller.signal, agent })
          .then(toolOutcome)
    const id = this.track(promise, { controller })
    await settle()
    return id
  }

  async startPreStep(handleId, turn, step, aborted) {
    const { agent } = this.record(handleId)
    const controller = new AbortController()
    if (aborted) controller.abort()
    const { signal } = controller
    this.directPreSteps.set(signal, controller)
    // The loop's own dispatcher, as a step of a turn would call it.
    const run = async () => {
      let decision
      try {
        decision = await agent.dispatch.waterfall(
          'agent/pre-step',
          { messages: [], turn, step, signal },
          () => Promise.resolve({ kind: 'enter', messages: [] }),
        )
      } catch (error) {
        return { kind: 'error', message: describe(error) }
      } finally {
        preparing.delete(agent.session)
      }
      if (signal.aborted) return { kind: 'aborted', message: null }
      if (decision.kind === 'reject') return { kind: 'error', message: describe(decision.reason ?? 'rejected') }
      for (const message of decision.messages) agent.session.append('user/message', message, { surfaceOp: 'append' })
      return { kind: 'entered', message: null }
    }
    const id = this.track(run(), { controller })
    await settle()
    return id
  }

  async startDispose(handleId) {
    const id = this.beginDispose(this.record(handleId))
    await settle()
    return id
  }

  /** Start disposing `record`'s agent without settling (also from a test action
   *  inside one of its calls); a later startDispose returns the same work. */
  beginDispose(record) {
    const { handleId } = record
    let id = this.disposals.get(handleId)
    if (id === undefined || (this.pending.get(id).state !== 'pending' && record.live)) {
      const promise = record.live
        ? record.handle.dispose().then(() => {
            record.disposed = true
            return null
          })
        : Promise.resolve(null)
      id = this.track(promise)
      this.disposals.set(handleId, id)
    }
    return id
  }

  async holdMaintenance(handleId) {
    const { agent } = this.record(handleId)
    const gate = Promise.withResolvers()
    let promise
    try {
      promise = agent.runMaintenance(() => gate.promise.then(() => true))
    } catch (error) {
      throw new BridgeError('MaintenanceRejectedError', describe(error))
    }
    const id = this.track(promise, { release: () => gate.resolve() })
    await settle()
    return id
  }

  async abortPending(id) {
    this.pendingInfo(id).controls.controller?.abort()
    await settle()
  }

  async releasePending(id) {
    this.pendingInfo(id).controls.release?.()
    await settle()
  }

  counters(handleId) {
    const { agent } = this.record(handleId)
    const counts = countsOf(agent)
    return {
      maintenance_claims: counts.claims,
      maintenance_releases: counts.releases,
      when_idle_calls: counts.whenIdle,
      pending_followups: agent.inbox.nextTurn.length,
      maintenance_refusals: counts.refusals,
    }
  }

  actInside(handleId, point, actions) {
    const { agent } = this.record(handleId)
    let armed = armedActions.get(agent)
    if (armed === undefined) armedActions.set(agent, (armed = {}))
    armed[point] = actions
  }

  async rejectWhenIdle(handleId, message) {
    const { agent } = this.record(handleId)
    const waits = [...(idleWaits.get(agent) ?? [])]
    idleWaits.get(agent)?.clear()
    for (const wait of waits) wait.reject(new Error(message))
    await settle()
    return waits.length
  }

  async emitIdleStatus(handleId) {
    const { agent } = this.record(handleId)
    agent.dispatch.emit('agent/status', { status: 'idle' })
    await settle()
  }

  async holdBusy(handleId) {
    const { agent } = this.record(handleId)
    if (!busyHolds.has(agent)) busyHolds.set(agent, Promise.withResolvers())
    await settle()
  }

  async releaseBusy(handleId) {
    const { agent } = this.record(handleId)
    const hold = busyHolds.get(agent)
    busyHolds.delete(agent)
    hold?.resolve()
    if (hold !== undefined && agent.phase.kind === 'idle' && agent.inbox.hasPending) agent.wakeDriver()
    await settle()
  }

  async holdTurns(handleId, held) {
    const { agent } = this.record(handleId)
    if (held) heldTurns.add(agent)
    else if (heldTurns.delete(agent) && agent.phase.kind === 'idle' && agent.inbox.hasPending) agent.wakeDriver()
    await settle()
  }

  /** What the registry makes of a pending call: its execution mode and presentCall card. */
  describeToolCall(handleId, name, args) {
    const { agent } = this.record(handleId)
    const definition = this.proc.ctx.tools.get(name, agent)
    if (definition === undefined) {
      throw new BridgeError('KeyError', `no tool '${name}' is registered on agent '${agent.id}'`)
    }
    const mode = this.proc.ctx.tools.executionMode({ name, arguments: args, agent }).kind
    const card = definition.presentCall?.(args)
    return { execution_mode: mode, card: card === undefined ? null : structuredClone(card) }
  }

  async callToolAs(handleId, otherHandleId, name, args) {
    const { agent } = this.record(handleId)
    const other = this.record(otherHandleId).agent
    const definition = this.proc.ctx.tools.get(name, agent)
    if (definition === undefined) {
      const message = `unknown tool '${name}'`
      return { is_error: true, value: null, text: message, error: message }
    }
    const refused = notLossless(args)
    if (refused !== null) return refused
    const callId = CallId(`direct-${++this.directCalls}`)
    const signal = new AbortController().signal
    try {
      const value = await drive(Promise.resolve(definition.execute(args, { agent: other, signal, callId, name })))
      const content = definition.output.render(args, value)
      const text = content.map((block) => block.text ?? '').join('')
      return { is_error: false, value: value ?? null, text, error: null }
    } catch (error) {
      if (error instanceof BridgeError) throw error
      return { is_error: true, value: null, text: describe(error), error: describe(error) }
    }
  }

  async flushSession(handleId) {
    const { agent } = this.record(handleId)
    try {
      return (await drive(this.proc.ctx.sessions.flush(agent.session))) === true
    } catch (error) {
      if (error instanceof BridgeError) throw error
      return false
    }
  }

  async boot() {
    this.proc = new Process(this)
    currentProcess = this.proc
    await this.proc.start()
  }

  recordFlush(sessionId, outcome, wallMs, length) {
    this.flushes.push({ session_id: sessionId, outcome, wall_ms: wallMs, durable_length: length })
    if (this.tracing) this.traceEntries.push({ kind: 'flush', subject: sessionId, detail: outcome })
  }

  recordForAgent(agent) {
    for (const record of this.records.values()) if (record.agent === agent) return record
    return undefined
  }

  agentForSession(sessionId) {
    let found
    for (const record of this.records.values()) {
      if (record.agent.id === sessionId && record.proc === this.proc) found = record
    }
    return found
  }

  record(handleId) {
    const record = this.records.get(handleId)
    if (record === undefined) throw new BridgeError('TypeError', `no agent handle ${handleId}`)
    return record
  }

  // -- plugins

  async loadPlugin(name, config) {
    await this.proc.loadPlugin(name, config ?? {})
    this.loaded.push([name, structuredClone(config ?? {})])
  }

  async unloadPlugin(name) {
    await this.proc.unloadPlugin(name)
    this.loaded = this.loaded.filter(([n]) => n !== name)
    await settle()
  }

  // -- agents

  /**
   * Create an agent on session `sessionId` with `create()` (the official
   * create or resume) and wait for it. Its record exists from its
   * announcement on (see `announced`), so model requests of its first turns
   * are recorded; a creation that fails leaves no record behind.
   */
  async adopt(sessionId, create, isRoot, gone = false) {
    const creating = { sessionId, isRoot, record: null, gone }
    this.creating = creating
    let handle
    try {
      handle = await drive(create())
    } catch (error) {
      if (creating.record !== null) this.records.delete(creating.record.handleId)
      throw error
    } finally {
      if (this.creating === creating) this.creating = null
    }
    patchAgent(handle.agent)
    let record = creating.record
    if (record === null || record.agent !== handle.agent) {
      if (record !== null) this.records.delete(record.handleId)
      record = this.newRecord(handle.agent, isRoot)
    }
    record.handle = handle
    if (gone) {
      // Gone when announced: its real disposal follows at once.
      goneAgents.add(handle.agent)
      await drive(handle.dispose())
      record.disposed = true
    }
    await settle()
    return record
  }

  newRecord(agent, isRoot) {
    const handleId = `h${++this.handles}`
    const record = new AgentRecord(this, handleId, agent, isRoot)
    this.records.set(handleId, record)
    return record
  }

  /** The registry announces `agent`: the one being created gets its record now. */
  announced(agent) {
    const creating = this.creating
    if (creating == null || creating.record !== null || agent.session?.id !== creating.sessionId) return
    if (creating.gone) goneAgents.add(agent)
    creating.record = this.newRecord(agent, creating.isRoot)
  }

  async createAgent({ sessionId, seed, parent, seedLength, goneWhenAnnounced = false }) {
    const sid = sessionId ?? `session-${++this.ids}`
    if (this.proc.ctx.sessions.get(sid) !== undefined) {
      throw new BridgeError('ValueError', `session '${sid}' is already live`)
    }
    const owner = parent === undefined || parent === null ? this.proc.ctx : this.record(parent).agent.ctx
    // A header seedLength is passed through unvalidated: replay decides.
    const withSeedLength = seedLength === undefined || seedLength === null ? {} : { seedLength }
    const options = {
      sessionId: SessionId(sid),
      agentOptions: AGENT_OPTIONS,
      meta: { ...creationMeta(), ...withSeedLength },
      ...(seed === undefined || seed === null ? {} : { seed: toOfficialSeed(seed) }),
    }
    try {
      const isRoot = parent === undefined || parent === null
      return await this.adopt(sid, () => owner.agents.create(options), isRoot, goneWhenAnnounced)
    } catch (error) {
      if (vetoes.has(error)) throw new BridgeError('AgentVetoedError', describe(error), { agent_id: sid })
      throw error
    }
  }

  async fork(handleId) {
    const source = this.record(handleId).agent.session
    const events = structuredClone(source.events)
    const sid = `session-${++this.ids}`
    const options = {
      sessionId: SessionId(sid),
      agentOptions: AGENT_OPTIONS,
      seed: events,
      meta: { ...creationMeta(), parentSession: source.id, seedLength: events.length },
    }
    return this.adopt(sid, () => this.proc.ctx.agents.create(options), true)
  }

  async resume(sessionId) {
    if (this.jsonlRoot === null && !this.store.has(sessionId)) this.store.load(sessionId) // KeyError
    if (this.proc.ctx.sessions.get(sessionId) !== undefined) {
      throw new BridgeError('ValueError', `session '${sessionId}' is already live`)
    }
    const options = { resumeSessionId: SessionId(sessionId), agentOptions: AGENT_OPTIONS }
    return this.adopt(sessionId, () => this.proc.ctx.agents.resume(options), true)
  }

  async dispose(handleId) {
    const work = this.pendingInfo(await this.startDispose(handleId))
    if (work.state === 'pending') {
      throw new BridgeError(
        'HostStuckError',
        'the disposal is still waiting with nothing left to run ' +
          '(a hung flush? release it and the disposal finishes)',
      )
    }
    if (work.state === 'rejected') throw work.value
  }

  async crash() {
    this.proc.retire()
    this.faults.hung = [] // in-flight work of the dead process never completes
    this.claimed?.clear() // so are its maintenance claims
    dropTimers()
    this.proc = new Process(this)
    currentProcess = this.proc
    await this.proc.start()
    for (const [name, config] of this.loaded) await this.proc.loadPlugin(name, structuredClone(config))
    this.proc.keepLastWatchersLast()
    await settle()
  }

  addWatcher(mode, only, order = 'last') {
    if (order !== 'last' && order !== 'ordinary') {
      throw new BridgeError('ValueError', `order must be 'last' or 'ordinary', not ${JSON.stringify(order)}`)
    }
    const watcher = { id: this.watchers.length, mode, only: only ?? null, order }
    this.watchers.push(watcher)
    this.proc.addWatcher(watcher)
    return watcher.id
  }

  // -- agent operations

  async callTool(handleId, name, args, aborted) {
    const { agent } = this.record(handleId)
    const callId = CallId(`direct-${++this.directCalls}`)
    if (aborted) return this.callAborted(agent, name, args, callId)
    const result = await drive(
      this.proc.ctx.tools.execute({
        callId,
        name,
        arguments: args,
        signal: new AbortController().signal,
        agent,
      }),
    )
    return toolOutcome(result)
  }

  // The registry never starts a body whose signal is already aborted; the
  // tool definition (argument validation included) is invoked directly so the
  // plugin's own abort handling is what the test observes.
  async callAborted(agent, name, args, callId) {
    try {
      return await drive(this.invokeAborted(agent, name, args, callId))
    } catch (error) {
      if (error instanceof BridgeError) throw error
      return { is_error: true, value: null, text: describe(error), error: describe(error) }
    }
  }

  async invokeAborted(agent, name, args, callId) {
    const definition = this.proc.ctx.tools.get(name, agent)
    if (definition === undefined) {
      const message = `unknown tool '${name}'`
      return { is_error: true, value: null, text: message, error: message }
    }
    const refused = notLossless(args)
    if (refused !== null) return refused
    const controller = new AbortController()
    controller.abort()
    try {
      const value = await definition.execute(args, { agent, signal: controller.signal, callId, name })
      const content = definition.output.render(args, value)
      const text = content.map((block) => block.text ?? '').join('')
      return { is_error: false, value: value ?? null, text, error: null }
    } catch (error) {
      return { is_error: true, value: null, text: describe(error), error: describe(error) }
    }
  }

  async prompt(handleId, text) {
    const { agent } = this.record(handleId)
    agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }))
    await settle()
  }

  async appendEvent(handleId, type, data, envelope) {
    const { agent } = this.record(handleId)
    // The official session requires a surface marker on message events; a
    // raw test append of one is an ordinary model-visible append unless the
    // test gives the envelope itself (a chosen time alone keeps the marker).
    const { time, ...surface } = envelope ?? {}
    let opts = isSurfaceEligibleType(type) ? [{ surfaceOp: 'append' }] : []
    if (Object.keys(surface).length > 0) opts = [surface]
    if (time === undefined) {
      const event = agent.session.append(type, data, ...opts)
      await settle()
      return event
    }
    if (!Number.isSafeInteger(time) || Math.abs(time) > 8.64e15) {
      throw new BridgeError('ValueError', `envelope time must be an integer epoch ms, got ${time}`)
    }
    // DSH stamps an event with Date.now(): the wall clock stands at the
    // chosen time for this one append, and steps back at once (no timer moves).
    const wall = Date.now()
    setWall(time)
    let event
    try {
      event = agent.session.append(type, data, ...opts)
    } finally {
      setWall(wall)
    }
    await settle()
    return event
  }

  async compact(handleId, seqs, summary, plugin) {
    const { session } = this.record(handleId).agent
    const shadowed = [...seqs].sort((a, b) => a - b)
    session.append('compact/start', { seqs: shadowed })
    session.append(
      'user/message',
      createUserMessage({
        content: [{ type: 'text', text: summary }],
        source: { kind: 'plugin', plugin },
      }),
      {
        surfaceOp: { op: 'replace', start: shadowed[0], end: shadowed.at(-1) },
        sourceEventSeqs: shadowed,
      },
    )
    session.append('compact/end', { seqs: shadowed })
    await settle()
  }

  close() {
    this.proc?.retire()
    this.faults.hung = []
    if (currentProcess === this.proc) currentProcess = null
  }
}

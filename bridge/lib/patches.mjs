// Every patch the bridge makes to the DSH host packages and to Node's
// globals, in one table: what is patched, which driver seam it serves, why a
// patch (DSH offers no hook there). Each patch goes through `patch()`, which
// refuses a name the table does not hold and fails loudly, naming the
// target, when a host profile lacks what the table says it patches (an
// internal renamed upstream): a bridge on such a host does not start, or the
// first agent fails, instead of a seam silently doing nothing.
//
// This module imports nothing: lib/intl-cache.mjs patches before the fake
// clock is installed, and that before any DSH package loads.
import { BridgeError } from './errors.mjs'

/**
 * name -> { target, kind, by, seam, why }. kind: 'method' (a function
 * property), 'getter' (an accessor property), 'constructor' (a class replaced
 * by a Proxy), 'polyfill' (added only where missing), 'library' (installed
 * by a library, recorded here), 'setting' (a value of Node's, set). `by`: the file holding the wrapper. The order
 * is the install order.
 */
export const PATCHES = {
  'promise-with-resolvers': {
    target: 'Promise.withResolvers', kind: 'polyfill', by: 'lib/polyfill.mjs',
    seam: 'Node 20 runs the bridge',
    why: 'the official runtime calls it; Node 20 lacks it',
  },
  'intl-cache': {
    target: 'Intl.DateTimeFormat', kind: 'constructor', by: 'lib/intl-cache.mjs',
    seam: 'none: speed only (equal arguments share one formatter)',
    why: 'the official domain code builds a fresh formatter for every zone lookup',
  },
  'source-text': {
    target: 'Function.prototype.toString', kind: 'method', by: 'lib/source-text.mjs',
    seam: 'none: speed only (a function\'s source text is read once and kept)',
    why: 'dsh-session and dsh-tools read a native constructor\'s source text for every object and array of every JSON value they check',
  },
  'fake-timers': {
    target: 'Date, setTimeout, clearTimeout, setInterval, clearInterval', kind: 'library', by: 'lib/clock.mjs',
    seam: 'the virtual clock: advance, set_wall_clock, settle',
    why: 'DSH and the plugins read the global clock and timers; @sinonjs/fake-timers replaces them before any DSH package loads',
  },
  'tool-journal': {
    target: 'ToolRuntime.prototype.register', kind: 'method', by: 'lib/tool-journal.mjs',
    seam: 'tool_registrations',
    why: 'the registry keeps no record of refused or disposed registrations',
  },
  ids: {
    target: 'crypto.randomUUID', kind: 'method', by: 'host.mjs',
    seam: 'deterministic ids: the same log on every run',
    why: 'DSH draws message ids from randomUUID',
  },
  'append-faults': {
    target: 'Session.prototype.append', kind: 'method', by: 'host.mjs',
    seam: 'FaultPlan.fail_appends, the growth budget, trace (append, dispatch)',
    why: 'every event goes through append; no hook runs before it',
  },
  'announce-watch': {
    target: 'AgentRegistry.prototype.announce', kind: 'method', by: 'host.mjs',
    seam: 'agent records from the announcement on; AgentVetoedError',
    why: 'what a plugin does while a creation settles must meet the seams; a throwing agent-created listener is a veto',
  },
  'registry-get': {
    target: 'AgentRegistry.prototype.get', kind: 'method', by: 'host.mjs',
    seam: 'create_agent(gone_when_announced=True)',
    why: 'the registry defers a removal asked for during the announcement',
  },
  'registry-list': {
    target: 'AgentRegistry.prototype.list', kind: 'method', by: 'host.mjs',
    seam: 'create_agent(gone_when_announced=True)',
    why: 'as registry-get',
  },
  'registry-roots': {
    target: 'AgentRegistry.prototype.roots', kind: 'method', by: 'host.mjs',
    seam: 'create_agent(gone_when_announced=True)',
    why: 'as registry-get',
  },
  'registry-owned': {
    target: 'AgentRegistry.prototype.isOwnedBy', kind: 'method', by: 'host.mjs',
    seam: 'create_agent(gone_when_announced=True)',
    why: 'as registry-get',
  },
  'start-faults': {
    target: 'AgentRegistry.prototype.withoutInitiator', kind: 'method', by: 'lib/faults.mjs',
    seam: 'FaultPlan.fail_background_starts',
    why: 'the official Schedule starts each owner run through it',
  },
  'message-faults': {
    target: 'crypto.randomUUID', kind: 'method', by: 'lib/faults.mjs',
    seam: 'FaultPlan.fail_followup_messages',
    why: "dsh-llm's createUserMessage draws its id here: failing it fails the build before followup()",
  },
  'zone-faults': {
    target: 'Intl.DateTimeFormat', kind: 'constructor', by: 'lib/faults.mjs',
    seam: 'FaultPlan.fail_zone_lookups',
    why: 'a plugin looks a zone up by building a formatter while it loads',
  },
  'timer-trace-arm': {
    target: 'setTimeout', kind: 'method', by: 'host.mjs',
    seam: 'trace (timer-arm)',
    why: "a plugin's own timers are visible only where it calls the global",
  },
  'timer-trace-cancel': {
    target: 'clearTimeout', kind: 'method', by: 'host.mjs',
    seam: 'trace (timer-cancel)',
    why: 'as timer-trace-arm',
  },
  'clock-faults': {
    target: 'Date.now', kind: 'method', by: 'host.mjs',
    seam: 'FaultPlan.fail_clock_reads and planned clock values',
    why: "a plugin's clock read is a call of the global",
  },
  'event-read-faults': {
    target: 'Session.prototype.events', kind: 'getter', by: 'host.mjs',
    seam: 'FaultPlan.fail_event_reads',
    why: "a plugin reads its log through this accessor; the host's own reads stay unfaulted",
  },
  'agent-followup': {
    target: 'Agent.prototype.followup', kind: 'method', by: 'host.mjs',
    seam: 'FaultPlan.fail_followups, the growth budget, trace (followup), act_inside("followup")',
    why: 'a follow-up has no hook before the inbox takes it',
  },
  'agent-inject': {
    target: 'Agent.prototype.inject', kind: 'method', by: 'host.mjs',
    seam: 'the growth budget; the pre-step inject host-limit symptom',
    why: 'an injected message has no event until it lands',
  },
  'agent-maintenance': {
    target: 'Agent.prototype.runMaintenance', kind: 'method', by: 'host.mjs',
    seam: 'FaultPlan.fail_maintenance, hold_busy refusals, counters, trace (claim), act_inside("claim")',
    why: 'a maintenance claim emits nothing',
  },
  'agent-wake': {
    target: 'Agent.prototype.wakeDriver', kind: 'method', by: 'host.mjs',
    seam: 'hold_turns, hold_busy',
    why: 'the only place a queued follow-up turns into a turn',
  },
  'agent-phase': {
    target: 'Agent.prototype.setPhase', kind: 'method', by: 'host.mjs',
    seam: 'counters (maintenance releases), trace (release)',
    why: 'the release is the phase leaving maintenance, before the claim promise settles',
  },
  'agent-when-idle': {
    target: 'Agent.prototype.whenIdle', kind: 'method', by: 'host.mjs',
    seam: 'counters (whenIdle calls), reject_when_idle, hold_busy, trace (when-idle)',
    why: 'a plugin waits for idleness through it',
  },
  'stack-frames': {
    target: 'Error.stackTraceLimit', kind: 'setting', by: 'lib/stack.mjs',
    seam: 'none: speed only (made only when no package under test can read a stack)',
    why: 'Cordis creates an Error on every plugin call and effect; its frames are never read',
  },
}

/** The patches made so far (names), for the `patches` view and the tests. */
const applied = new Set()

export function appliedPatches() {
  return [...applied]
}

function entryOf(name) {
  const entry = PATCHES[name]
  if (entry === undefined) throw new Error(`patch '${name}' is not in the patch table (bridge/lib/patches.mjs)`)
  return entry
}

/** The property `key` of `owner` or of its prototype chain. */
function lookup(owner, key) {
  for (let at = owner; at !== null && at !== undefined; at = Object.getPrototypeOf(at)) {
    const descriptor = Object.getOwnPropertyDescriptor(at, key)
    if (descriptor !== undefined) return descriptor
  }
  return undefined
}

function refuse(entry, found) {
  return new BridgeError(
    'HostProfileError',
    `cannot patch ${entry.target} (serves ${entry.seam}): this DSH host has ${found}; ` +
      `a host profile whose internals were renamed needs bridge/lib/patches.mjs updated`,
  )
}

/**
 * Replace `owner[key]` (the table entry `name` says which key and how) with
 * `wrap(original)`; throws a HostProfileError naming the target when the
 * original is not there. Returns the original.
 */
export function patch(name, owner, key, wrap) {
  const entry = entryOf(name)
  if (owner === null || owner === undefined) throw refuse(entry, 'no owner of it')
  const descriptor = lookup(owner, key)
  if (entry.kind === 'getter') {
    if (typeof descriptor?.get !== 'function') throw refuse(entry, `no accessor '${key}'`)
    Object.defineProperty(owner, key, { configurable: true, get: wrap(descriptor.get) })
    applied.add(name)
    return descriptor.get
  }
  const original = descriptor?.get === undefined ? descriptor?.value : descriptor.get.call(owner)
  if (typeof original !== 'function') {
    throw refuse(entry, original === undefined ? `no '${key}'` : `a ${typeof original} '${key}', not a function`)
  }
  owner[key] = wrap(original)
  applied.add(name)
  return original
}

/** Add `owner[key] = value()` only where it is missing (a polyfill). */
export function polyfill(name, owner, key, value) {
  entryOf(name)
  if (typeof owner[key] === 'function') return false
  owner[key] = value()
  applied.add(name)
  return true
}

/** Set `owner[key] = value` (a setting of Node's; the table says which). */
export function setting(name, owner, key, value) {
  const entry = entryOf(name)
  if (!(key in owner)) throw refuse(entry, `no '${key}'`)
  owner[key] = value
  applied.add(name)
}

/** Record a patch a library installed itself (`installed` says whether it did). */
export function recordLibraryPatch(name, installed) {
  const entry = entryOf(name)
  if (!installed) throw refuse(entry, 'no such globals')
  applied.add(name)
}

// Planned persistence, append and follow-up failures. The windows are owned by
// the Python FaultPlan: the adapter sends them before a request and reads the
// `seen` counters back after it, so counting semantics stay in one place.
import { patch } from './patches.mjs'
import { stackHere } from './stack.mjs'

/** Every key of `wanted` is in `data` with an equal JSON value (no `wanted`: any payload). */
function payloadMatches(wanted, data) {
  if (wanted === null || wanted === undefined) return true
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return false
  return Object.entries(wanted).every(
    ([key, value]) => Object.hasOwn(data, key) && canonical(data[key]) === canonical(value),
  )
}

/** JSON with sorted keys, so equal values compare equal (as Python's ==). */
function canonical(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  const keys = Object.keys(value).sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`
}

export class Faults {
  constructor() {
    this.windows = []
    this.hung = []
    this.dirty = false
    /** Dormant windows woken since the last reply (ids). */
    this.woken = []
  }

  load(windows) {
    this.windows = windows.map((w) => ({ ...w }))
  }

  seen() {
    return this.windows.map((w) => w.seen)
  }

  claims(window) {
    if (window.dormant === true) return false // started later by a PlanFault action
    window.seen += 1
    this.dirty = true
    if (window.seen < window.first) return false
    return window.count === null || window.seen < window.first + window.count
  }

  nextFlushOutcome() {
    let outcome = 'durable'
    for (const w of this.windows) {
      if (w.kind === 'flush' && this.claims(w) && outcome === 'durable') outcome = w.outcome
    }
    return outcome
  }

  appendFails(type, data) {
    let failed = false
    for (const w of this.windows) {
      if (w.kind === 'append' && (w.event_type === null || w.event_type === type) && payloadMatches(w.data, data)) {
        failed = this.claims(w) || failed
      }
    }
    return failed
  }

  /** Start the dormant window `id` (a PlanFault action ran); the driver learns it with the next reply. */
  wake(id) {
    for (const w of this.windows) {
      if (w.id === id && w.dormant === true) {
        w.dormant = false
        this.woken.push(id)
        this.dirty = true
      }
    }
  }

  /** The windows woken since the last call. */
  takeWoken() {
    const woken = this.woken
    this.woken = []
    return woken
  }

  /** Any planned window of `kind` (a cheap test before a costly caller check). */
  plans(kind) {
    return this.windows.some((w) => w.kind === kind)
  }

  readFails(kind) {
    let failed = false
    for (const w of this.windows) {
      if (w.kind === kind) failed = this.claims(w) || failed
    }
    return failed
  }

  /**
   * Count one plugin clock read: {failed} when a failing window takes it,
   * else {value} from a window that fakes the reading (null: the real clock).
   */
  clockRead() {
    let failed = false
    let value = null
    for (const w of this.windows) {
      if (w.kind === 'clock' && this.claims(w)) {
        if (w.outcome === 'value') value ??= w.value
        else failed = true
      }
    }
    return { failed, value }
  }

  maintenanceFails() {
    let failed = false
    for (const w of this.windows) {
      if (w.kind === 'maintenance') failed = this.claims(w) || failed
    }
    return failed
  }

  followupFails() {
    let failed = false
    for (const w of this.windows) {
      if (w.kind === 'followup') failed = this.claims(w) || failed
    }
    return failed
  }

  /** Park a hung flush; resolves when the test releases hung flushes. */
  park() {
    const parked = Promise.withResolvers()
    this.hung.push(parked.resolve)
    return parked.promise
  }

  /** Release the oldest `count` hung flushes with `outcome` (durable, falsy, rejected, detached). */
  releaseHung(outcome = 'durable', count = Infinity) {
    const released = this.hung.splice(0, count)
    for (const resolve of released) resolve(outcome)
    return released.length
  }
}

// -- seams a plugin's own calls run into ---------------------------------------

/** The bridge folder: stack frames of its own files (not its node_modules) are the host's. */
const BRIDGE_URL = new URL('..', import.meta.url).href
const isOwnFrame = (line) => line.includes(BRIDGE_URL) && !line.includes('/node_modules/')
const CORDIS_FRAMES = /[\\/]node_modules[\\/]@deepseek-ai[\\/]cordis[\\/]/
const LLM_FRAMES = /[\\/]node_modules[\\/]@deepseek-ai[\\/]dsh-llm[\\/]/

/** The first stack frame below the bridge's own and past those `passed` matches. */
function callerPast(passed) {
  const frames = stackHere().split('\n').slice(1).filter((line) => !isOwnFrame(line))
  let index = 0
  while (index < frames.length && passed !== null && passed.test(frames[index])) index++
  return { passed: index, caller: frames[index] ?? '' }
}

/**
 * Install the fault plan's start, message and zone seams (pytest_dsh
 * FaultPlan.fail_background_starts, fail_followup_messages, fail_zone_lookups).
 * `current()` is the live process ({alive, loading, faults}) or null;
 * `pluginFiles` matches a stack line of plugin code; `agentRegistry` is the
 * agents service class whose `withoutInitiator` starts a background run.
 */
export function installPluginCallFaults({ current, pluginFiles, agentRegistry }) {
  const planned = (kind) => {
    const proc = current()
    return proc?.alive === true && proc.faults.plans(kind) ? proc : null
  }

  // A background run a plugin starts (the official Schedule starts each owner run so).
  patch('start-faults', agentRegistry.prototype, 'withoutInitiator', (withoutInitiator) => function withoutInitiatorWithFaults(operation) {
    const proc = planned('start')
    if (proc !== null && pluginFiles.test(callerPast(CORDIS_FRAMES).caller) && proc.faults.readFails('start')) {
      throw new Error('background start refused by the fault plan')
    }
    return withoutInitiator.call(this, operation)
  })

  // A message a plugin builds with dsh-llm's createUserMessage draws its id
  // here; failing that fails the build, before followup() ever sees it.
  patch('message-faults', globalThis.crypto, 'randomUUID', (randomUUID) => function randomUUIDWithFaults() {
    const proc = planned('message')
    if (proc !== null) {
      const { passed, caller } = callerPast(LLM_FRAMES)
      if (passed > 0 && pluginFiles.test(caller) && proc.faults.readFails('message')) {
        throw new Error('follow-up message construction failed (fault plan)')
      }
    }
    return randomUUID.call(this)
  })

  // A zone lookup a plugin makes while it loads: building an Intl formatter.
  const lookupFails = () => {
    const proc = planned('zone')
    return proc !== null && proc.loading === true && pluginFiles.test(callerPast(null).caller) &&
      proc.faults.readFails('zone')
  }
  patch('zone-faults', Intl, 'DateTimeFormat', (formatter) => new Proxy(formatter, {
    construct(target, args, newTarget) {
      if (lookupFails()) throw new RangeError('zone lookup failed (fault plan)')
      return Reflect.construct(target, args, newTarget)
    },
    apply(target, thisArg, args) {
      if (lookupFails()) throw new RangeError('zone lookup failed (fault plan)')
      return Reflect.apply(target, thisArg, args)
    },
  }))
}

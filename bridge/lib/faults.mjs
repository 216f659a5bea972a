// Planned persistence, append and follow-up failures. The windows are owned by
// the Python FaultPlan: the adapter sends them before a request and reads the
// `seen` counters back after it, so counting semantics stay in one place.

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
  }

  load(windows) {
    this.windows = windows.map((w) => ({ ...w }))
  }

  seen() {
    return this.windows.map((w) => w.seen)
  }

  claims(window) {
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

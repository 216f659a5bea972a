// Planned persistence, append and follow-up failures. The windows are owned by
// the Python FaultPlan: the adapter sends them before a request and reads the
// `seen` counters back after it, so counting semantics stay in one place.

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

  appendFails(type) {
    let failed = false
    for (const w of this.windows) {
      if (w.kind === 'append' && (w.event_type === null || w.event_type === type)) {
        failed = this.claims(w) || failed
      }
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

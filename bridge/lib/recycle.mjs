// Whether a process whose test ran away may serve the next host.
//
// A runaway is stopped by throwing where the work grows (lib/growth.mjs), so
// the host's work ends mid-flight. Once its host is closed and its timers
// dropped, nothing of it can run again unless a real (wall-time) resource
// wakes it: every microtask ran before this request was read, and fake timers
// are gone. So the process is as clean as after any other host when, over one
// more real macrotask turn, the closed host's work did nothing (no append, no
// id minted), armed no fake timer, and Node holds no real resource it did not
// hold when idle at start. Anything else, and the driver retires the process.
const realSetImmediate = globalThis.setImmediate

let idle = null

function resourceCounts() {
  const counts = new Map()
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1)
  return counts
}

/** What Node holds while idle between requests (taken once, at the greeting). */
export function noteIdleResources() {
  idle = resourceCounts()
}

/** The real resources held beyond the idle ones, as `kind xN` texts. */
function extraResources() {
  const extra = []
  for (const [kind, count] of resourceCounts()) {
    const over = count - (idle?.get(kind) ?? 0)
    if (over > 0) extra.push(`${kind} x${over}`)
  }
  return extra.sort()
}

/**
 * Why this process cannot be proved clean, or null. Call with the host closed
 * and its timers dropped; `work()` counts what closed hosts' work did,
 * `timers()` the fake timers armed.
 */
export async function uncleanReason(work, timers) {
  const before = work()
  await new Promise((resolve) => realSetImmediate(resolve))
  const done = work() - before
  if (done > 0) return `the stopped work still ran after its host closed (${done} appends or ids)`
  const armed = timers()
  if (armed > 0) return `the stopped work armed ${armed} timer(s) after its host closed`
  const extra = extraResources()
  if (extra.length > 0) return `real work still in flight (${extra.join(', ')})`
  return null
}

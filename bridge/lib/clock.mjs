// The fake clock: sinon fake-timers replace Date and the timer functions,
// so virtual time only moves when the driver says so. Installed before the
// official packages are imported; they read the globals at call time.
import FakeTimers from '@sinonjs/fake-timers'
import { recordLibraryPatch } from './patches.mjs'

const realSetImmediate = globalThis.setImmediate
const realSetTimeout = globalThis.setTimeout

let ioBusy = () => false

/** Real file I/O in flight (the JSONL backend) also keeps `settle` waiting. */
export function setIoBusy(predicate) {
  ioBusy = predicate
}

/** A real (wall-time) timeout, for waiting on file I/O. */
export const realTimeout = (callback, ms) => realSetTimeout(callback, ms)

export const clock = FakeTimers.install({
  now: 0,
  toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
  shouldClearNativeTimers: false,
})
recordLibraryPatch('fake-timers', globalThis.setTimeout !== realSetTimeout && Date.now() === 0)

/** Yield one real macrotask: every queued microtask has run when it resolves. */
const drainMicrotasks = () => new Promise((resolve) => realSetImmediate(resolve))

/** The timer that fires next (fake-timers order: callAt, then creation). */
function nextTimer() {
  let first
  const timers = clock.timers instanceof Map ? clock.timers.values() : Object.values(clock.timers ?? {})
  for (const timer of timers) {
    if (first === undefined || timer.callAt < first.callAt ||
        (timer.callAt === first.callAt && timer.id < first.id)) first = timer
  }
  return first
}

// Timers are fired one at a time with clock.next(), and microtasks are
// drained between them, as Node does. (tickAsync would do the same but yields
// through a real setTimeout per timer, which costs a millisecond each.)

/**
 * Run everything that can happen without virtual time passing: drain
 * microtasks, fire timers due at the current instant, repeat until quiet.
 */
export async function settle(limit = 1000000) {
  for (let round = 0; round < limit; round++) {
    await drainMicrotasks()
    const timer = nextTimer()
    if (timer === undefined || timer.callAt > clock.now) {
      if (!ioBusy()) return
      await new Promise((resolve) => realSetTimeout(resolve, 1))
      continue
    }
    clock.next()
  }
  throw new Error('the host did not settle (a busy loop of zero-delay timers?)')
}

/** Let `ms` of virtual time pass; timers fire at their exact instants. */
export async function advance(ms) {
  // The target is monotonic: a wall-clock step made while time passes (a test
  // action inside a claim the advance reaches) shifts it as sinon shifts the
  // timers, so the step neither shortens nor lengthens the advance.
  const start = clock.now
  const shift = wallShift
  const target = () => start + ms + (wallShift - shift)
  await settle()
  for (;;) {
    const timer = nextTimer()
    if (timer === undefined || timer.callAt > target()) break
    clock.next()
    await settle()
  }
  clock.tick(Math.max(0, target() - clock.now))
  await settle()
}

/** How far every wall-clock step so far moved the clock (sinon moves the timers with it). */
let wallShift = 0

/** Step the wall clock without moving timers (sinon shifts them). */
export function setWall(ms) {
  wallShift += ms - clock.now
  clock.setSystemTime(ms)
}

/** Forget every timer (a crashed or reset process) and keep the wall clock. */
export function dropTimers() {
  const now = clock.now
  clock.reset()
  clock.setSystemTime(now)
}

// The growth budget on the Node side (pytest_dsh/driving/runaway.py): events
// appended, follow-ups queued and messages injected count against what the
// test phase has left, sent with each request. A turn that never ends is all
// microtasks (a scripted model answers at once), so the request never gets
// back to the event loop: the count is the only thing that sees it, and it
// stops the activity where it grows, within seconds rather than at the wall
// budget.
//
// Also here: what the host did that a host limit names (a "symptom",
// pytest_dsh/npm/host_limits.json), so a test that failed or ran away because
// of it is reported as that limit.

/** The symptom of `inject-queued-for-next-step`: agent.inject() called while
 * a step is prepared (an agent/pre-step dispatch) goes to the next step. */
export const PRE_STEP_INJECT = 'pre-step-inject-queued'

/** A runaway whose steps were mostly opened by such injections follows from it. */
const MIN_STEPS_FOR_CAUSE = 3

/** Steps of one turn that may open without virtual time moving: the bridge's
 * spin detector. A scripted model answers at once, so a turn that never ends
 * opens steps at one instant; each step costs the host more than the last (it
 * derives the whole request), so the growth budget alone would take minutes.
 * Turns are not counted: many reminders due at one instant open as many
 * turns. (The fake host ends a turn after 64 steps.) */
export const SPIN_STEPS = 500

/** The spin limit when the request's steps were mostly opened by messages
 * injected at the step before: such a runaway is reported as the host limit
 * `inject-queued-for-next-step` wherever it is stopped, so each step past
 * this only costs time (the steps cost more and more). As many steps as the
 * fake host lets one turn take. */
export const INJECTED_SPIN_STEPS = 64

export class RunawayStop extends Error {
  constructor(message) {
    super(message)
    this.name = 'RunawayStop'
  }
}

const state = {
  /** What this request may still grow; null: unlimited. */
  left: null,
  /** The phase's whole budget, for the message. */
  budget: null,
  /** Counted during this request (sent back so the Python budget follows). */
  used: 0,
  /** Set once the budget ran out: {message, symptom}; every later growth throws. */
  stopped: null,
  stepsOpened: 0,
  injectedLanded: 0,
  /** Steps of the running turn opened at `instant` during this request. */
  openings: 0,
  instant: null,
}

/** Symptoms seen by the current host, in order; a cursor per host sends the new ones. */
let symptoms = []
const seenSymptoms = new Set()

/** A new request: its budget (null when the test has none). */
export function startRequest(left, budget) {
  state.left = Number.isSafeInteger(left) ? left : null
  state.budget = Number.isSafeInteger(budget) ? budget : state.left
  state.used = 0
  state.stepsOpened = 0
  state.injectedLanded = 0
  state.openings = 0
  state.instant = null
}

/** A new host: nothing counted, nothing stopped, no symptom seen. */
export function resetGrowth() {
  state.stopped = null
  state.left = null
  state.used = 0
  symptoms = []
  seenSymptoms.clear()
}

/** The runaway of this request, if the budget ran out: {message, symptom}. */
export function runawayOf() {
  return state.stopped
}

/** What the reply carries: growth used and symptoms first seen. */
export function growthSync(cursor) {
  const fresh = symptoms.slice(cursor.symptoms)
  cursor.symptoms = symptoms.length
  const sync = { grown: state.used }
  if (fresh.length > 0) sync.symptoms = fresh
  return sync
}

export function noteSymptom(name) {
  if (seenSymptoms.has(name)) return
  seenSymptoms.add(name)
  symptoms.push(name)
}

/** A message landed in the log that was injected while the step before was prepared. */
export function noteInjectedLanding() {
  state.injectedLanded += 1
}

/** Count one growth (`what`: the event type, 'follow-up', 'injected message');
 * `opens`: 'turn' or 'step' for a turn/start or step/start. Past the growth
 * budget or the spin limit, stop: this and every later growth of the request
 * throws, so the work unwinds and the request answers. */
export function countGrowth(what, opens = null, now = 0) {
  if (state.stopped !== null) throw new RunawayStop(state.stopped.message)
  if (opens === 'turn') state.openings = 0
  else if (opens === 'step') {
    state.stepsOpened += 1
    if (state.instant === now) state.openings += 1
    else {
      state.instant = now
      state.openings = 1
    }
    const limit = injectionOpened() ? INJECTED_SPIN_STEPS : SPIN_STEPS
    if (state.openings > limit) {
      stop(`${limit} steps of one turn opened without virtual time moving: a turn that never ends`)
    }
  }
  if (state.left === null) return
  state.used += 1
  state.left -= 1
  if (state.left >= 0) return
  stop(
    `the test appended events and queued follow-ups ${state.budget} times ` +
      `(--dsh-growth-budget), the last a ${what}: the event log or the follow-up queue ` +
      'grows without end',
  )
}

/** Were the steps of this request mostly opened by messages injected at the step before? */
function injectionOpened() {
  return state.stepsOpened >= MIN_STEPS_FOR_CAUSE && state.injectedLanded * 2 >= state.stepsOpened
}

function stop(why) {
  const cause = injectionOpened()
  state.stopped = {
    message:
      why +
      (cause
        ? ` (${state.stepsOpened} steps opened in this request, ${state.injectedLanded} of them ` +
          'by a message injected while the step before was prepared)'
        : ''),
    symptom: cause ? PRE_STEP_INJECT : null,
  }
  throw new RunawayStop(state.stopped.message)
}

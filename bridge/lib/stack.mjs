// Stack frames, captured only where something reads them.
//
// Cordis creates an Error on every plugin call and effect to splice call
// sites into errors it rethrows, and capturing ten frames for each is a good
// part of the host's time. When no package under test can read a stack
// (lib/packages.mjs scans them; the DSH host packages only splice the stacks
// of errors they rethrow), the bridge captures none: `Error.stackTraceLimit`
// is 0. The bridge's own seams, which find a call's caller from the stack,
// capture as many frames as Node started with (`stackHere`).
import { setting } from './patches.mjs'

/** The frames Node captures by default (--stack-trace-limit), read before any change. */
const STARTING_FRAMES = Error.stackTraceLimit

/** The stack at the caller, as `new Error().stack` there reads with Node's own limit. */
export function stackHere() {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = STARTING_FRAMES
  const holder = {}
  Error.captureStackTrace(holder, stackHere)
  Error.stackTraceLimit = limit
  return holder.stack ?? ''
}

/** Capture no frames in errors from now on (no code under test reads them). */
export function dropStackFrames() {
  setting('stack-frames', Error, 'stackTraceLimit', 0)
}

/** Code that can read a stack: a property access, a quoted name, destructuring, the V8 API. */
export const READS_STACK = /\.stack\b|['"`]stack['"`]|\bstack\s*[,}:]|stacktrace/i

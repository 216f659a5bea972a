// The official pure domain functions of dsh-schedule, callable by name for
// differential tests. Thrown input/log errors come back as values. They are
// the named exports of the schedule package under test (the official build
// has them; another package may not, and a call then comes back as thrown).
import { PACKAGES } from '../host.mjs'

const schedule = PACKAGES.schedule?.problem === undefined && PACKAGES.schedule !== undefined
  ? await import(PACKAGES.schedule.package)
  : {}

const FUNCTIONS = new Set([
  'allocateScheduleId',
  'createAfterScheduleRecord',
  'createAtScheduleRecord',
  'createEveryScheduleRecord',
  'decodeScheduleChange',
  'foldScheduleEvents',
  'renderEveryReminderBatchFraming',
  'renderReminderFraming',
  'resolveEveryOccurrence',
  'scheduleView',
])

/** Call `fn(...args)`; `{value}` on success, `{thrown: {name, code, message}}` otherwise. */
export function callDomain(fn, args) {
  if (!FUNCTIONS.has(fn)) throw new Error(`unknown domain function ${JSON.stringify(fn)}`)
  try {
    return { value: schedule[fn](...args) }
  } catch (error) {
    return {
      thrown: {
        name: error?.name ?? 'Error',
        code: error?.code ?? null,
        message: error instanceof Error ? error.message : String(error),
      },
    }
  }
}

/** Many calls of one function in one round trip (large differential tables). */
export function callDomainBatch(fn, argsList) {
  return argsList.map((args) => callDomain(fn, args))
}

/**
 * What this runtime's ICU says about `zone` (for classifying differential
 * disagreements): its canonical id and the UTC offset at each instant, as
 * `±HH:MM[:SS]`, or `{error}` when ICU rejects the zone.
 */
export function zoneInfo(zone, instants) {
  let formatter
  try {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) }
  }
  const offsets = instants.map((instant) => {
    const name = formatter.formatToParts(instant).find((part) => part.type === 'timeZoneName')
    const text = name?.value ?? 'GMT'
    return text === 'GMT' ? '+00:00' : text.slice(3)
  })
  return { resolved: formatter.resolvedOptions().timeZone, offsets }
}

/** The runtime's ICU and tz database versions. */
export function runtimeVersions() {
  return { node: process.version, icu: process.versions.icu, tz: process.versions.tz }
}

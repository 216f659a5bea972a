// The two-line reading as the README describes it, shared by the witnesses.
// Written from the README; no code of the official package.

const SOURCE = Object.freeze({ kind: 'plugin', plugin: 'time-context' })
const MODEL_VISIBLE = new Set(['user/message', 'assistant/message', 'tool/result'])

export function source() {
  return { kind: SOURCE.kind, plugin: SOURCE.plugin }
}

export function isReading(event) {
  const src = event.type === 'user/message' ? event.data?.source : undefined
  return src?.kind === SOURCE.kind && src?.plugin === SOURCE.plugin
}

// "An explicit timeZone must be an IANA identifier and is validated when the
// plugin loads"; omitted: the process zone, resolved once.
export function zoneOf(config) {
  const refresh = config?.refreshIntervalMs
  if (refresh !== undefined && (!Number.isSafeInteger(refresh) || refresh < 0)) {
    throw new TypeError(`refreshIntervalMs must be a non-negative safe integer, got ${String(refresh)}`)
  }
  const parts = new Intl.DateTimeFormat('en-US', {
    ...(config?.timeZone === undefined ? {} : { timeZone: config.timeZone }),
    year: 'numeric', month: '2-digit', day: '2-digit',
    hour: '2-digit', minute: '2-digit', second: '2-digit',
    hourCycle: 'h23', timeZoneName: 'longOffset',
  })
  return { format: parts, label: config?.timeZone ?? parts.resolvedOptions().timeZone }
}

function timestamp(now, zone) {
  const whole = Math.floor(now / 1000) * 1000
  const got = Object.fromEntries(zone.format.formatToParts(new Date(whole)).map((p) => [p.type, p.value]))
  const name = got.timeZoneName // "GMT", "GMT+05:30", "GMT-03:30"
  const offset = name === 'GMT' ? '+00:00' : name.slice(3)
  return `${got.year}-${got.month}-${got.day}T${got.hour}:${got.minute}:${got.second}${offset}[${zone.label}]`
}

function duration(ms) {
  let rest = Math.floor(Math.max(ms, 0) / 1000)
  const parts = []
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['m', 60]]) {
    const count = Math.floor(rest / size)
    rest -= count * size
    if (count) parts.push(`${count}${unit}`)
  }
  parts.push(`${rest}s`)
  return parts.join(' ')
}

// Step 1: the latest preceding model-visible message; later steps: the
// previous reading of the same turn. Raw durable events, their own times.
// A message the host has claimed for this step but not yet logged (the
// prompt that opened the turn) precedes the step too: its durable time will
// be its append time, not earlier than now, so it measures as zero.
function baseline(events, turn, step, now, claimed) {
  if (step === 1 && claimed.length > 0) return now
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]
    if (step === 1) {
      if (MODEL_VISIBLE.has(event.type)) return event.time
    } else {
      if (event.type === 'turn/start' && event.data?.turn === turn) return undefined
      if (isReading(event)) return event.time
    }
  }
  return undefined
}

// Whether a reading is due: none yet, the clock moved back, or the interval passed.
export function due(events, now, refresh) {
  if (!refresh) return true
  for (let i = events.length - 1; i >= 0; i--) {
    if (isReading(events[i])) {
      const last = events[i].time
      return now < last || now - last >= refresh
    }
  }
  return true
}

export function readingText(events, now, turn, step, zone, claimed = []) {
  const since = baseline(events, turn, step, now, claimed)
  const elapsed = since === undefined ? 'unavailable' : duration(now - since)
  const label = step === 1 ? 'model-visible message' : 'step context'
  return `Time sampled while preparing turn ${turn}, step ${step}: ${timestamp(now, zone)}\n` +
    `Elapsed since the preceding ${label}: ${elapsed}.`
}

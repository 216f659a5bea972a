// Cold fold of the official build: the same dispatch-heavy log as
// benchmarks/run.py's every_log(N), folded once by the exported
// foldScheduleEvents of @deepseek-ai/dsh-schedule (a black box: only called).
// Prints one JSON line: wall and CPU seconds, peak RSS after building the log and after folding.
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import path from 'node:path'
import { readFileSync } from 'node:fs'

// Peak RSS from /proc (VmHWM): resourceUsage().maxRSS survives fork and exec on
// Linux, so it would report the parent's peak.
const hwmKib = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1])

const here = path.dirname(fileURLToPath(import.meta.url))
const bridge = process.env.DSH_BRIDGE_DIR ?? path.join(here, '..', 'bridge')
const require = createRequire(path.join(bridge, 'package.json'))
const schedule = await import(pathToFileURL(require.resolve('@deepseek-ai/dsh-schedule')).href)

const START_MS = 1_767_225_600_000
const EVERY_S = 300
const LIVE_RECORDS = 4

function everyLog(size) {
  const dispatches = Math.max(size - LIVE_RECORDS - 1, 0)
  const created = START_MS - (dispatches + 1) * EVERY_S * 1000 + 1
  const events = []
  const add = (time, data) => events.push({ type: 'schedule/change', seq: events.length, time, data })
  const iso = (ms) => new Date(ms).toISOString()
  for (let n = 0; n < LIVE_RECORDS; n++) {
    add(created, { version: 1, operation: 'create', schedule: {
      id: `schedule-${n + 1}`, kind: 'after', prompt: `later ${n}`,
      afterSeconds: 10 ** 8, scheduledAt: iso(created + 10 ** 11) } })
  }
  add(created, { version: 1, operation: 'create', schedule: {
    id: `schedule-${LIVE_RECORDS + 1}`, kind: 'every', prompt: 'tick',
    everySeconds: EVERY_S, scheduledAt: iso(created + EVERY_S * 1000) } })
  for (let k = 1; k <= dispatches; k++) {
    const at = created + k * EVERY_S * 1000
    add(at, { version: 1, operation: 'dispatch', id: `schedule-${LIVE_RECORDS + 1}`, acceptedAt: iso(at) })
  }
  return events.slice(0, size)
}

const baseKib = hwmKib()
const events = everyLog(Number(process.argv[2]))
const logKib = hwmKib()
const cpu = process.cpuUsage()
const began = process.hrtime.bigint()
const folded = schedule.foldScheduleEvents(events)
const wall = Number(process.hrtime.bigint() - began) / 1e9
const used = process.cpuUsage(cpu)
console.log(JSON.stringify({
  wall,
  cpu: (used.user + used.system) / 1e6,
  base_kib: baseKib,
  log_kib: logKib,
  peak_kib: hwmKib(),
  active: folded.active?.length ?? null,
}))

// JSON-lines server: one request per stdin line, one reply per stdout line.
// Request {id, op, faults?, ...args}; reply {id, ok, result | error, sync}.
// `sync` carries what changed on the host side (flush records, warnings,
// errors, watcher calls, fault counters) so the Python driver mirrors it.
// Console output goes to stderr: stdout is the protocol channel only.
import './lib/polyfill.mjs'
import './lib/intl-cache.mjs'
import './lib/source-text.mjs'
import { createInterface } from 'node:readline'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { testOps, watchParent } from './lib/lifecycle.mjs'
import { appliedPatches } from './lib/patches.mjs'
import { noteIdleResources, uncleanReason } from './lib/recycle.mjs'
import { dropStackFrames } from './lib/stack.mjs'

// The protocol both halves read (protocol.json): an op or parameter it does
// not declare is refused, and its version is exchanged in the greeting and `hello`.
const PROTOCOL = JSON.parse(readFileSync(new URL('./protocol.json', import.meta.url), 'utf8'))
const ENVELOPE = new Set(Object.keys(PROTOCOL.request.envelope))
const DECLARED = new Map(
  Object.entries(PROTOCOL.ops).map(([name, spec]) => [name, new Set(Object.keys(spec.params ?? {}))]),
)

const protocolOut = process.stdout.write.bind(process.stdout)
watchParent()
for (const method of ['log', 'info', 'debug', 'warn', 'error', 'trace']) {
  console[method] = (...args) => process.stderr.write(`${args.map(String).join(' ')}\n`)
}

/** Import a module of the host; a failure (a patch whose target this DSH host
 *  lacks, lib/patches.mjs) is the greeting, so the driver says it once. */
async function load(path) {
  try {
    return await import(path)
  } catch (error) {
    const failure = { kind: error?.kind ?? 'NodeError', message: error instanceof Error ? error.message : String(error) }
    protocolOut(`${JSON.stringify({ ready: false, protocol: PROTOCOL.protocol, error: failure })}\n`)
    process.stderr.write(`${error?.stack ?? failure.message}\n`)
    process.exit(1)
  }
}

// The fake clock must be installed before the official packages load.
const { clock, advance, settle, setWall, dropTimers } = await load('./lib/clock.mjs')
const { Host, BridgeError, PLUGINS, PACKAGES, SHAPES, STACK_READERS, workWithoutHost } = await load('./host.mjs')
const { callDomain, callDomainBatch, zoneInfo, runtimeVersions } = await load('./lib/domain.mjs')
const { growthSync, resetGrowth, runawayOf, startRequest } = await load('./lib/growth.mjs')

// Everything is loaded: errors from now on capture no frames unless code under
// test can read them (lib/stack.mjs) or whoever debugs the bridge wants them.
if (STACK_READERS.length === 0 && process.env.DSH_BRIDGE_KEEP_STACKS !== '1') dropStackFrames()

const require = createRequire(import.meta.url)
// 'dsh-schedule' and 'dsh-time-context' are the versions of the packages under test.
const versions = Object.fromEntries(
  [
    ['dsh-agent-loop', '@deepseek-ai/dsh-agent-loop/package.json'],
    ['cordis', '@deepseek-ai/cordis/package.json'],
    ['fake-timers', '@sinonjs/fake-timers/package.json'],
  ].map(([key, path]) => [key, require(path).version]),
)
for (const [role, report] of Object.entries(PACKAGES)) versions[`dsh-${role}`] = report.version

let host = null
const cursor = { flushes: 0, warnings: 0, errors: 0, watcherCalls: 0, symptoms: 0 }

function requireHost() {
  if (host === null) throw new BridgeError('RuntimeError', 'no host: send reset first')
  return host
}

function syncPayload() {
  if (host === null) return { now: Date.now() }
  const sync = {
    ...growthSync(cursor),
    now: Date.now(),
    flushes: host.flushes.slice(cursor.flushes),
    warnings: host.warnings.slice(cursor.warnings),
    errors: host.errors.slice(cursor.errors),
    watcher_calls: host.watcherCalls.slice(cursor.watcherCalls),
    hung: host.faults.hung.length,
  }
  const appended = mirroredAppends(host)
  if (appended !== null) sync.appended = appended
  cursor.flushes = host.flushes.length
  cursor.warnings = host.warnings.length
  cursor.errors = host.errors.length
  cursor.watcherCalls = host.watcherCalls.length
  if (host.faults.dirty) {
    sync.fault_seen = host.faults.seen()
    sync.fault_woken = host.faults.takeWoken()
    host.faults.dirty = false
  }
  return sync
}

/** The events appended to each mirrored log since the driver last had it
 *  (`events` with `mirror`), by agent handle; null when none grew. A log only
 *  grows while a request runs, so every reply brings the driver's copy up to date. */
function mirroredAppends(h) {
  let appended = null
  for (const record of h.records.values()) {
    if (record.mirrored === undefined) continue
    const { events } = record.agent.session
    if (events.length <= record.mirrored) continue
    appended ??= {}
    appended[record.handleId] = events.slice(record.mirrored)
    record.mirrored = events.length
  }
  return appended
}

function agentInfo(record) {
  return {
    handle: record.handleId,
    id: record.agent.id,
    session_id: record.agent.session.id,
    is_root: record.isRoot,
    status: record.agent.status,
    is_live: record.live,
  }
}

const ops = {
  async hello({ protocol }) {
    if (protocol !== PROTOCOL.protocol) {
      throw new BridgeError(
        'ProtocolError',
        `this bridge speaks protocol ${PROTOCOL.protocol} (protocol.json), the driver ${JSON.stringify(protocol)}`,
      )
    }
    return { protocol: PROTOCOL.protocol, node: process.version, versions, plugins: Object.keys(PLUGINS) }
  },
  async reset({ start_ms, withhold, jsonl_root }) {
    host?.close()
    host = null
    dropTimers()
    setWall(start_ms)
    resetGrowth()
    host = new Host(withhold ?? [], jsonl_root ?? null)
    Object.assign(cursor, { flushes: 0, warnings: 0, errors: 0, watcherCalls: 0, symptoms: 0 })
    await host.boot()
    return { now: Date.now() }
  },
  async close() {
    host?.close()
    dropTimers()
    host = null
    return null
  },
  // After a runaway: close the host and say whether nothing of its stopped
  // work can reach the next one (lib/recycle.mjs); if not, the driver retires us.
  async recycle() {
    host?.close()
    dropTimers()
    host = null
    // The seams count nothing for a closed host: the stop has done its work.
    resetGrowth()
    const reason = await uncleanReason(workWithoutHost, () => clock.countTimers())
    return { clean: reason === null, reason }
  },
  async load_plugin({ name, config }) {
    await requireHost().loadPlugin(name, config)
    return null
  },
  async unload_plugin({ name }) {
    await requireHost().unloadPlugin(name)
    return null
  },
  async set_wall({ ms }) {
    requireHost()
    setWall(ms)
    await settle()
    return null
  },
  async advance({ ms }) {
    requireHost()
    await advance(ms)
    return null
  },
  async settle() {
    await settle()
    return null
  },
  async create_agent({ session_id, seed, parent, seed_length, gone_when_announced }) {
    return agentInfo(
      await requireHost().createAgent({
        sessionId: session_id,
        seed,
        parent,
        seedLength: seed_length,
        goneWhenAnnounced: gone_when_announced === true,
      }),
    )
  },
  async fork({ agent }) {
    return agentInfo(await requireHost().fork(agent))
  },
  async resume({ session_id }) {
    return agentInfo(await requireHost().resume(session_id))
  },
  async crash() {
    await requireHost().crash()
    return null
  },
  async durable_events({ session_id }) {
    return requireHost().store.load(session_id).events
  },
  async add_watcher({ mode, only, order }) {
    return requireHost().addWatcher(mode, only, order ?? 'last')
  },
  async release_hung({ outcome, count }) {
    const released = requireHost().faults.releaseHung(outcome ?? 'durable', count ?? Infinity)
    await settle()
    return released
  },
  async flush_session({ agent }) {
    return requireHost().flushSession(agent)
  },
  async start_tool({ agent, name, arguments: args, aborted }) {
    return requireHost().startTool(agent, name, args, aborted === true)
  },
  async start_pre_step({ agent, turn, step, aborted }) {
    return requireHost().startPreStep(agent, turn, step, aborted === true)
  },
  async start_dispose({ agent }) {
    return requireHost().startDispose(agent)
  },
  async hold_maintenance({ agent }) {
    return requireHost().holdMaintenance(agent)
  },
  async pending({ pending }) {
    return requireHost().pendingInfo(pending).info()
  },
  async abort_pending({ pending }) {
    await requireHost().abortPending(pending)
    return null
  },
  async release_pending({ pending }) {
    await requireHost().releasePending(pending)
    return null
  },
  async start_trace() {
    const h = requireHost()
    h.tracing = true
    h.traceEntries = []
    return null
  },
  async trace() {
    return requireHost().traceEntries
  },
  async export_shape({ plugin }) {
    const shape = SHAPES[plugin]
    if (shape === undefined) throw new BridgeError('UnknownPluginError', plugin, { available: Object.keys(SHAPES).sort() })
    return shape
  },
  async preregister_tool({ name }) {
    const h = requireHost()
    if (!h.preregistered.includes(name)) h.preregistered.push(name)
    return null
  },
  async tool_registrations({ session_id }) {
    return requireHost().toolRegistrations(session_id)
  },
  async counters({ agent }) {
    return requireHost().counters(agent)
  },
  async act_inside({ agent, point, actions }) {
    requireHost().actInside(agent, point, actions)
    return null
  },
  async reject_when_idle({ agent, message }) {
    return requireHost().rejectWhenIdle(agent, message)
  },
  async emit_idle_status({ agent }) {
    await requireHost().emitIdleStatus(agent)
    return null
  },
  async queued_followups({ agent }) {
    // The official agent's next-turn inbox: what no turn has taken yet.
    return requireHost().record(agent).agent.inbox.nextTurn.map((message) =>
      (message.content ?? []).filter((block) => block.type === 'text').map((block) => block.text).join(''),
    )
  },
  async hold_busy({ agent }) {
    await requireHost().holdBusy(agent)
    return null
  },
  async release_busy({ agent }) {
    await requireHost().releaseBusy(agent)
    return null
  },
  async hold_turns({ agent, held }) {
    await requireHost().holdTurns(agent, held === true)
    return null
  },
  async describe_tool_call({ agent, name, arguments: args }) {
    return requireHost().describeToolCall(agent, name, args)
  },
  async call_tool_as({ agent, as_agent, name, arguments: args }) {
    return requireHost().callToolAs(agent, as_agent, name, args)
  },
  async agent_info({ agent }) {
    return agentInfo(requireHost().record(agent))
  },
  async events({ agent, start = 0, mirror }) {
    const record = requireHost().record(agent)
    const { events } = record.agent.session
    // From now on the driver holds this log up to here and keeps its copy
    // current from each reply's sync.appended (false: it stops keeping one).
    if (mirror === true) record.mirrored = events.length
    else if (mirror === false) record.mirrored = undefined
    return events.slice(start)
  },
  async history({ agent }) {
    return requireHost().record(agent).historyEvents()
  },
  async header({ agent }) {
    return requireHost().record(agent).header()
  },
  async tool_specs({ agent }) {
    const h = requireHost()
    return h.proc.ctx.tools.schemas(h.record(agent).agent)
  },
  async tool_output_schemas({ agent }) {
    const h = requireHost()
    const owner = h.record(agent).agent
    const schemas = {}
    for (const { name } of h.proc.ctx.tools.schemas(owner)) {
      schemas[name] = h.proc.ctx.tools.get(name, owner)?.output?.schema ?? null
    }
    return schemas
  },
  async call_tool({ agent, name, arguments: args, aborted }) {
    return requireHost().callTool(agent, name, args, aborted === true)
  },
  async prompt({ agent, text }) {
    await requireHost().prompt(agent, text)
    return null
  },
  async script({ agent, replies }) {
    requireHost().record(agent).script.push(...replies)
    return null
  },
  async requests({ agent }) {
    return requireHost().record(agent).requests
  },
  async compact({ agent, seqs, summary, plugin }) {
    await requireHost().compact(agent, seqs, summary, plugin ?? 'compact')
    return null
  },
  async append_event({ agent, type, data, envelope }) {
    return requireHost().appendEvent(agent, type, data, envelope ?? null)
  },
  async abort_next_pre_step({ agent }) {
    requireHost().record(agent).abortNext = true
    return null
  },
  async dispose({ agent }) {
    await requireHost().dispose(agent)
    return null
  },
  async domain({ fn, args }) {
    return callDomain(fn, args)
  },
  async domain_batch({ fn, args_list }) {
    return callDomainBatch(fn, args_list)
  },
  async zone_info({ zone, instants }) {
    return zoneInfo(zone, instants)
  },
  async runtime() {
    return { ...runtimeVersions(), stack_frames: Error.stackTraceLimit, stack_readers: STACK_READERS }
  },
  async patches() {
    return appliedPatches()
  },
  ...testOps(protocolOut, () => host),
}

// Every handler is declared and every declared op has a handler (test ops
// only while DSH_BRIDGE_TEST_OPS=1): a bridge out of step with its file stops here.
for (const name of Object.keys(ops)) {
  if (!DECLARED.has(name)) throw new Error(`bridge op '${name}' is not declared in protocol.json`)
}
for (const [name, spec] of Object.entries(PROTOCOL.ops)) {
  if (ops[name] === undefined && spec.test_only !== true) throw new Error(`protocol.json declares '${name}', which server.mjs does not handle`)
}

/** Why `request` is not a declared request (null when it is). */
function undeclared(op, request) {
  const params = DECLARED.get(op)
  if (params === undefined || ops[op] === undefined) return `op ${JSON.stringify(op)} is not declared in protocol.json`
  const unknown = Object.keys(request).filter((key) => !params.has(key) && !ENVELOPE.has(key))
  if (unknown.length > 0) return `op ${JSON.stringify(op)} declares no parameter ${unknown.map((k) => JSON.stringify(k)).join(', ')}`
  return null
}

function errorPayload(error) {
  if (error instanceof BridgeError) {
    const { kind, message, ...extra } = error
    return { kind, message, ...extra }
  }
  const payload = { kind: 'NodeError', name: error?.name ?? 'Error', message: describe(error) }
  if (error?.code !== undefined) payload.code = error.code
  return payload
}

function runawayPayload(stopped) {
  return { kind: 'RunawayError', message: stopped.message, symptom: stopped.symptom }
}

function describe(error) {
  return error instanceof Error ? error.message : String(error)
}

// Python sends non-finite floats as {"$number": "NaN" | "Infinity" | "-Infinity"}.
function reviveNumbers(_key, value) {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value)
    if (keys.length === 1 && keys[0] === '$number') return Number(value.$number)
  }
  return value
}

function reply(message) {
  protocolOut(`${JSON.stringify(message)}\n`)
}

async function handle(line) {
  let request
  try {
    // A reviver walks the value recursively, so only a line that needs one
    // gets one: a deep value (a model's nested arguments) still parses.
    request = line.includes('"$number"') ? JSON.parse(line, reviveNumbers) : JSON.parse(line)
  } catch (error) {
    reply({ id: null, ok: false, error: { kind: 'ProtocolError', message: describe(error) } })
    return
  }
  const { id, op, faults, tz, growth, growth_budget, ...args } = request
  const run = ops[op]
  startRequest(growth ?? null, growth_budget ?? null)
  try {
    const refused = undeclared(op, request)
    if (refused !== null) throw new BridgeError('ProtocolError', refused)
    if (faults !== undefined && host !== null) host.faults.load(faults)
    // The driver's process zone (Python's TZ); Node re-reads TZ on assignment.
    if (tz !== undefined) {
      if (tz === null) delete process.env.TZ
      else process.env.TZ = tz
    }
    const result = await run(args)
    if (runawayOf() !== null) throw runawayOf()
    reply({ id, ok: true, result, sync: syncPayload() })
  } catch (error) {
    // A runaway is the reply, whatever the stopped work threw on its way out.
    const stopped = runawayOf()
    const payload = stopped === null ? errorPayload(error) : runawayPayload(stopped)
    reply({ id, ok: false, error: payload, sync: syncPayload() })
  }
}

// Requests are handled strictly one at a time, in arrival order.
let queue = Promise.resolve()
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })
lines.on('line', (line) => {
  if (line.trim() === '') return
  queue = queue.then(() => handle(line))
})
// stdin closes when the parent exits or is done with us: nobody will read a
// reply any more, so a request still running is abandoned, not awaited.
lines.on('close', () => process.exit(0))

noteIdleResources()
reply({ ready: true, protocol: PROTOCOL.protocol, node: process.version, versions, packages: PACKAGES, fake_now: clock.now })

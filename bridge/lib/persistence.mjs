// In-memory durable storage with a fault plan. The sessions service is the
// official SessionStore with `flush` wrapped by the host: the wrapper records
// every flush call, consults the fault plan and only then lets the real
// `session/flush` dispatch run (whose one listener copies the log into the
// durable store). What the store holds survives a crash of the process.
import SessionStore, { interruptedTurnClosers } from '@deepseek-ai/dsh-session'
import { SessionPersistence } from '@deepseek-ai/dsh-session-persistence'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { BridgeError } from './errors.mjs'

export class DurableStore {
  constructor() {
    this.sessions = new Map()
  }

  // Official session headers and events are deep-frozen and the events
  // snapshot array never grows, so keeping references is a true snapshot.
  persist(session) {
    this.sessions.set(session.id, { header: session.header, events: session.events })
  }

  has(id) {
    return this.sessions.has(id)
  }

  load(id) {
    const stored = this.sessions.get(id)
    if (stored === undefined) {
      const known = [...this.sessions.keys()].sort().join(', ') || 'none'
      throw new BridgeError('KeyError', `no durable session '${id}' (durable sessions: ${known})`)
    }
    return structuredClone(stored)
  }
}

/**
 * What the official JSONL backend made durable under `root`, read straight
 * from its session files (`<root>/_no-cwd/<id>/session.jsonl`, uncompressed):
 * the durable log a test compares, as the in-memory store gives it. A torn
 * last line (a crash mid-write) is not durable and is left out.
 */
export class JsonlFiles {
  constructor(root) {
    this.root = root
  }

  path(id) {
    return join(this.root, '_no-cwd', id, 'session.jsonl')
  }

  load(id) {
    let text
    try {
      text = readFileSync(this.path(id), 'utf8')
    } catch (error) {
      if (error?.code !== 'ENOENT') throw error
      throw new BridgeError('KeyError', `no durable session '${id}' under ${this.root}`)
    }
    const lines = text.split('\n')
    lines.pop() // after the last newline: empty, or a torn write
    const parsed = []
    for (const [index, line] of lines.entries()) {
      try {
        parsed.push(JSON.parse(line))
      } catch (error) {
        if (index === lines.length - 1) break // a torn last line
        throw new BridgeError('ValueError', `${this.path(id)}:${index + 1}: not a JSON line`)
      }
    }
    const [header, ...events] = parsed
    return { header, events }
  }
}

/** The sessions service of one host process: flush goes through the fault plan. */
export function hostSessionStore(proc) {
  return class HostSessionStore extends SessionStore {
    async flush(session) {
      // A real flush is asynchronous I/O: let other work interleave first.
      await Promise.resolve()
      const isLive = () => proc.alive && this.get(session.id) === session
      let outcome = isLive() ? proc.faults.nextFlushOutcome() : 'detached'
      proc.host.recordFlush(session.id, outcome, Date.now(), session.events.length)
      if (outcome === 'hang') {
        const released = await proc.faults.park()
        outcome = isLive() ? released : 'detached'
      }
      if (outcome === 'durable') {
        proc.flushesInFlight += 1
        try {
          return await super.flush(session)
        } finally {
          proc.flushesInFlight -= 1
        }
      }
      if (outcome === 'falsy') return false
      if (outcome === 'rejected') throw new Error('a session/flush listener failed')
      throw new Error(`session "${session.id}" is not live in this store`)
    }
  }
}

/**
 * `ctx.sessionPersistence` over the durable store. Flushes persist the whole
 * live log; `load` serves resume, closing an interrupted final turn the way
 * the official backends do.
 */
export function memoryPersistence(proc) {
  return class MemoryPersistence extends SessionPersistence {
    static inject = ['sessions']
    supportsRawArtifacts = false

    constructor(ctx) {
      super(ctx)
      ctx.on('session/flush', (session) => {
        if (!proc.alive) throw new Error(`session "${session.id}" is not live in this store`)
        proc.host.store.persist(session)
      })
    }

    locate() {
      return undefined
    }

    async create() {}

    async append() {}

    async load(id) {
      const { header, events } = proc.host.store.load(id)
      const closers = interruptedTurnClosers(events)
      return { meta: header, events: [...events, ...closers] }
    }

    async inspect(id) {
      return this.load(id)
    }

    async readFrom(id, fromSeq) {
      const { meta, events } = await this.load(id)
      return { meta, events: events.slice(fromSeq) }
    }

    async list() {
      return [...proc.host.store.sessions.values()].map((s) => structuredClone(s.header))
    }

    async listSnapshots() {
      return []
    }
  }
}

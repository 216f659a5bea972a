// The bridge process's lifetime is its parent's: it must never outlive the
// Python process that drives it, even while a request is running.
//
// Two exits cover it. A closed stdin (the parent exited or closed the pipe) is
// seen by the main thread when it is free; a parent that died while the main
// thread is busy (a plugin spinning synchronously, a request that never
// settles) is seen by a watchdog thread that polls the parent pid and kills
// this process when it changes (the orphan was re-parented).
import { Worker } from 'node:worker_threads'

const POLL_MS = 200
// Taken before the fake clock is installed (this module loads first).
const realSetTimeout = globalThis.setTimeout
const realSetImmediate = globalThis.setImmediate

export function watchParent() {
  const source = `
    const { workerData } = require('node:worker_threads')
    setInterval(() => {
      if (process.ppid !== workerData.parent) process.kill(workerData.pid, 'SIGKILL')
    }, ${POLL_MS})
  `
  const watchdog = new Worker(source, {
    eval: true,
    workerData: { parent: process.ppid, pid: process.pid },
  })
  watchdog.unref()
}

// Operations the bridge's own reliability tests use to make the channel and
// the process misbehave. Only present when DSH_BRIDGE_TEST_OPS=1.
export function testOps(protocolOut, currentHost) {
  if (process.env.DSH_BRIDGE_TEST_OPS !== '1') return {}
  return {
    // Leave work of this host that outlives it: `timer`, a real timer that
    // never fires in a test's time; `append`, real macrotasks that append to
    // the agent's log once its host has closed (lib/recycle.mjs must see both).
    async _test_linger({ agent, what }) {
      const host = currentHost()
      const { session } = host.record(agent).agent
      if (what === 'timer') {
        realSetTimeout(() => {}, 3_600_000)
        return null
      }
      const again = () => {
        if (host.proc.alive) realSetImmediate(again)
        else {
          try {
            session.append('custom/linger', {})
          } catch {
            // counted by the append seam either way
          }
        }
      }
      realSetImmediate(again)
      return null
    },
    // Write `lines` raw to the protocol channel, then reply normally unless
    // `reply` is false (the raw lines then stand in for the reply).
    async _test_raw({ lines, reply }) {
      for (const line of lines) protocolOut(`${line}\n`)
      if (reply === false) return new Promise(() => {})
      return null
    },
    // Announce, then keep the main thread busy forever (a spinning plugin).
    async _test_spin() {
      protocolOut('{"spinning":true}\n')
      for (;;) {}
    },
    // Announce, then never settle (a request waiting for what never comes).
    async _test_hang() {
      protocolOut('{"hanging":true}\n')
      return new Promise(() => {})
    },
  }
}

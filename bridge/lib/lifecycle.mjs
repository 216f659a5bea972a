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
export function testOps(protocolOut) {
  if (process.env.DSH_BRIDGE_TEST_OPS !== '1') return {}
  return {
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

// The scripted model: one adapter for provider "bridge"; the request's
// sessionId picks the agent whose script answers. Each reply is text (the
// turn completes) or tool calls; `thinkingMs` spends virtual time first.
import { LlmAdapter, CallId } from '@deepseek-ai/dsh-llm'

// What a step sent, recorded in O(1) amortised: the surface's node seqs are
// mirrored into an array that is only ever appended to, so a step keeps just
// (mirror, length). A surface edit other than an append (a compaction's
// replace) starts a new mirror, copied once. The events are looked up when
// the requests are serialised (toJSON), not at every step.
class SentHistory {
  constructor(mirror, length, session) {
    this.mirror = mirror
    this.length = length
    this.session = session
  }

  toJSON() {
    // The raw log is append-only: seqs recorded then name the same events now.
    const events = this.session.events
    return this.mirror.slice(0, this.length).map((seq) => events[seq])
  }
}

function recordRequest(record) {
  const { session } = record.agent
  const events = session.events
  const nodes = session.surface.nodes
  let sent = record.sentSurface
  if (sent === undefined || sent.session !== session || events.length < sent.synced) {
    sent = { session, mirror: [...nodes], synced: events.length }
  } else {
    let replaced = false
    for (let index = sent.synced; index < events.length; index++) {
      const op = events[index].surfaceOp
      if (op !== undefined && op !== 'append') replaced = true
    }
    if (replaced || nodes.length < sent.mirror.length) {
      sent.mirror = [...nodes]
    } else {
      for (let index = sent.mirror.length; index < nodes.length; index++) sent.mirror.push(nodes[index])
    }
    sent.synced = events.length
  }
  record.sentSurface = sent
  record.requests.push(new SentHistory(sent.mirror, nodes.length, session))
}

export class ScriptedAdapter extends LlmAdapter {
  constructor(host) {
    super()
    this.host = host
    this.callSeq = 0
  }

  async *stream(options) {
    const record = this.host.agentForSession(options.sessionId)
    let reply = { text: 'ok' }
    if (record !== undefined) {
      recordRequest(record)
      if (record.script.length > 0) reply = record.script.shift()
    }
    if (reply.thinkingMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, reply.thinkingMs))
    }
    if (reply.toolCalls !== undefined && reply.toolCalls.length > 0) {
      for (const [index, call] of reply.toolCalls.entries()) {
        const id = CallId(`call-${++this.callSeq}`)
        // The driver sends the text a model would (any depth); older callers an object.
        const args = call.argumentsJson ?? JSON.stringify(call.arguments)
        yield { type: 'block-start', index, blockType: 'tool-call' }
        yield { type: 'tool-call-delta', index, id, name: call.name, argumentsDelta: args }
        yield {
          type: 'block-end',
          index,
          block: { type: 'tool-call', id, name: call.name, arguments: args },
        }
      }
      yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } }
      yield { type: 'finish', reason: { kind: 'tool-calls' } }
      return
    }
    const text = reply.text ?? 'ok'
    yield { type: 'block-start', index: 0, blockType: 'text' }
    yield { type: 'text-delta', index: 0, text }
    yield { type: 'block-end', index: 0, block: { type: 'text', text } }
    yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } }
    yield { type: 'finish', reason: { kind: 'stop' } }
  }
}

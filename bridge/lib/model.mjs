// The scripted model: one adapter for provider "bridge"; the request's
// sessionId picks the agent whose script answers. Each reply is text (the
// turn completes) or tool calls; `thinkingMs` spends virtual time first.
import { LlmAdapter, CallId } from '@deepseek-ai/dsh-llm'

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
      record.requests.push(record.historyEvents())
      if (record.script.length > 0) reply = record.script.shift()
    }
    if (reply.thinkingMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, reply.thinkingMs))
    }
    if (reply.toolCalls !== undefined && reply.toolCalls.length > 0) {
      for (const [index, call] of reply.toolCalls.entries()) {
        const id = CallId(`call-${++this.callSeq}`)
        const args = JSON.stringify(call.arguments)
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

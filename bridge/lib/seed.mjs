// Seeds arrive in the driver's event shape (the host contract). The official
// session validates replayed message events more strictly: messages carry a
// role and an id, assistant and tool messages are wrapped in `message`, and
// model-visible events carry a surface marker. Events already in the official
// shape pass through untouched; contract-shaped ones are completed.
import { isSurfaceEligibleType } from '@deepseek-ai/dsh-session'

let seedIds = 0

function seedId() {
  return `00000000-0000-4000-9000-${String(++seedIds).padStart(12, '0')}`
}

function userMessage(data) {
  return { ...data, role: 'user', id: seedId() }
}

function assistantMessage(data) {
  const { turn, step, content, ...rest } = data
  return {
    ...rest,
    turn,
    step,
    message: {
      role: 'assistant',
      content,
      source: { kind: 'model', provider: 'bridge', model: 'scripted' },
      id: seedId(),
    },
  }
}

function toolResult(data) {
  const { turn, step, callId, content, isError, ...rest } = data
  return {
    ...rest,
    turn,
    step,
    message: {
      role: 'user',
      source: { kind: 'tool', callId },
      content: [{ type: 'tool-result', toolCallId: callId, content, isError: isError === true }],
      id: seedId(),
    },
  }
}

function completeData(type, data) {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data
  if (type === 'user/message' && typeof data.id !== 'string') return userMessage(data)
  if (type === 'assistant/message' && data.message === undefined) return assistantMessage(data)
  if (type === 'tool/result' && data.message === undefined) return toolResult(data)
  return data
}

/** The seed in the official replay shape (see the module comment). */
export function toOfficialSeed(events) {
  return events.map((event) => {
    const completed = { ...event, data: completeData(event.type, event.data) }
    if (isSurfaceEligibleType(event.type) && completed.surfaceOp === undefined) {
      completed.surfaceOp = 'append'
    }
    return completed
  })
}

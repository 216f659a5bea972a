// An example third-party dsh-schedule plugin. It depends on the official
// package and re-exports its Cordis plugin unchanged, except for one
// deliberate deviation from the README: schedule_delete answers an unknown or
// finished id with code "not_found" instead of "schedule_not_found".
import * as upstream from '@deepseek-ai/dsh-schedule'
import { ToolRuntime } from '@deepseek-ai/dsh-tools'

export const name = upstream.name
export const inject = upstream.inject
export const apply = upstream.apply

const FROM = 'schedule_not_found'
const TO = 'not_found'

function renamed(value) {
  return JSON.parse(JSON.stringify(value).replaceAll(`"${FROM}"`, `"${TO}"`))
}

// The official plugin registers schedule_delete on each agent's tool scope;
// the wrapper renames the code in its results and in its declared output schema.
const register = ToolRuntime.prototype.register
ToolRuntime.prototype.register = function registerRenamed(definition) {
  if (definition?.name !== 'schedule_delete') return register.call(this, definition)
  const { execute } = definition
  return register.call(this, {
    ...definition,
    output: { ...definition.output, schema: renamed(definition.output.schema) },
    async execute(args, exec) {
      const value = await execute.call(definition, args, exec)
      return value !== null && typeof value === 'object' && value.code === FROM ? { ...value, code: TO } : value
    },
  })
}

// A record of every tool registration made through an agent's context, for
// driver introspection (tool_registrations): refused ones included, and
// whether the plugin called the disposer it got back. Imported by host.mjs
// before the plugin packages load, so this is the innermost wrapper of
// `register`: a plugin package that wraps `register` itself (a third-party
// wrapper of the official plugin) is recorded with the definition the
// registry finally holds.
import ToolRuntime from '@deepseek-ai/dsh-tools'
import { patch } from './patches.mjs'

/** Marks a tool the host registered itself (preregister_tool). */
export const HOST_TOOL = Symbol('host tool')

let journalFor = () => null

/** `journal(agent)` returns the array to record that agent's registrations in, or null. */
export function setToolJournal(journal) {
  journalFor = journal
}

patch('tool-journal', ToolRuntime.prototype, 'register', (originalRegister) => function registerJournaled(definition) {
  const agent = this.ctx.agent
  const journal = agent === undefined ? null : journalFor(agent)
  if (journal === null) return originalRegister.call(this, definition)
  const entry = {
    name: definition?.name,
    output_schema: definition?.output?.schema ?? null,
    host_tool: definition?.[HOST_TOOL] === true,
    agent,
    definition,
    refused: false,
    disposed: false,
  }
  journal.push(entry)
  let dispose
  try {
    dispose = originalRegister.call(this, definition)
  } catch (error) {
    entry.refused = true
    throw error
  }
  return function disposeJournaled(...args) {
    entry.disposed = true
    return dispose.apply(this, args)
  }
})

/** A host tool `name`: takes any object, answers null. */
export function hostTool(name) {
  return {
    [HOST_TOOL]: true,
    name,
    description: 'A tool the host registered before any plugin.',
    parameters: { type: 'object' },
    output: { schema: { type: 'null' }, render: () => [{ type: 'text', text: 'null' }] },
    execute: async () => null,
  }
}

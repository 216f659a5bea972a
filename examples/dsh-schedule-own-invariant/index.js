// The plugin itself: the official package, unchanged. What this example shows
// is its ./invariant companion (invariant.js), written from scratch.
export { name, inject, apply } from '@deepseek-ai/dsh-schedule'

// Node 20 lacks Promise.withResolvers (Node >= 22 has it); the official
// runtime uses it as a class field, so the fallback runtime needs this shim.
import { polyfill } from './patches.mjs'

polyfill('promise-with-resolvers', Promise, 'withResolvers', () =>
  function withResolvers() {
    let resolve
    let reject
    const promise = new this((res, rej) => {
      resolve = res
      reject = rej
    })
    return { promise, resolve, reject }
  },
)

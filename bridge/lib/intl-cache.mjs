// Speed only: the official domain code builds a fresh Intl.DateTimeFormat for
// every zone lookup and projection (a tenth of a millisecond each, a dozen per
// local `at`). Formatters are immutable, so equal constructor arguments may
// share one instance; invalid arguments still throw on every call.
import { patch } from './patches.mjs'

const cache = new Map()
const LIMIT = 4096

function cacheKey(locales, options) {
  try {
    return JSON.stringify([locales ?? null, options ?? null, process.env.TZ ?? null])
  } catch {
    return undefined
  }
}

patch('intl-cache', Intl, 'DateTimeFormat', (native) => new Proxy(native, {
  construct(target, args, newTarget) {
    if (newTarget !== Intl.DateTimeFormat) return Reflect.construct(target, args, newTarget)
    const key = cacheKey(args[0], args[1])
    if (key === undefined) return Reflect.construct(target, args)
    let formatter = cache.get(key)
    if (formatter === undefined) {
      formatter = Reflect.construct(target, args)
      if (cache.size >= LIMIT) cache.clear()
      cache.set(key, formatter)
    }
    return formatter
  },
  apply(target, thisArg, args) {
    return Reflect.apply(target, thisArg, args)
  },
}))

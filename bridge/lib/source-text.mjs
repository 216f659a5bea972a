// Speed only: dsh-session and dsh-tools check that every object and array of
// a JSON value (each event appended, each tool's arguments and result) has
// an intrinsic prototype by reading its constructor's source text,
// `Function.prototype.toString.call(Object) === 'function Object() { [native code] }'`,
// and V8 builds that string afresh on every call. A function's source text
// never changes (it is fixed when the function is created), so each
// function's text is read once and kept, weakly, for as long as the function
// lives. A receiver that is not a function still throws, from the native
// method; the wrapper's own text is the native method's.
import { patch } from './patches.mjs'

const texts = new WeakMap()

patch('source-text', Function.prototype, 'toString', (native) => {
  const methods = {
    toString() {
      if (this === methods.toString) return Reflect.apply(native, native, [])
      let text = typeof this === 'function' ? texts.get(this) : undefined
      if (text === undefined) {
        text = Reflect.apply(native, this, [])
        texts.set(this, text)
      }
      return text
    },
  }
  return methods.toString
})

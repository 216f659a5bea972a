"""The bridge's ``source-text`` patch (``bridge/lib/source-text.mjs``) keeps each
function's source text once read: every answer of ``Function.prototype.toString``
stays the native method's, its refusals included."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from pytest_dsh.npm._install import bridge_source

# Each probe is a function of the native toString and the global one: both
# must answer alike (a text, or the error's kind and message).
_PROBES = r"""
const native = Function.prototype.toString
await import(process.argv[2])
const patched = Function.prototype.toString
class Local { method() { return 1 } }
const bound = function named(a, b) { return a + b }.bind(null)
const proxy = new Proxy(function target() {}, {})
const subjects = {
  native: Object, array: Array, arrow: () => 1, klass: Local, method: Local.prototype.method,
  bound, proxy, async: async function go() {}, generator: function* gen() {},
  itself: patched, plain: {}, nothing: undefined, text: 'function x() {}',
}
const answer = (fn, subject) => {
  try {
    return { text: fn.call(subject) }
  } catch (error) {
    return { error: [error.constructor.name, error.message] }
  }
}
const rows = {}
for (const [name, subject] of Object.entries(subjects)) {
  const first = answer(patched, subject)
  const again = answer(patched, subject)
  rows[name] = { native: answer(native, subject === patched ? native : subject), first, again }
}
rows.shape = {
  patched: [patched.name, patched.length, 'prototype' in patched, String(patched)],
  native: [native.name, native.length, 'prototype' in native, String(native)],
  replaced: patched !== native,
}
console.log(JSON.stringify(rows))
"""


def test_every_answer_is_the_native_methods(bridge_node: Path, tmp_path: Path) -> None:
    script = tmp_path / "probe.mjs"
    script.write_text(_PROBES, "utf-8")
    module = (bridge_source() / "lib" / "source-text.mjs").as_uri()
    out = subprocess.run(
        [str(bridge_node), str(script), module],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout
    rows = json.loads(out)
    shape = rows.pop("shape")
    assert shape["replaced"] is True
    native_text = "function toString() { [native code] }"
    assert shape["patched"] == shape["native"] == ["toString", 0, False, native_text]
    for name, row in rows.items():
        assert row["first"] == row["native"] == row["again"], name
    assert rows["plain"]["native"]["error"][0] == "TypeError"
    assert rows["native"]["first"]["text"] == "function Object() { [native code] }"

"""Errors capture no stack frames when nothing under test can read them.

Cordis creates an Error on every plugin call and effect; capturing its frames
is a good part of Node's time. The bridge sets ``Error.stackTraceLimit`` to 0
when no package under test mentions a stack (``bridge/lib/stack.mjs``,
scanned by ``readsStack`` in ``bridge/lib/packages.mjs``), and its own seams
read the caller from a stack captured with Node's own limit; the fault seams
that need them are the read-fault and plugin-call tests of the conformance
suite, which fail when those seams see no frames. Level: kit behaviour.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from pytest_dsh.npm.bridge import BridgeProcess, locate_bridge, locate_node
from pytest_dsh.official import IMPLEMENTATION

pytestmark = pytest.mark.usefixtures("bridge_available")


def reads_stack(folder: Path) -> bool:
    """``readsStack(folder)`` of the bridge, run in Node."""
    bridge = locate_bridge()
    module = (bridge / "lib" / "packages.mjs").as_uri()
    script = (
        f"import {{ readsStack }} from {json.dumps(module)}\n"
        f"console.log(JSON.stringify(readsStack({json.dumps(str(folder))})))"
    )
    done = subprocess.run(
        [str(locate_node(bridge)), "--input-type=module", "-e", script],
        capture_output=True, text=True, check=True, timeout=60,
    )
    return bool(json.loads(done.stdout))


READERS = {
    "a property read": "export const f = (e) => e.stack.split('\\n')",
    "a quoted name": "export const f = (e) => Reflect.get(e, 'stack')",
    "destructuring": "export function f(e) { const { message, stack } = e; return stack }",
    "the V8 API": "Error.prepareStackTrace = (e, frames) => frames",
    "the frame limit": "Error.stackTraceLimit = 50",
    "a CommonJS file in its node_modules": None,
}


@pytest.mark.parametrize("case", READERS, ids=list(READERS))
def test_a_package_that_can_read_a_stack_is_found(tmp_path, case):
    source = READERS[case]
    (tmp_path / "index.js").write_text("export const apply = () => {}\n// call-stack depth\n")
    if source is None:
        nested = tmp_path / "node_modules" / "dep"
        nested.mkdir(parents=True)
        (nested / "index.cjs").write_text("module.exports = (e) => e.stack\n")
    else:
        (tmp_path / "lib").mkdir()
        (tmp_path / "lib" / "reader.mjs").write_text(source + "\n")
    assert reads_stack(tmp_path) is True


def test_a_package_that_never_reads_a_stack_is_not(tmp_path):
    (tmp_path / "index.js").write_text(
        "// a cap on the call-stack depth, in prose\nexport const apply = (ctx) => ctx.stacked\n"
    )
    (tmp_path / "README.md").write_text("error.stack is only read by scripts\n")
    (tmp_path / "loop").symlink_to(tmp_path)  # a cycle is walked once
    assert reads_stack(tmp_path) is False


def test_a_folder_that_cannot_be_read_counts_as_a_reader(tmp_path):
    assert reads_stack(tmp_path / "missing") is True


def test_the_official_packages_read_no_stack_so_errors_capture_no_frames(domain):
    runtime = domain.runtime()
    assert runtime["stack_readers"] == []
    assert runtime["stack_frames"] == 0


def test_whoever_debugs_the_bridge_can_keep_the_frames(monkeypatch):
    monkeypatch.setenv("DSH_BRIDGE_KEEP_STACKS", "1")
    runtime = IMPLEMENTATION.prepare()
    process = BridgeProcess(runtime, locate_node(runtime.folder))
    try:
        result, _ = process.request("runtime")
    finally:
        process.close()
    assert result["stack_readers"] == [] and result["stack_frames"] > 0


#: The DSH host packages' code that touches a stack, reviewed: Cordis splices
#: call sites into the stacks of errors it rethrows or formats them for a
#: logger (the bridge's exporter reads messages only); the agent loop's
#: `env.stack` is its resource-disposal list; the code runtime lists `stack`
#: among the member names an error binding may not use. None decides anything from a
#: frame, so none changes behaviour without frames. A new version of a host
#: package that mentions a stack elsewhere is to be reviewed again.
HOST_STACK_FILES = {
    "@deepseek-ai/cordis/lib/index.js",
    "@deepseek-ai/dsh-agent-loop/lib/index.js",
    "@deepseek-ai/dsh-code-runtime/lib/index.js",
}


def test_the_host_packages_touch_stacks_only_where_reviewed():
    modules = locate_bridge() / "node_modules" / "@deepseek-ai"
    pattern = re.compile(r"\.stack\b|['\"`]stack['\"`]|\bstack\s*[,}:]|stacktrace", re.IGNORECASE)
    found = {
        str(path.relative_to(modules.parent))
        for path in modules.rglob("*")
        if path.suffix in (".js", ".mjs", ".cjs") and "/src/" not in str(path)
        and pattern.search(path.read_text("utf-8", "replace"))
    }
    assert found == HOST_STACK_FILES

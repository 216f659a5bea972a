"""The bridge channel cannot be wedged by a bad reply, and Node never outlives
its parent.

Reproductions answered: after one garbage, non-JSON or unsolicited reply every
later call, ``close()`` and the next host failed with "out-of-order reply" (the
process was neither stopped nor dropped from the pool); a non-JSON line leaked
a bare ``JSONDecodeError``; SIGKILL of the Python side mid-request left Node
running. Misbehaviour is injected with the bridge's test-only operations
(``DSH_BRIDGE_TEST_OPS=1``). Level: kit behaviour (no README sentence).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import kit_child_processes as children
import pytest

from pytest_dsh.npm.bridge import BridgeCrashedError, BridgeProcess, locate_node
from pytest_dsh.npm.bridge import process as pool
from pytest_dsh.official import IMPLEMENTATION

from .conftest import START_MS

# Node start-up plus one watchdog poll is well under a second; the margin is
# for a loaded 2-core CI machine. The test ends as soon as Node exits.
EXIT_DEADLINE_S = 20.0


@pytest.fixture
def test_ops(bridge_node: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DSH_BRIDGE_TEST_OPS", "1")


@pytest.fixture
def pooled(test_ops: None) -> Iterator[BridgeProcess]:
    """A process with the test operations, placed in the pool so that the next
    host checks it out."""
    runtime = IMPLEMENTATION.prepare()
    process = BridgeProcess(runtime, locate_node(runtime.folder))
    pool._all.append(process)
    idle = pool._idle.setdefault(runtime, [])
    idle.append(process)
    yield process
    process.close()
    if process in idle:
        idle.remove(process)


BAD_REPLIES = {
    "not JSON": (["garbage"], False, "is not JSON: 'garbage'"),
    "JSON, not a reply": (["[1, 2]"], False, "is not a reply object"),
    "unsolicited reply": (['{"id": 999, "ok": true, "result": null}'], True, "not its answer"),
    "reply without ok": (['{"id": 3, "result": null}'], True, "not its answer"),
}


@pytest.mark.parametrize("case", BAD_REPLIES, ids=list(BAD_REPLIES))
def test_a_bad_reply_stops_the_process_and_the_next_host_works(pooled, case):
    lines, reply, message = BAD_REPLIES[case]
    host = IMPLEMENTATION.open_host(start_ms=START_MS)
    assert host.process is pooled
    host.load_plugin("schedule")  # request 2 (reset was 1): the channel works
    with pytest.raises(BridgeCrashedError, match=message) as raised:
        pooled.request("_test_raw", lines=lines, reply=reply)
    assert "the bridge process was stopped" in str(raised.value)
    assert not pooled.alive
    # Later calls get the same one reason, not a cascade of protocol errors.
    with pytest.raises(BridgeCrashedError, match="unusable: .*" + message):
        host.create_agent()
    host.close()  # closing the broken host works ...
    assert pooled not in pool._idle[pooled.runtime] and pooled not in pool._all

    fresh = IMPLEMENTATION.open_host(start_ms=START_MS)  # ... and so does the next host
    try:
        assert fresh.process is not pooled
        fresh.load_plugin("schedule")
        agent = fresh.create_agent()
        created = agent.call_tool("schedule_create", {"prompt": "tea", "after_seconds": 60})
        assert created.value["state"] == "scheduled"
    finally:
        fresh.close()


_CHILD = textwrap.dedent(
    """
    import os, sys
    from pytest_dsh.npm.bridge import BridgeProcess, locate_node
    from pytest_dsh.official import IMPLEMENTATION
    runtime = IMPLEMENTATION.prepare()
    process = BridgeProcess(runtime, locate_node(runtime.folder))
    print(process.pid, flush=True)
    lines = process._node_transport  # below the channel: the raw lines
    lines.send(b'{"id": 2, "op": "%s"}')
    print(lines.receive(), flush=True)  # the op announces itself, then never answers
    lines.receive()
    """
)


def _wait_for_exit(pid: int, timeout: float) -> bool:
    """True once process ``pid`` (not our child) has exited."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([handle], [], [], timeout)
        return bool(readable)
    finally:
        os.close(handle)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="needs pidfd_open (Linux)")
@pytest.mark.parametrize(
    ("op", "announcement"),
    [("_test_hang", "hanging"), ("_test_spin", "spinning")],
    ids=["awaiting", "busy-main-thread"],
)
def test_node_exits_when_its_parent_is_killed_mid_request(test_ops, op, announcement):
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD % op],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "DSH_BRIDGE_TEST_OPS": "1"},
    )
    assert child.stdout is not None
    try:
        node_pid = int(children.read_line(child))
        assert announcement in children.read_line(child)  # Node is inside the request
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert _wait_for_exit(node_pid, EXIT_DEADLINE_S), "Node outlived its parent"
    finally:
        child.kill()
        child.wait()

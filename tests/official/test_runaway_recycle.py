"""A Node process whose test ran away serves the next host only when proved clean.

A runaway is stopped where the work grows (``bridge/lib/growth.mjs``), so
the host's work ends mid-flight. At close the driver asks the bridge to
``recycle``: close the host, drop its timers and check, over one more real
macrotask turn, that the stopped work did nothing, armed no timer and holds
no real resource (``bridge/lib/recycle.mjs``). Proved clean, the process goes
back to the pool and the next host on it is indistinguishable from a host on
a fresh process; otherwise the process is retired, as every runaway's was
before. Level: kit behaviour (no README sentence).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pytest_dsh import reply_text, reply_tools
from pytest_dsh.driving import runaway
from pytest_dsh.driving.runaway import Budget, RunawayError
from pytest_dsh.npm.bridge import BridgeCrashedError, BridgeHostDriver, BridgeProcess
from pytest_dsh.npm.bridge import process as pool
from pytest_dsh.npm.bridge.process import checked_node
from pytest_dsh.official import IMPLEMENTATION

from .conftest import START_MS

pytestmark = pytest.mark.usefixtures("bridge_available")

AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}


@pytest.fixture
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], BridgeProcess]]:
    """Start a new Node process (with the test operations) and make it the
    one the next host checks out."""
    monkeypatch.setenv("DSH_BRIDGE_TEST_OPS", "1")
    runtime = IMPLEMENTATION.prepare()
    started: list[BridgeProcess] = []

    def start() -> BridgeProcess:
        process = BridgeProcess(runtime, checked_node(runtime.folder))
        pool._all.append(process)
        pool._idle.setdefault(runtime, []).append(process)
        started.append(process)
        return process

    yield start
    idle = pool._idle.setdefault(runtime, [])
    for process in started:
        process.close()
        if process in idle:
            idle.remove(process)
        if process in pool._all:
            pool._all.remove(process)


def run_away(host: BridgeHostDriver, linger: str | None = None) -> None:
    """A turn stopped by the growth budget mid-flight, with a reminder armed
    before it (a timer the stopped host leaves behind); ``linger``: work of the
    host that outlives it (a test operation)."""
    host.load_plugin("schedule")
    host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = host.create_agent()
    assert agent.call_tool("schedule_create", AFTER_60).is_error is False
    if linger is not None:
        host.process.request("_test_linger", agent=agent.handle, what=linger)
    saved = runaway.budget
    runaway.budget = Budget(growth_left=100, growth=100)
    try:
        agent.script(*[reply_tools(("lookup", {})) for _ in range(60)], reply_text("done"))
        with pytest.raises(RunawayError, match="--dsh-growth-budget"):
            agent.prompt("hello")
    finally:
        runaway.budget = saved
    # The host takes no more requests, as before.
    with pytest.raises(BridgeCrashedError, match="this host is unusable: the test ran away"):
        agent.events()
    host.close()


def observe(host: BridgeHostDriver) -> dict[str, Any]:
    """Everything a test can read of one scenario: both plugins, two agents
    (ids and session ids come from per-process counters), a reminder that fires,
    a turn with a tool call, the records the host keeps."""
    host.load_plugin("schedule")
    host.load_plugin("time-context", {"timeZone": "UTC"})
    first = host.create_agent()
    created = first.call_tool("schedule_create", AFTER_60)
    listed = first.call_tool("schedule_list", {})
    first.script(reply_tools(("schedule_list", {})), reply_text("ok"), reply_text("later"))
    first.prompt("hello")
    host.advance(61)
    second = host.create_agent()
    second.script(reply_text("two"))
    second.prompt("again")
    return {
        "ids": [(a.id, a.session_id, a.is_root, a.status) for a in (first, second)],
        "outcomes": [created, listed],
        "events": [first.events(), second.events()],
        "requests": [first.requests(), second.requests()],
        "history": first.history(),
        "header": first.header(),
        "flushes": list(host.flushes),
        "warnings": list(host.warnings),
        "errors": list(host.errors),
        "now_ms": host.now_ms,
        "durable": host.durable_events(first.session_id),
    }


def test_a_clean_process_serves_the_next_host_as_a_fresh_process_would(fresh_process):
    fresh = fresh_process()
    first_host = IMPLEMENTATION.open_host(start_ms=START_MS)
    assert first_host.process is fresh
    try:
        expected = observe(first_host)
    finally:
        first_host.close()

    recycled = fresh_process()
    ran_away = IMPLEMENTATION.open_host(start_ms=START_MS)
    assert ran_away.process is recycled
    run_away(ran_away)
    assert recycled.alive and recycled in pool._idle[recycled.runtime]

    following = IMPLEMENTATION.open_host(start_ms=START_MS)
    try:
        assert following.process is recycled  # the same Node process ...
        assert observe(following) == expected  # ... and nothing tells it from a fresh one
    finally:
        following.close()
    assert len(expected["events"][0]) > 10 and expected["flushes"]  # the scenario did run


@pytest.mark.parametrize(
    ("linger", "reason"),
    [("timer", r"real work still in flight \(Timeout x1\)"),
     ("append", r"the stopped work still ran after its host closed \(1 appends or ids\)")],
)
def test_a_process_that_cannot_be_proved_clean_is_retired(fresh_process, linger, reason):
    process = fresh_process()
    host = IMPLEMENTATION.open_host(start_ms=START_MS)
    assert host.process is process
    run_away(host, linger)
    assert not process.alive
    assert process not in pool._idle[process.runtime] and process not in pool._all
    with pytest.raises(BridgeCrashedError, match="could not be proved clean: " + reason):
        process.request("settle")

    following = IMPLEMENTATION.open_host(start_ms=START_MS)
    try:
        assert following.process is not process  # a fresh process serves the next host
        following.create_agent()
    finally:
        following.close()


"""The incremental fold is a pure projection of the log it is handed.

README (schedule, "Durable state"): the session event log is the only source
of truth, so whatever the runtime keeps between reads must equal a full refold
of the log at every read. These properties check that after every append,
crash (a shorter log rebuilt from storage), resume (the same log as copies),
fork (a copy with a new seed length), compaction, an event edited in place,
and a log truncated and regrown in place; and, on the fake host, that the
projection the tools and the owner share equals a refold after every operation
while folding only what was appended.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh_reference.implementation import IMPLEMENTATION
from dsh_reference.schedule.core import (
    InvariantChecker,
    ScheduleLogError,
    ScheduleProjection,
    check_candidate_event,
    check_schedule_log,
    due_decision,
    due_decision_after,
    fold_schedule_events,
)
from pytest_dsh.contract.frozen_json import FrozenEvent, frozen_event
from pytest_dsh.strategies.schedule import corrupt_schedule_logs, schedule_logs

START = 1_767_225_600_000
YEAR_MS = 366 * 86_400_000


def _events(changes: tuple[dict[str, Any], ...], noise: list[int]) -> list[dict[str, Any]]:
    """``changes`` as schedule/change events, with ``noise[i]`` other events before each."""
    events: list[dict[str, Any]] = []
    for index, change in enumerate(changes):
        for _ in range(noise[index % len(noise)] if noise else 0):
            events.append({"type": "note", "seq": len(events), "time": START, "data": {}})
        events.append({"type": "schedule/change", "seq": len(events), "time": START,
                       "data": copy.deepcopy(change)})
    return events


def _outcome(read: Any) -> Any:
    try:
        state = read()
    except ScheduleLogError as exc:
        return ("error", str(exc))
    return ("ok", state)


def _assert_matches_refold(projection: ScheduleProjection, log: list[Any], seed: int) -> None:
    expected = _outcome(lambda: fold_schedule_events(log, seed))
    got = _outcome(lambda: projection.read(log, seed))
    if expected[0] == "error":
        assert got == expected
        return
    assert got[0] == "ok", got
    state, folded = got[1], expected[1]
    assert state.snapshot() == folded
    for now in (START - 1, START + YEAR_MS // 2, START + 2 * YEAR_MS):
        assert due_decision_after(state, now) == due_decision(folded, now)


operations = st.lists(
    st.tuples(
        st.sampled_from(
            ["append", "append", "append", "crash", "resume", "fork", "compact", "edit",
             "regrow"]
        ),
        st.integers(0, 6),
    ),
    max_size=14,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    source=st.one_of(
        schedule_logs(max_changes=16).map(lambda log: log.changes),
        corrupt_schedule_logs().map(lambda log: log.changes),
    ),
    noise=st.lists(st.integers(0, 2), max_size=4),
    steps=operations,
    read_only=st.booleans(),
)
def test_a_projection_equals_a_refold_after_every_change_of_the_log(
    source, noise, steps, read_only
):
    """``read_only``: the log holds a host's read-only events (which the
    projection trusts by identity), as the fake host's sessions do."""

    def stored(event: dict[str, Any]) -> Any:
        if not read_only:
            return event
        envelope = {k: v for k, v in event.items() if k not in ("type", "seq", "time", "data")}
        return frozen_event(event["type"], event["seq"], event["time"], event["data"], envelope)

    pending = _events(source, noise)
    log: list[Any] = []
    seed = 0
    projection = ScheduleProjection()
    _assert_matches_refold(projection, log, seed)
    for operation, amount in steps:
        if operation == "append":
            for event in pending[:amount]:
                log.append(stored({**event, "seq": len(log)}))
            del pending[:amount]
        elif operation == "crash":  # storage kept a prefix; the new log holds copies
            log = copy.deepcopy(log[: max(seed, len(log) - amount)])
        elif operation == "resume":
            log = copy.deepcopy(log)
        elif operation == "fork":
            log, seed = copy.deepcopy(log), len(log)
        elif operation == "compact":
            log.append(stored({"type": "compact/start", "seq": len(log), "time": START,
                               "data": {}}))
            log.append(stored({"type": "user/message", "seq": len(log), "time": START,
                               "data": {"content": []},
                               "sourceEventSeqs": list(range(len(log) - 1))}))
        elif operation == "edit" and len(log) > seed:
            edited = {"version": 1, "operation": "delete", "id": f"edited-{amount}"}
            if isinstance(log[-1], FrozenEvent):
                # A read-only event cannot change in place: it is replaced.
                log[-1] = stored({**log[-1], "type": "schedule/change", "data": edited})
            else:
                # The last event changes in place: same object, same seq, other content.
                log[-1]["data"] = edited
                log[-1]["type"] = "schedule/change"
        elif operation == "regrow" and log:
            # Truncated in place, then grown back to its old length with other events.
            keep = max(seed, len(log) - 1 - amount)
            grown = len(log)
            del log[keep:]
            while len(log) < grown:
                log.append(stored({"type": "note", "seq": len(log), "time": START, "data": {}}))
        _assert_matches_refold(projection, log, seed)


@settings(max_examples=100, deadline=None)
@given(source=corrupt_schedule_logs(), noise=st.lists(st.integers(0, 2), max_size=3))
def test_the_invariant_checker_agrees_with_the_stateless_policy(source, noise):
    """Each candidate is checked against the log before it, then appended only
    if the stateless policy accepts it (as the host does)."""
    checker = InvariantChecker()
    log: list[Any] = []
    for event in _events(source.changes, noise):
        candidate = {**event, "seq": len(log)}
        expected = _outcome(lambda: check_candidate_event(log, candidate, 0))  # noqa: B023
        got = _outcome(lambda: checker.check_candidate(log, candidate, 0))  # noqa: B023
        assert got == expected
        if expected[0] == "ok":
            log.append(candidate)
        assert _outcome(lambda: checker.check_log(log, 0)) == _outcome(
            lambda: check_schedule_log(log, 0)
        )


driver_operations = st.lists(
    st.one_of(
        st.tuples(st.just("create_after"), st.integers(1, 600)),
        st.tuples(st.just("create_every"), st.integers(300, 900)),
        st.tuples(st.just("delete"), st.integers(1, 8)),
        st.tuples(st.just("list"), st.just(0)),
        st.tuples(st.just("advance"), st.integers(1, 1200)),
        st.tuples(st.just("prompt"), st.just(0)),
        st.tuples(st.just("compact"), st.just(0)),
        st.tuples(st.just("crash"), st.just(0)),
        st.tuples(st.just("fork"), st.just(0)),
    ),
    min_size=1,
    max_size=12,
)


def _projection_of(host: Any, agent: Any) -> ScheduleProjection:
    installed = host.host.process.plugins["schedule"]._installed[agent.id]
    return installed.owner.projection


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=driver_operations)
def test_the_runtime_projection_equals_a_refold_after_every_operation(steps):
    host = IMPLEMENTATION.open_host(start_ms=START)
    try:
        host.load_plugin("schedule")
        agent = host.create_agent()
        refolds_allowed = 1
        for operation, amount in steps:
            if operation == "create_after":
                agent.call_tool("schedule_create", {"prompt": "p", "after_seconds": amount})
            elif operation == "create_every":
                agent.call_tool("schedule_create", {"prompt": "p", "every_seconds": amount})
            elif operation == "delete":
                agent.call_tool("schedule_delete", {"id": f"schedule-{amount}"})
            elif operation == "list":
                agent.call_tool("schedule_list", {})
            elif operation == "advance":
                host.advance(amount)
            elif operation == "prompt":
                agent.prompt("hello")
            elif operation == "compact":
                seqs = [event["seq"] for event in agent.history()][:2]
                if seqs:
                    agent.compact(seqs, "summary")
            elif operation == "crash":
                host.crash()
                agent = host.resume(agent.session_id)
                refolds_allowed = 1
            elif operation == "fork":
                agent = host.fork(agent)
                refolds_allowed = 1
            host.run_until_idle()
            session = agent.agent.session
            projection = _projection_of(host, agent)
            seed = session.header.get("seedLength") or 0
            # Incremental: one fold from the start per agent, then only appends.
            assert projection.refolds <= refolds_allowed
            assert projection.read(session.events, seed).snapshot() == fold_schedule_events(
                list(session.events), seed
            )
            assert projection.refolds <= refolds_allowed
    finally:
        host.close()

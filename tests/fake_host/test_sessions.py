"""Forks, compaction, persistence faults, crash and resume."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest

from pytest_dsh import FakeHost, HostStuckError
from pytest_dsh.contract import AppendRejectedError, InvariantViolationError
from pytest_dsh.driving.faults import _Window
from pytest_dsh.fake_host.persistence import PersistenceDetachedError, PersistenceRejectedError


def _flush(host: FakeHost, agent):
    return host.run_to_completion(host.process.flush(agent.session))


def test_fork_copies_the_log_and_marks_the_seed_boundary(host: FakeHost) -> None:
    parent = host.create_agent()
    parent.session.append("note", {"n": 1})
    parent.session.append("note", {"n": 2})
    child = host.fork(parent)
    assert child.session.header == {"id": child.session.id, "seedLength": 2}
    assert [e["data"] for e in child.session.events] == [{"n": 1}, {"n": 2}]
    child.session.append("note", {"n": 3})
    assert len(parent.session.events) == 2
    assert child.session.events[2]["seq"] == 2
    assert child.is_root


def test_seeded_agents_own_their_seed(host: FakeHost) -> None:
    seed = [{"type": "note", "seq": 0, "time": 5, "data": {"n": 1}}]
    agent = host.create_agent(seed=seed)
    assert agent.session.header == {"id": agent.session.id}
    assert agent.session.events == tuple(seed)


def test_compaction_shadows_history_but_not_raw_events(host: FakeHost) -> None:
    from pytest_dsh.fake_host.driver import PythonAgentDriver, PythonHostDriver

    driver = PythonHostDriver("toy", "0", {}, start_ms=0)
    try:
        agent = driver.create_agent()
        agent.prompt("one")
        agent.prompt("two")
        before = [e["seq"] for e in agent.history()]
        agent.compact([1, 3], "summary of turn 1")
        after = agent.history()
        assert before == [1, 3, 7, 9]
        assert [e["seq"] for e in after] == [7, 9, 13]
        assert after[-1]["data"]["content"] == [{"type": "text", "text": "summary of turn 1"}]
        assert [e["seq"] for e in agent.events() if e["seq"] in (1, 3)] == [1, 3]
        assert isinstance(agent, PythonAgentDriver)
    finally:
        driver.close()


def test_appended_data_is_a_json_snapshot(host: FakeHost) -> None:
    agent = host.create_agent()
    data = {"items": [1]}
    agent.session.append("note", data)
    data["items"].append(2)
    assert agent.session.events[0]["data"] == {"items": [1]}
    with pytest.raises(AppendRejectedError, match="not JSON"):
        agent.session.append("note", {"bad": object()})
    assert len(agent.session.events) == 1


def test_flush_outcomes_follow_the_fault_plan(host: FakeHost) -> None:
    agent = host.create_agent()
    host.faults.fail_flushes("falsy", first=2, count=1)
    host.faults.reject_nth_flush(3)
    host.faults.reject_nth_flush(4, "detached")
    assert _flush(host, agent) is True
    assert _flush(host, agent) is False
    with pytest.raises(PersistenceRejectedError):
        _flush(host, agent)
    with pytest.raises(PersistenceDetachedError, match=f'session "{agent.session.id}" is not live'):
        _flush(host, agent)
    assert _flush(host, agent) is True
    assert [r.outcome for r in host.flushes] == [
        "durable",
        "falsy",
        "rejected",
        "detached",
        "durable",
    ]


def test_a_hung_flush_waits_until_released(host: FakeHost) -> None:
    agent = host.create_agent()
    host.faults.fail_flushes("hang")
    task = host.start(host.process.flush(agent.session))
    host.advance(3600)
    assert not task.done()
    host.faults.release_hung_flushes()
    host.run_until_idle()
    assert task.result() is True


def test_driver_reports_an_operation_stuck_on_a_hung_flush(host: FakeHost) -> None:
    agent = host.create_agent()
    host.faults.fail_flushes("hang")
    with pytest.raises(HostStuckError, match="hung flush"):
        _flush(host, agent)


def test_crash_keeps_exactly_the_durable_prefix(host: FakeHost) -> None:
    agent = host.create_agent()
    for n in range(3):
        agent.session.append("note", {"n": n})
    assert _flush(host, agent) is True
    agent.session.append("note", {"n": 3})
    host.faults.fail_flushes("falsy")
    assert _flush(host, agent) is False
    agent.session.append("note", {"n": 4})
    host.crash()
    assert not agent.is_live
    resumed = host.resume(agent.session.id)
    assert [e["data"] for e in resumed.session.events] == [{"n": 0}, {"n": 1}, {"n": 2}]
    assert resumed.id != agent.id and resumed.is_root


def test_crash_drops_timers_and_queued_followups(host: FakeHost) -> None:
    agent = host.create_agent()
    fired: list[int] = []
    host.process.clock.set_timer(1000, lambda: fired.append(1))
    host.crash()
    host.advance(10)
    assert fired == []
    with pytest.raises(RuntimeError, match="not live"):
        agent.followup({"content": [{"type": "text", "text": "x"}], "source": {"kind": "user"}})


def test_crash_reloads_the_same_plugins(host: FakeHost, recording) -> None:
    host.load_plugin("recording", {"label": "x"})
    host.crash()
    assert len(recording.instances) == 2
    assert recording.instances[1].label == "x"


def test_resume_of_an_unknown_session_names_the_durable_ones(host: FakeHost) -> None:
    agent = host.create_agent()
    _flush(host, agent)
    with pytest.raises(KeyError, match=agent.session.id):
        host.resume("missing")


def test_flushing_the_session_of_a_disposed_agent_is_detached(host: FakeHost) -> None:
    agent = host.create_agent()
    host.dispose_agent(agent)
    with pytest.raises(PersistenceDetachedError):
        _flush(host, agent)
    assert host.flushes[-1].outcome == "detached"


def test_invariants_check_candidates_and_existing_sessions(host: FakeHost) -> None:
    agent = host.create_agent()
    agent.session.append("note", {"n": 1})

    def no_negative(events, candidate, seed_length):
        for event in [*events, *([candidate] if candidate else [])]:
            if event["data"].get("n", 0) < 0:
                raise ValueError("negative n")

    host.process.register("toy-owner", no_negative)
    with pytest.raises(
        InvariantViolationError, match='invariant violated by "toy-owner": negative n'
    ):
        agent.session.append("note", {"n": -1})
    assert len(agent.session.events) == 1


def test_append_faults_leave_the_log_unchanged(host: FakeHost) -> None:
    agent = host.create_agent()
    host.faults.fail_appends(event_type="note", first=2)
    agent.session.append("note", {"n": 1})
    agent.session.append("other", {})
    with pytest.raises(AppendRejectedError, match="fault plan"):
        agent.session.append("note", {"n": 2})
    assert [e["type"] for e in agent.session.events] == ["note", "other"]


def test_the_host_can_flush_a_session_itself_for_a_later_resume(host: FakeHost) -> None:
    agent = host.create_agent()
    agent.session.append("note", {"n": 1})
    assert host.flush_session(agent) is True
    host.faults.fail_flushes("rejected")
    agent.session.append("note", {"n": 2})
    assert host.flush_session(agent) is False
    host.crash()
    assert [e["data"] for e in host.resume(agent.session.id).session.events] == [{"n": 1}]


def test_an_invariant_rejecting_a_live_session_refuses_to_load() -> None:
    from pytest_dsh import PluginLoadError

    class Strict:
        name = "strict"
        requires = frozenset({"invariants"})

        def load(self, services, config):
            def reject_notes(events, candidate, seed_length):
                if any(e["type"] == "note" for e in events):
                    raise ValueError("notes are not allowed")

            services.invariants.register("strict-owner", reject_notes)
            return object()

    fake = FakeHost({"strict": Strict()})
    try:
        fake.create_agent().session.append("note", {})
        with pytest.raises(PluginLoadError) as caught:
            fake.load_plugin("strict")
        assert caught.value.message == 'invariant violated by "strict-owner": notes are not allowed'
    finally:
        fake.close()


def test_the_fault_plan_can_be_mirrored_by_another_host(host: FakeHost) -> None:
    host.faults.fail_flushes("falsy", first=2, count=3)
    host.faults.fail_appends(event_type="note", data={"n": 1})
    host.faults.fake_clock_reads(1_234, first=2, count=None)
    snapshot = host.faults.snapshot()
    assert snapshot == [
        {"kind": "flush", "outcome": "falsy", "first": 2, "count": 3, "event_type": None,
         "data": None, "seen": 0, "value": None, "dormant": False, "id": 1},
        {"kind": "append", "outcome": "rejected", "first": 1, "count": 1, "event_type": "note",
         "data": {"n": 1}, "seen": 0, "value": None, "dormant": False, "id": 2},
        {"kind": "clock", "outcome": "value", "first": 2, "count": None, "event_type": None,
         "data": None, "seen": 0, "value": 1_234, "dormant": False, "id": 3},
    ]
    # The other host rebuilds each window from its entry alone: every field a
    # window has must travel (a faked clock reading is one).
    assert all(set(entry) == {f.name for f in fields(_Window)} for entry in snapshot)
    host.faults.record_seen([2, 0, 0])
    agent = host.create_agent()
    # The mirrored count says one flush of the window already failed: two remain.
    assert [_flush(host, agent) for _ in range(3)] == [False, False, True]


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2"])
def test_a_header_seed_length_must_be_a_non_negative_safe_integer(host: FakeHost, bad) -> None:
    with pytest.raises(ValueError, match="non-negative safe integer"):
        host.create_agent(seed_length=bad)


def test_a_header_seed_length_may_exceed_the_log(host: FakeHost) -> None:
    agent = host.create_agent(seed=[], seed_length=3)
    assert agent.session.header == {"id": agent.session.id, "seedLength": 3}


class _RefusingStore:
    """Stands in for a store whose backend fails while persisting."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def persist(self, header: Any, events: Any) -> None:
        raise PersistenceRejectedError("the disk is full")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_hung_flush_released_durable_that_the_store_refuses_is_recorded_rejected(
    host: FakeHost,
) -> None:
    agent = host.create_agent()
    host.faults.fail_flushes("hang")
    task = host.start(host.process.flush(agent.session))
    host.run_until_idle()
    inner = host.store
    host.store = _RefusingStore(inner)  # type: ignore[assignment]
    try:
        host.faults.release_hung_flushes()
        host.run_until_idle()
    finally:
        host.store = inner
    with pytest.raises(PersistenceRejectedError, match="the disk is full"):
        task.result()
    assert [(f.outcome, f.reason) for f in host.flushes] == [
        ("rejected", "PersistenceRejectedError: the disk is full")
    ]

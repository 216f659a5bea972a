"""README section "Durable state": the version-1 ``schedule/change`` union, what
each record stores, replay strictness, and the fork boundary."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from dsh_conformance.schedule.session_logs import (
    CORRUPT,
    after_create,
    at_create,
    changes,
    delete_change,
    dispatch_change,
    every_create,
    reminder_texts,
    seed_log,
)
from pytest_dsh.strategies.schedule import corrupt_schedule_logs, schedule_logs

pytestmark = [pytest.mark.dsh_requires("schedule")]

FAR = "2026-06-01T00:00:00.000Z"  # never due during these tests
A1 = after_create("schedule-1", "A", 60, FAR)
E2 = every_create("schedule-2", "E", 300, FAR)
T3 = at_create("schedule-3", "T", FAR)


def _view(record: dict[str, Any], state: str = "scheduled") -> dict[str, Any]:
    return {**record, "state": state, "deliveryMode": "session-local"}


# -- payloads as written --------------------------------------------------------------


@pytest.mark.spec("SCH-014", "SCH-015", "SCH-016")
@pytest.mark.parametrize(
    ("arguments", "record"),
    [
        pytest.param(
            {"prompt": "  Stand up \n", "after_seconds": 90},
            {"id": "schedule-1", "kind": "after", "prompt": "Stand up", "afterSeconds": 90,
             "scheduledAt": "2026-01-01T00:01:30.000Z"},
            id="after",
        ),
        pytest.param(
            {"prompt": "Call Bob", "at": "2026-01-02T09:30:00.5+01:00"},
            {"id": "schedule-1", "kind": "at", "prompt": "Call Bob",
             "scheduledAt": "2026-01-02T08:30:00.500Z"},
            id="at-offset",
        ),
        pytest.param(
            {"prompt": "Call Bob",
             "at": {"date": "2026-01-02", "time": "09:30:00.5", "time_zone": "Europe/Berlin"}},
            {"id": "schedule-1", "kind": "at", "prompt": "Call Bob",
             "scheduledAt": "2026-01-02T08:30:00.500Z"},
            id="at-local",
        ),
        pytest.param(
            {"prompt": "Check metrics", "every_seconds": 3600},
            {"id": "schedule-1", "kind": "every", "prompt": "Check metrics",
             "everySeconds": 3600, "scheduledAt": "2026-01-01T01:00:00.000Z"},
            id="every",
        ),
    ],
)
def test_create_appends_exactly_the_documented_payload(agent, arguments, record):
    agent.call_tool("schedule_create", arguments)
    (change,) = changes(agent.events())
    assert change == {"version": 1, "operation": "create", "schedule": record}
    assert list(change) == ["version", "operation", "schedule"]
    assert list(change["schedule"]) == list(record)


@pytest.mark.spec("SCH-017")
def test_delete_carries_only_the_id(agent):
    agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 600})
    agent.call_tool("schedule_delete", {"id": "schedule-1"})
    delete = changes(agent.events())[-1]
    assert delete == {"version": 1, "operation": "delete", "id": "schedule-1"}
    assert list(delete) == ["version", "operation", "id"]


@pytest.mark.spec("SCH-017", "SCH-049")
@pytest.mark.parametrize(
    "arguments",
    [{"prompt": "x", "after_seconds": 60}, {"prompt": "x", "at": "2026-01-01T00:01:00Z"}],
    ids=["after", "at"],
)
def test_one_shot_dispatch_carries_only_the_id(host, agent, arguments):
    agent.call_tool("schedule_create", arguments)
    host.advance(60)
    dispatch = changes(agent.events())[-1]
    assert dispatch == {"version": 1, "operation": "dispatch", "id": "schedule-1"}
    assert list(dispatch) == ["version", "operation", "id"]


@pytest.mark.spec("SCH-016", "SCH-018")
def test_every_record_is_anchored_to_its_creation_and_advances_after_dispatch(
    dsh_host_factory,
):
    host = dsh_host_factory(start_ms=1_767_225_607_000)  # 2026-01-01T00:00:07.000Z
    host.load_plugin("schedule")
    agent = host.create_agent()
    created = agent.call_tool("schedule_create", {"prompt": "Tick", "every_seconds": 300}).value
    assert created["scheduledAt"] == "2026-01-01T00:05:07.000Z"
    host.advance(300)
    dispatch = changes(agent.events())[-1]
    assert dispatch == {"version": 1, "operation": "dispatch", "id": "schedule-1",
                        "acceptedAt": "2026-01-01T00:05:07.000Z"}
    assert list(dispatch) == ["version", "operation", "id", "acceptedAt"]
    (listed,) = agent.call_tool("schedule_list", {}).value
    assert listed["scheduledAt"] == "2026-01-01T00:10:07.000Z"


@pytest.mark.spec("SCH-018")
@pytest.mark.parametrize(
    ("scheduled_at", "accepted_at", "next_target"),
    [
        ("2026-01-01T00:05:00.000Z", "2026-01-01T01:07:13.000Z", "2026-01-01T01:10:00.000Z"),
        ("2026-01-01T00:01:00.000Z", "2026-01-01T00:06:00.000Z", "2026-01-01T00:11:00.000Z"),
        ("2026-01-01T00:01:00.000Z", "2026-01-01T00:01:00.000Z", "2026-01-01T00:06:00.000Z"),
    ],
    ids=["between-occurrences", "on-an-occurrence", "on-the-target"],
)
def test_replay_advances_every_record_to_the_first_aligned_target_after_accepted_at(
    dsh_host_factory, scheduled_at, accepted_at, next_target
):
    host = dsh_host_factory(start_ms=1_735_689_600_000)  # 2025-01-01: nothing is due
    host.load_plugin("schedule")
    seed = seed_log(
        every_create("schedule-1", "Tick", 300, scheduled_at),
        dispatch_change("schedule-1", accepted_at),
    )
    agent = host.create_agent(seed=seed)
    (listed,) = agent.call_tool("schedule_list", {}).value
    assert listed["scheduledAt"] == next_target


# -- ids ----------------------------------------------------------------------------


@pytest.mark.spec("SCH-015", "SCH-034")
def test_ids_are_session_local_and_never_reused(host, agent):
    ids = [
        agent.call_tool("schedule_create", {"prompt": p, "after_seconds": 600}).value["id"]
        for p in ("a", "b")
    ]
    assert ids == ["schedule-1", "schedule-2"]
    agent.call_tool("schedule_delete", {"id": "schedule-2"})
    third = agent.call_tool("schedule_create", {"prompt": "c", "after_seconds": 60}).value["id"]
    assert third == "schedule-3"
    host.advance(60)  # schedule-3 is dispatched: its id is terminal
    fourth = agent.call_tool("schedule_create", {"prompt": "d", "after_seconds": 60}).value["id"]
    assert fourth == "schedule-4"
    other = host.create_agent()
    created = other.call_tool("schedule_create", {"prompt": "e", "after_seconds": 60}).value
    assert created["id"] == "schedule-1"


@pytest.mark.spec("SCH-015", "SCH-034")
@pytest.mark.parametrize(
    "seed",
    [
        [every_create("schedule-2", "E", 300, FAR)],
        [after_create("schedule-1", "A", 60, FAR), delete_change("schedule-1"),
         at_create("schedule-3", "T", FAR)],
        [at_create("catalog-after", "T", FAR)],
    ],
    ids=["gap", "deleted-and-gap", "foreign-format"],
)
def test_allocated_id_is_never_one_the_log_already_used(host, seed):
    agent = host.create_agent(seed=seed_log(*seed))
    used = {change["schedule"]["id"] for change in changes(agent.events())
            if change["operation"] == "create"}
    value = agent.call_tool("schedule_create", {"prompt": "new", "after_seconds": 60}).value
    assert value["kind"] == "after"
    assert value["id"] not in used


# -- replay ---------------------------------------------------------------------------


def _extra(change: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {**change, **extra}


def _record_extra(change: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {**change, "schedule": {**change["schedule"], **extra}}


def _record_with(change: dict[str, Any], **values: Any) -> dict[str, Any]:
    return _record_extra(change, **values)


CORRUPT_LOGS: dict[str, list[Any]] = {
    "version-2": [_extra(A1, version=2)],
    "version-string": [_extra(A1, version="1")],
    "version-true": [_extra(A1, version=True)],
    "version-missing": [{"operation": "create", "schedule": A1["schedule"]}],
    "payload-not-object": [["create"]],
    "create-extra-field": [_extra(A1, note="x")],
    "after-record-extra-field": [_record_extra(A1, timeZone="UTC")],
    "at-record-stores-offset": [_record_extra(T3, offset="+01:00")],
    "every-record-missing-interval": [
        {"version": 1, "operation": "create",
         "schedule": {"id": "schedule-2", "kind": "every", "prompt": "E", "scheduledAt": FAR}}
    ],
    "delete-extra-field": [A1, _extra(delete_change("schedule-1"), reason="x")],
    "dispatch-extra-field": [A1, _extra(dispatch_change("schedule-1"), note="x")],
    "unknown-operation": [A1, {"version": 1, "operation": "update", "id": "schedule-1"}],
    "unknown-kind": [_record_with(A1, kind="cron")],
    "reused-id": [A1, _record_with(T3, id="schedule-1")],
    "reused-id-after-delete": [A1, delete_change("schedule-1"), A1],
    "reused-id-after-dispatch": [A1, dispatch_change("schedule-1"), A1],
    "delete-unknown": [A1, delete_change("schedule-9")],
    "delete-twice": [A1, delete_change("schedule-1"), delete_change("schedule-1")],
    "dispatch-unknown": [dispatch_change("schedule-9")],
    "dispatch-after-delete": [A1, delete_change("schedule-1"), dispatch_change("schedule-1")],
    "one-shot-dispatched-twice": [A1, dispatch_change("schedule-1"),
                                  dispatch_change("schedule-1")],
    "one-shot-dispatch-with-accepted-at": [A1, dispatch_change("schedule-1", FAR)],
    "every-dispatch-without-accepted-at": [E2, dispatch_change("schedule-2")],
    "every-dispatch-before-target": [E2, dispatch_change("schedule-2",
                                                         "2026-05-31T23:59:59.999Z")],
    "accepted-at-not-canonical": [E2, dispatch_change("schedule-2", "2026-06-01T00:00:00Z")],
    "scheduled-at-without-millis": [_record_with(A1, scheduledAt="2026-06-01T00:00:00Z")],
    "scheduled-at-with-offset": [_record_with(A1, scheduledAt="2026-06-01T00:00:00.000+00:00")],
    "scheduled-at-not-a-date": [_record_with(A1, scheduledAt="2026-02-30T00:00:00.000Z")],
    "scheduled-at-year-zero": [_record_with(A1, scheduledAt="0000-06-01T00:00:00.000Z")],
    "prompt-untrimmed": [_record_with(A1, prompt=" A")],
    "prompt-empty": [_record_with(A1, prompt="")],
    "prompt-not-string": [_record_with(A1, prompt=5)],
    "after-seconds-zero": [_record_with(A1, afterSeconds=0)],
    "after-seconds-fraction": [_record_with(A1, afterSeconds=1.5)],
    "after-seconds-true": [_record_with(A1, afterSeconds=True)],
    "every-seconds-below-300": [_record_with(E2, everySeconds=299)],
    "id-empty": [_record_with(A1, id="")],
    "id-padded": [_record_with(A1, id=" schedule-1")],
    "id-not-string": [_record_with(A1, id=1)],
}


@pytest.mark.spec("SCH-014", "SCH-019", "SCH-039")
@pytest.mark.parametrize("entries", list(CORRUPT_LOGS.values()), ids=list(CORRUPT_LOGS))
def test_list_over_a_corrupt_log_reports_corrupt_schedule_log(host, entries):
    agent = host.create_agent(seed=seed_log(*entries))
    result = agent.call_tool("schedule_list", {})
    assert result.is_error is False
    assert result.value == CORRUPT


@pytest.mark.spec("SCH-019", "SCH-039")
@pytest.mark.parametrize("case", ["reused-id", "one-shot-dispatch-with-accepted-at", "version-2"])
def test_create_over_a_corrupt_log_reports_corrupt_and_appends_nothing(host, case):
    agent = host.create_agent(seed=seed_log(*CORRUPT_LOGS[case]))
    before = changes(agent.events())
    value = agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 60}).value
    assert value == CORRUPT
    assert changes(agent.events()) == before


@pytest.mark.spec("SCH-019", "SCH-039")
@pytest.mark.parametrize("case", ["delete-twice", "every-dispatch-without-accepted-at"])
@pytest.mark.parametrize("target", ["schedule-1", "schedule-2", "schedule-9"])
def test_delete_over_a_corrupt_log_reports_corrupt_and_appends_nothing(host, case, target):
    agent = host.create_agent(seed=seed_log(*CORRUPT_LOGS[case]))
    before = changes(agent.events())
    assert agent.call_tool("schedule_delete", {"id": target}).value == CORRUPT
    assert changes(agent.events()) == before


@pytest.mark.spec("SCH-019")
def test_corrupt_log_never_dispatches(dsh_host_factory):
    host = dsh_host_factory()
    host.load_plugin("schedule")
    seed = seed_log(after_create("schedule-1", "Due", 60, "2026-01-01T00:01:00.000Z"),
                    delete_change("schedule-7"))
    agent = host.create_agent(seed=seed)
    host.advance(3600)
    assert reminder_texts(agent.events()) == []
    assert changes(agent.events()) == changes(seed)


VALID_LOGS: dict[str, tuple[list[Any], list[dict[str, Any]]]] = {
    "version-one-point-zero": ([_extra(A1, version=1.0)], [A1["schedule"]]),
    "foreign-events-ignored": (
        [("custom/thing", {"version": 99, "operation": "create"}), A1,
         ("note/event", "not even an object")],
        [A1["schedule"]],
    ),
    "any-trimmed-id": ([at_create("catalog-after", "T", FAR)],
                       [at_create("catalog-after", "T", FAR)["schedule"]]),
    "stored-key-order-is-irrelevant": (
        [{"schedule": {"scheduledAt": FAR, "afterSeconds": 60, "prompt": "A",
                       "kind": "after", "id": "schedule-1"},
          "operation": "create", "version": 1}],
        [A1["schedule"]],
    ),
    "creation-order-kept": ([T3, A1, E2, delete_change("schedule-1")],
                            [T3["schedule"], E2["schedule"]]),
    "dispatched-one-shot-gone": ([A1, T3, dispatch_change("schedule-1")], [T3["schedule"]]),
}


@pytest.mark.spec("SCH-014", "SCH-019", "SCH-020", "SCH-035")
@pytest.mark.parametrize(
    ("entries", "records"), list(VALID_LOGS.values()), ids=list(VALID_LOGS)
)
def test_list_folds_a_valid_log(host, entries, records):
    agent = host.create_agent(seed=seed_log(*entries))
    value = agent.call_tool("schedule_list", {}).value
    assert value == [_view(record) for record in records]
    assert [list(view) for view in value] == [
        [*record, "state", "deliveryMode"] for record in records
    ]


# -- the whole log and the fork boundary ----------------------------------------------


@pytest.mark.spec("SCH-003", "SCH-020")
def test_state_survives_a_crash_because_the_log_owns_it(host, agent):
    agent.call_tool("schedule_create", {"prompt": "A", "after_seconds": 600})
    agent.call_tool("schedule_create", {"prompt": "B", "every_seconds": 900})
    agent.call_tool("schedule_delete", {"id": "schedule-1"})
    before = agent.call_tool("schedule_list", {}).value
    host.crash()
    resumed = host.resume(agent.session_id)
    assert resumed.call_tool("schedule_list", {}).value == before
    host.advance(900)
    assert len(reminder_texts(resumed.events())) == 1


@pytest.mark.spec("SCH-003", "SCH-042")
def test_timers_are_rebuilt_from_the_log_after_a_crash(host, agent):
    agent.call_tool("schedule_create", {"prompt": "A", "after_seconds": 600})
    host.crash()
    resumed = host.resume(agent.session_id)
    host.advance(599.999)
    assert reminder_texts(resumed.events()) == []
    host.advance(0.001)
    (message,) = [e for e in resumed.events() if e["type"] == "user/message"]
    assert message["time"] == 1_767_226_200_000


@pytest.mark.spec("SCH-020")
def test_a_normal_session_folds_from_its_first_event(host):
    seed = seed_log(A1, ("custom/thing", {}), ("custom/thing", {}), T3, delete_change("schedule-1"))
    agent = host.create_agent(seed=seed)
    assert [view["id"] for view in agent.call_tool("schedule_list", {}).value] == ["schedule-3"]


@pytest.mark.spec("SCH-021")
def test_fork_does_not_inherit_parent_reminders(host, agent):
    agent.call_tool("schedule_create", {"prompt": "P1", "after_seconds": 600})
    agent.call_tool("schedule_create", {"prompt": "P2", "every_seconds": 1200})
    child = host.fork(agent)
    assert child.header()["seedLength"] == len(agent.events())
    assert child.call_tool("schedule_list", {}).value == []
    created = child.call_tool("schedule_create", {"prompt": "C", "after_seconds": 3600}).value
    assert created["id"] == "schedule-1"
    assert child.call_tool("schedule_delete", {"id": "schedule-2"}).value == {
        "id": "schedule-2", "deleted": False, "code": "schedule_not_found"}
    host.advance(1200)
    assert reminder_texts(child.events()) == []
    assert len(reminder_texts(agent.events())) == 2


@pytest.mark.spec("SCH-021")
def test_fork_suffix_that_touches_a_parent_id_is_corrupt(host, agent):
    agent.call_tool("schedule_create", {"prompt": "P1", "after_seconds": 600})
    child = host.fork(agent)
    child.append_event("schedule/change", delete_change("schedule-1"))
    assert child.call_tool("schedule_list", {}).value == CORRUPT
    assert agent.call_tool("schedule_list", {}).value[0]["id"] == "schedule-1"


@pytest.mark.spec("SCH-021")
def test_fork_child_owns_its_suffix_across_resume(host, agent):
    agent.call_tool("schedule_create", {"prompt": "P1", "after_seconds": 600})
    child = host.fork(agent)
    child.call_tool("schedule_create", {"prompt": "C1", "after_seconds": 900})
    host.crash()
    resumed = host.resume(child.session_id)
    assert [v["prompt"] for v in resumed.call_tool("schedule_list", {}).value] == ["C1"]
    host.advance(900)
    assert len(reminder_texts(resumed.events())) == 1
    assert '"C1"' in reminder_texts(resumed.events())[0]


# -- properties ---------------------------------------------------------------------------

REUSE_HOST = settings(
    max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture
def quiet_host(dsh_host_factory):
    """A host at 2025-01-01: the generated logs target 2026, so nothing is due."""
    host = dsh_host_factory(start_ms=1_735_689_600_000)
    host.load_plugin("schedule")
    return host


@pytest.mark.spec("SCH-014", "SCH-018", "SCH-020", "SCH-035")
@REUSE_HOST
@given(log=schedule_logs())
def test_any_valid_log_lists_its_fold(quiet_host, log):
    agent = quiet_host.create_agent(seed=seed_log(*log.changes))
    assert agent.call_tool("schedule_list", {}).value == [_view(r) for r in log.active]
    created = agent.call_tool("schedule_create", {"prompt": "next", "after_seconds": 1}).value
    assert created["id"] not in log.seen_ids


@pytest.mark.spec("SCH-019")
@REUSE_HOST
@given(log=corrupt_schedule_logs())
def test_any_corrupt_log_is_reported_as_corrupt(quiet_host, log):
    agent = quiet_host.create_agent(seed=seed_log(*log.changes))
    assert agent.call_tool("schedule_list", {}).value == CORRUPT, log.rule

"""README section "Durable state": the version-1 ``schedule/change`` union, what
each record stores, replay strictness, and the fork boundary."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from dsh_conformance.expect import code_of, pinned, readme
from dsh_conformance.schedule.session_logs import (
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


PAYLOADS = pytest.mark.parametrize(
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


@pytest.mark.spec("SCH-014", "SCH-015", "SCH-016")
@PAYLOADS
def test_create_appends_exactly_the_documented_payload(agent, arguments, record):
    created = agent.call_tool("schedule_create", arguments).value
    (change,) = changes(agent.events())
    # The id is the implementation's (its format is pinned detail SCH-ID-FORMAT).
    expected = {"version": 1, "operation": "create",
                "schedule": {**record, "id": created["id"]}}
    assert change == expected, readme(
        "SCH-014, SCH-015, SCH-016", f"exactly the version-1 create {expected}", change)


@pytest.mark.compat("SCH-PAYLOAD-KEY-ORDER")
@pytest.mark.spec("SCH-014", "SCH-015", "SCH-016")
@PAYLOADS
def test_create_payload_keys_are_in_the_official_order(agent, arguments, record):
    agent.call_tool("schedule_create", arguments)
    (change,) = changes(agent.events())
    observed = [list(change), list(change["schedule"])]
    expected = [["version", "operation", "schedule"], list(record)]
    assert observed == expected, pinned("SCH-PAYLOAD-KEY-ORDER", f"the key order {expected}",
                                        observed)


@pytest.mark.spec("SCH-017")
def test_delete_carries_only_the_id(agent):
    created = agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 600}).value
    agent.call_tool("schedule_delete", {"id": created["id"]})
    delete = changes(agent.events())[-1]
    assert delete == {"version": 1, "operation": "delete", "id": created["id"]}, readme(
        "SCH-017", "a delete carrying only version, operation and the id", delete)


@pytest.mark.compat("SCH-PAYLOAD-KEY-ORDER")
@pytest.mark.spec("SCH-017")
def test_delete_keys_are_in_the_official_order(agent):
    agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 600})
    agent.call_tool("schedule_delete", {"id": "schedule-1"})
    delete = changes(agent.events())[-1]
    assert list(delete) == ["version", "operation", "id"], pinned(
        "SCH-PAYLOAD-KEY-ORDER", "the key order version, operation, id", list(delete))


ONE_SHOTS = pytest.mark.parametrize(
    "arguments",
    [{"prompt": "x", "after_seconds": 60}, {"prompt": "x", "at": "2026-01-01T00:01:00Z"}],
    ids=["after", "at"],
)


@pytest.mark.spec("SCH-017", "SCH-049")
@ONE_SHOTS
def test_one_shot_dispatch_carries_only_the_id(host, agent, arguments):
    created = agent.call_tool("schedule_create", arguments).value
    host.advance(60)
    dispatch = changes(agent.events())[-1]
    assert dispatch == {"version": 1, "operation": "dispatch", "id": created["id"]}, readme(
        "SCH-017", "a one-shot dispatch carrying only version, operation and the id", dispatch)


@pytest.mark.compat("SCH-PAYLOAD-KEY-ORDER")
@pytest.mark.spec("SCH-017", "SCH-049")
@ONE_SHOTS
def test_one_shot_dispatch_keys_are_in_the_official_order(host, agent, arguments):
    agent.call_tool("schedule_create", arguments)
    host.advance(60)
    dispatch = changes(agent.events())[-1]
    assert list(dispatch) == ["version", "operation", "id"], pinned(
        "SCH-PAYLOAD-KEY-ORDER", "the key order version, operation, id", list(dispatch))


@pytest.mark.spec("SCH-016", "SCH-018")
def test_every_record_is_anchored_to_its_creation_and_advances_after_dispatch(
    dsh_host_factory,
):
    host = dsh_host_factory(start_ms=1_767_225_607_000)  # 2026-01-01T00:00:07.000Z
    host.load_plugin("schedule")
    agent = host.create_agent()
    created = agent.call_tool("schedule_create", {"prompt": "Tick", "every_seconds": 300}).value
    assert created["scheduledAt"] == "2026-01-01T00:05:07.000Z", readme(
        "SCH-016", "the first creation-anchored occurrence 00:05:07", created)
    host.advance(300)
    dispatch = changes(agent.events())[-1]
    assert dispatch == {"version": 1, "operation": "dispatch", "id": created["id"],
                        "acceptedAt": "2026-01-01T00:05:07.000Z"}, readme(
        "SCH-018", "an Every dispatch with the id and acceptedAt 00:05:07", dispatch)
    (listed,) = agent.call_tool("schedule_list", {}).value
    assert listed["scheduledAt"] == "2026-01-01T00:10:07.000Z", readme(
        "SCH-018", "the record advanced to the next anchored target 00:10:07", listed)


@pytest.mark.compat("SCH-PAYLOAD-KEY-ORDER")
@pytest.mark.spec("SCH-018")
def test_every_dispatch_keys_are_in_the_official_order(host, agent):
    agent.call_tool("schedule_create", {"prompt": "Tick", "every_seconds": 300})
    host.advance(300)
    dispatch = changes(agent.events())[-1]
    expected = ["version", "operation", "id", "acceptedAt"]
    assert list(dispatch) == expected, pinned("SCH-PAYLOAD-KEY-ORDER",
                                              f"the key order {expected}", list(dispatch))


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
    assert listed["scheduledAt"] == next_target, readme(
        "SCH-018", f"replay to advance to the first aligned target after {accepted_at}: "
        f"{next_target}", listed)


# -- ids ----------------------------------------------------------------------------


@pytest.mark.spec("SCH-015", "SCH-034")
def test_ids_are_never_reused(host, agent):
    ids = [
        agent.call_tool("schedule_create", {"prompt": p, "after_seconds": 600}).value["id"]
        for p in ("a", "b")
    ]
    agent.call_tool("schedule_delete", {"id": ids[1]})
    ids.append(agent.call_tool("schedule_create", {"prompt": "c", "after_seconds": 60}).value[
        "id"])
    host.advance(60)  # the third is dispatched: its id is terminal
    ids.append(agent.call_tool("schedule_create", {"prompt": "d", "after_seconds": 60}).value[
        "id"])
    assert len(set(ids)) == 4, readme(
        "SCH-015, SCH-034", "a never-reused id for every create, even after a delete and a "
        "dispatch", ids)
    assert all(isinstance(i, str) and i and i == i.strip() for i in ids), readme(
        "SCH-015", "ids that are non-empty strings", ids)


@pytest.mark.compat("SCH-ID-FORMAT")
@pytest.mark.spec("SCH-015", "SCH-034")
def test_ids_are_session_local_and_never_reused(host, agent):
    ids = [
        agent.call_tool("schedule_create", {"prompt": p, "after_seconds": 600}).value["id"]
        for p in ("a", "b")
    ]
    agent.call_tool("schedule_delete", {"id": "schedule-2"})
    ids.append(agent.call_tool("schedule_create", {"prompt": "c", "after_seconds": 60}).value[
        "id"])
    host.advance(60)  # schedule-3 is dispatched: its id is terminal
    ids.append(agent.call_tool("schedule_create", {"prompt": "d", "after_seconds": 60}).value[
        "id"])
    other = host.create_agent()
    ids.append(other.call_tool("schedule_create", {"prompt": "e", "after_seconds": 60}).value[
        "id"])
    expected = ["schedule-1", "schedule-2", "schedule-3", "schedule-4", "schedule-1"]
    assert ids == expected, pinned(
        "SCH-ID-FORMAT", f"the ids {expected} (counting per session from schedule-1)", ids)


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
    assert value["kind"] == "after", readme("SCH-034", "the create to succeed", value)
    assert value["id"] not in used, readme(
        "SCH-034", f"a never-reused id (the log used {sorted(used)})", value)


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
    assert result.is_error is False, readme("SCH-039", "a closed value, not a host error",
                                            result.error)
    assert code_of(result.value) == "corrupt_schedule_log", readme(
        "SCH-019, SCH-039", "corrupt_schedule_log for a log replay rejects", result.value)


@pytest.mark.spec("SCH-019", "SCH-039")
@pytest.mark.parametrize("case", ["reused-id", "one-shot-dispatch-with-accepted-at", "version-2"])
def test_create_over_a_corrupt_log_reports_corrupt_and_appends_nothing(host, case):
    agent = host.create_agent(seed=seed_log(*CORRUPT_LOGS[case]))
    before = changes(agent.events())
    value = agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 60}).value
    assert code_of(value) == "corrupt_schedule_log", readme(
        "SCH-019, SCH-039", "corrupt_schedule_log from create over a corrupt log", value)
    assert changes(agent.events()) == before, readme("SCH-019", "nothing appended",
                                                     changes(agent.events()))


@pytest.mark.spec("SCH-019", "SCH-039")
@pytest.mark.parametrize("case", ["delete-twice", "every-dispatch-without-accepted-at"])
@pytest.mark.parametrize("target", ["schedule-1", "schedule-2", "schedule-9"])
def test_delete_over_a_corrupt_log_reports_corrupt_and_appends_nothing(host, case, target):
    agent = host.create_agent(seed=seed_log(*CORRUPT_LOGS[case]))
    before = changes(agent.events())
    value = agent.call_tool("schedule_delete", {"id": target}).value
    assert code_of(value) == "corrupt_schedule_log", readme(
        "SCH-019, SCH-039", "corrupt_schedule_log from delete over a corrupt log", value)
    assert changes(agent.events()) == before, readme("SCH-019", "nothing appended",
                                                     changes(agent.events()))


@pytest.mark.spec("SCH-019")
def test_corrupt_log_never_dispatches(dsh_host_factory):
    host = dsh_host_factory()
    host.load_plugin("schedule")
    seed = seed_log(after_create("schedule-1", "Due", 60, "2026-01-01T00:01:00.000Z"),
                    delete_change("schedule-7"))
    agent = host.create_agent(seed=seed)
    host.advance(3600)
    assert reminder_texts(agent.events()) == [], readme(
        "SCH-019", "no reminder from a corrupt log", reminder_texts(agent.events()))
    assert changes(agent.events()) == changes(seed), readme(
        "SCH-019", "no change appended to a corrupt log", changes(agent.events()))


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


FOLDS = pytest.mark.parametrize(
    ("entries", "records"), list(VALID_LOGS.values()), ids=list(VALID_LOGS)
)


@pytest.mark.spec("SCH-014", "SCH-019", "SCH-020", "SCH-035")
@FOLDS
def test_list_folds_a_valid_log(host, entries, records):
    agent = host.create_agent(seed=seed_log(*entries))
    value = agent.call_tool("schedule_list", {}).value
    assert value == [_view(record) for record in records], readme(
        "SCH-014, SCH-019, SCH-020, SCH-035", "the fold's active records in creation order",
        value)


@pytest.mark.compat("SCH-VALUE-KEY-ORDER")
@pytest.mark.spec("SCH-035")
@FOLDS
def test_a_folded_view_uses_the_canonical_key_order(host, entries, records):
    agent = host.create_agent(seed=seed_log(*entries))
    value = agent.call_tool("schedule_list", {}).value
    observed = [list(view) for view in value]
    expected = [[*record, "state", "deliveryMode"] for record in records]
    assert observed == expected, pinned(
        "SCH-VALUE-KEY-ORDER", f"the canonical view key order {expected}, whatever the stored "
        "key order", observed)


# -- the whole log and the fork boundary ----------------------------------------------


@pytest.mark.spec("SCH-003", "SCH-020")
def test_state_survives_a_crash_because_the_log_owns_it(host, agent):
    first = agent.call_tool("schedule_create", {"prompt": "A", "after_seconds": 600}).value
    agent.call_tool("schedule_create", {"prompt": "B", "every_seconds": 900})
    agent.call_tool("schedule_delete", {"id": first["id"]})
    before = agent.call_tool("schedule_list", {}).value
    host.crash()
    resumed = host.resume(agent.session_id)
    after = resumed.call_tool("schedule_list", {}).value
    assert after == before, readme("SCH-003", "the same active records after a crash", after)
    host.advance(900)
    delivered = reminder_texts(resumed.events())
    assert len(delivered) == 1, readme("SCH-003", "the surviving Every reminder delivered",
                                       delivered)


@pytest.mark.spec("SCH-003", "SCH-042")
def test_timers_are_rebuilt_from_the_log_after_a_crash(host, agent):
    agent.call_tool("schedule_create", {"prompt": "A", "after_seconds": 600})
    host.crash()
    resumed = host.resume(agent.session_id)
    host.advance(599.999)
    assert reminder_texts(resumed.events()) == [], readme(
        "SCH-042", "no reminder before the target", reminder_texts(resumed.events()))
    host.advance(0.001)
    messages = [e for e in resumed.events() if e["type"] == "user/message"]
    assert [m["time"] for m in messages] == [1_767_226_200_000], readme(
        "SCH-003, SCH-042", "the timer rebuilt from the log to fire once, exactly at the target",
        messages)


@pytest.mark.spec("SCH-020")
def test_a_normal_session_folds_from_its_first_event(host):
    seed = seed_log(A1, ("custom/thing", {}), ("custom/thing", {}), T3, delete_change("schedule-1"))
    agent = host.create_agent(seed=seed)
    ids = [view["id"] for view in agent.call_tool("schedule_list", {}).value]
    assert ids == ["schedule-3"], readme("SCH-020", "the fold of the complete log", ids)


@pytest.mark.spec("SCH-021")
def test_fork_does_not_inherit_parent_reminders(host, agent):
    agent.call_tool("schedule_create", {"prompt": "P1", "after_seconds": 600})
    agent.call_tool("schedule_create", {"prompt": "P2", "every_seconds": 1200})
    child = host.fork(agent)
    assert child.header()["seedLength"] == len(agent.events()), readme(
        "SCH-021", "the fork's seedLength to cover the parent's events", child.header())
    listed = child.call_tool("schedule_list", {}).value
    assert listed == [], readme("SCH-021", "the fork not to inherit reminders", listed)
    created = child.call_tool("schedule_create", {"prompt": "C", "after_seconds": 3600}).value
    assert created.get("kind") == "after", readme("SCH-021", "the fork to create its own",
                                                  created)
    deleted = child.call_tool("schedule_delete", {"id": "schedule-2"}).value
    assert deleted == {"id": "schedule-2", "deleted": False, "code": "schedule_not_found"}, (
        readme("SCH-021, SCH-036", "a parent id to be not found in the fork", deleted))
    host.advance(1200)
    assert reminder_texts(child.events()) == [], readme(
        "SCH-021", "no parent reminder in the fork", reminder_texts(child.events()))
    delivered = reminder_texts(agent.events())
    assert len(delivered) == 2, readme("SCH-021", "the parent to keep its two reminders",
                                       delivered)


@pytest.mark.compat("SCH-ID-FORMAT")
@pytest.mark.spec("SCH-021")
def test_a_fork_allocates_ids_from_schedule_1_again(host, agent):
    agent.call_tool("schedule_create", {"prompt": "P1", "after_seconds": 600})
    agent.call_tool("schedule_create", {"prompt": "P2", "every_seconds": 1200})
    child = host.fork(agent)
    created = child.call_tool("schedule_create", {"prompt": "C", "after_seconds": 3600}).value
    assert created.get("id") == "schedule-1", pinned(
        "SCH-ID-FORMAT", "a fork to allocate schedule-1 again (its suffix is its own)", created)


@pytest.mark.spec("SCH-021")
def test_fork_suffix_that_touches_a_parent_id_is_corrupt(host, agent):
    created = agent.call_tool("schedule_create", {"prompt": "P1", "after_seconds": 600}).value
    child = host.fork(agent)
    child.append_event("schedule/change", delete_change(created["id"]))
    value = child.call_tool("schedule_list", {}).value
    assert code_of(value) == "corrupt_schedule_log", readme(
        "SCH-021", "a fork suffix deleting a parent id to be corrupt", value)
    parent = agent.call_tool("schedule_list", {}).value
    assert parent[0]["id"] == created["id"], readme("SCH-021", "the parent unaffected", parent)


@pytest.mark.spec("SCH-021")
def test_fork_child_owns_its_suffix_across_resume(host, agent):
    agent.call_tool("schedule_create", {"prompt": "P1", "after_seconds": 600})
    child = host.fork(agent)
    child.call_tool("schedule_create", {"prompt": "C1", "after_seconds": 900})
    host.crash()
    resumed = host.resume(child.session_id)
    prompts = [v["prompt"] for v in resumed.call_tool("schedule_list", {}).value]
    assert prompts == ["C1"], readme("SCH-021", "the resumed fork to list only its own", prompts)
    host.advance(900)
    delivered = reminder_texts(resumed.events())
    assert len(delivered) == 1 and '"C1"' in delivered[0], readme(
        "SCH-021", "the resumed fork to deliver its own reminder C1 only", delivered)


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
    listed = agent.call_tool("schedule_list", {}).value
    assert listed == [_view(r) for r in log.active], readme(
        "SCH-014, SCH-018, SCH-020, SCH-035", f"the fold of the generated log: {log.active}",
        listed)
    created = agent.call_tool("schedule_create", {"prompt": "next", "after_seconds": 1}).value
    assert created["id"] not in log.seen_ids, readme(
        "SCH-034", f"an id the log never used ({log.seen_ids})", created)


@pytest.mark.spec("SCH-019")
@REUSE_HOST
@given(log=corrupt_schedule_logs())
def test_any_corrupt_log_is_reported_as_corrupt(quiet_host, log):
    agent = quiet_host.create_agent(seed=seed_log(*log.changes))
    value = agent.call_tool("schedule_list", {}).value
    assert code_of(value) == "corrupt_schedule_log", readme(
        "SCH-019", f"corrupt_schedule_log for a log breaking {log.rule!r}", value)

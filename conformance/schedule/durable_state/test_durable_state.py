"""README section "Durable state": the version-1 ``schedule/change`` union, what
each record stores, replay strictness, and the fork boundary.

Readme-level tests observe the log without its layout (the README names the
event type and what each change contains, not where): values are looked for
anywhere in an event's data (``dsh_conformance.layout_free``), and the logs
replay checks are written by the implementation's own tools, then changed only
in ways that need no layout (a change repeated, the same change about another
id, an extra field added). The official layout (pin SCH-PAYLOAD-LAYOUT), logs
spelled in it (pin SCH-LOG-INTEROP) and which closed code a corrupt log gets
(pin SCH-CODE-MAPPING) are compat-level twins."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from dsh_conformance.expect import code_of, pinned, readme
from dsh_conformance.layout_free import CLOSED_CODES, closed_codes_in, json_scalars, mentions
from dsh_conformance.schedule.session_logs import (
    add_field,
    after_create,
    at_create,
    changes,
    delete_change,
    dispatch_change,
    every_create,
    instants_in,
    mapping_paths,
    reminder_framings,
    replace_scalar,
    reseed,
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


def _ms(instant: str) -> int:
    (ms,) = instants_in(instant)
    return ms


def _id_of(value: Any, sentences: str = "SCH-015, SCH-034") -> str:
    """The ScheduleId a create answered; a failed create says so instead of a KeyError."""
    schedule_id = value.get("id") if isinstance(value, dict) else None
    assert isinstance(schedule_id, str), readme(
        sentences, "schedule_create to succeed and answer the new record with its ScheduleId "
        "(the field id, as in every value the README spells)", value)
    return schedule_id


def _create(agent: Any, prompt: str, **selector: Any) -> str:
    return _id_of(agent.call_tool("schedule_create", {"prompt": prompt, **selector}).value)


def _only_change(agent: Any, sentences: str) -> Any:
    written = changes(agent.events())
    assert len(written) == 1, readme(
        sentences, "one create to append exactly one schedule/change event", written)
    return written[0]


def _values(data: Any) -> list[Any]:
    """The scalars of a change that are not object keys."""
    keys = set()
    for path in mapping_paths(data):
        node = data
        for step in path:
            node = node[step]
        keys.update(node)
    return [scalar for scalar in json_scalars(data) if scalar not in keys]


#: Stored values SCH-016 names beyond id, prompt and scheduledAt, per payload case.
STORED = {"after": [90], "at-offset": [], "at-local": [], "every": [3600]}
#: What SCH-016 says an at record does not copy: submitted offset, local fields, zone.
NOT_COPIED = ("+01:00", "09:30", "Europe/Berlin", "2026-01-02T09")


@pytest.mark.spec("SCH-014", "SCH-015", "SCH-016")
@PAYLOADS
@pytest.mark.dsh_probe(
    "create-appends-one-change",
    "schedule_create appends one change holding the id, prompt and scheduledAt",
)
def test_create_appends_a_schedule_change_containing_the_record(agent, arguments, record,
                                                                 request):
    created = agent.call_tool("schedule_create", arguments).value
    schedule_id = _id_of(created)
    change = _only_change(agent, "SCH-014, SCH-034")
    case = request.node.callspec.id
    for needle in [schedule_id, record["prompt"], *STORED[case]]:
        assert mentions(change, needle), readme(
            "SCH-015, SCH-016", f"the create record to contain {needle!r} (the id, the trimmed "
            "prompt, the stored interval)", change)
    assert _ms(record["scheduledAt"]) in instants_in(change), readme(
        "SCH-015", f"the create record to contain the RFC 3339 UTC scheduledAt "
        f"{record['scheduledAt']}", change)
    if case.startswith("at"):
        copies = [v for v in json_scalars(change)
                  if isinstance(v, str) and any(part in v for part in NOT_COPIED)]
        assert copies == [], readme(
            "SCH-016", "an at record to store no copy of its submitted offset, local calendar "
            "fields or zone", change)


@pytest.mark.compat("SCH-PAYLOAD-LAYOUT")
@pytest.mark.spec("SCH-014", "SCH-015", "SCH-016")
@PAYLOADS
def test_create_appends_exactly_the_official_payload(agent, arguments, record):
    created = agent.call_tool("schedule_create", arguments).value
    (change,) = changes(agent.events())
    # The id is the implementation's (its format is pinned detail SCH-ID-FORMAT).
    expected = {"version": 1, "operation": "create",
                "schedule": {**record, "id": created.get("id")}}
    assert change == expected, pinned(
        "SCH-PAYLOAD-LAYOUT", f"exactly the version-1 create {expected}", change)


@pytest.mark.compat("SCH-PAYLOAD-KEY-ORDER")
@pytest.mark.spec("SCH-014", "SCH-015", "SCH-016")
@PAYLOADS
def test_create_payload_keys_are_in_the_official_order(agent, arguments, record):
    agent.call_tool("schedule_create", arguments)
    (change,) = changes(agent.events())
    record_keys = list(change["schedule"]) if isinstance(change.get("schedule"), dict) else None
    observed = [list(change), record_keys]
    expected = [["version", "operation", "schedule"], list(record)]
    assert observed == expected, pinned("SCH-PAYLOAD-KEY-ORDER", f"the key order {expected}",
                                        observed)


@pytest.mark.spec("SCH-017")
def test_delete_carries_only_the_id(agent):
    schedule_id = _create(agent, "Stretch now", after_seconds=600)
    (create,) = changes(agent.events())
    agent.call_tool("schedule_delete", {"id": schedule_id})
    written = changes(agent.events())
    assert len(written) == 2, readme("SCH-036", "an actual delete to append one change",
                                     written)
    delete = written[-1]
    assert mentions(delete, schedule_id), readme("SCH-017", "the delete to carry the id",
                                                 delete)
    assert not mentions(delete, "Stretch now") and not instants_in(delete) and not mentions(
        delete, 600), readme(
        "SCH-017", "a delete carrying only the id (not the prompt, scheduledAt or interval of "
        f"its create {create})", delete)


@pytest.mark.compat("SCH-PAYLOAD-LAYOUT")
@pytest.mark.spec("SCH-017")
def test_delete_is_exactly_the_official_payload(agent):
    created = agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 600}).value
    agent.call_tool("schedule_delete", {"id": created.get("id")})
    delete = changes(agent.events())[-1]
    assert delete == {"version": 1, "operation": "delete", "id": created.get("id")}, pinned(
        "SCH-PAYLOAD-LAYOUT", "a delete carrying only version, operation and the id", delete)


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
    schedule_id = _id_of(agent.call_tool("schedule_create", arguments).value)
    host.advance(60)
    written = changes(agent.events())
    assert len(written) == 2, readme(
        "SCH-048, SCH-049", "a due one-shot to append one dispatch change", written)
    dispatch = written[-1]
    assert mentions(dispatch, schedule_id), readme("SCH-017, SCH-049",
                                                   "the dispatch to carry the id", dispatch)
    assert not mentions(dispatch, "x") and not instants_in(dispatch) and not mentions(
        dispatch, 60), readme(
        "SCH-017", "a one-shot dispatch carrying only the id (no prompt, instant or delay)",
        dispatch)


@pytest.mark.compat("SCH-PAYLOAD-LAYOUT")
@pytest.mark.spec("SCH-017", "SCH-049")
@ONE_SHOTS
def test_one_shot_dispatch_is_exactly_the_official_payload(host, agent, arguments):
    created = agent.call_tool("schedule_create", arguments).value
    host.advance(60)
    dispatch = changes(agent.events())[-1]
    assert dispatch == {"version": 1, "operation": "dispatch", "id": created.get("id")}, pinned(
        "SCH-PAYLOAD-LAYOUT", "a one-shot dispatch carrying only version, operation and the id",
        dispatch)


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
    schedule_id = _id_of(created)
    (create,) = changes(agent.events())
    assert _ms("2026-01-01T00:05:07.000Z") in instants_in(create), readme(
        "SCH-016", "the every record's scheduledAt to be the first creation-anchored "
        "occurrence 00:05:07", create)
    host.advance(300)
    written = changes(agent.events())
    assert len(written) == 2 and mentions(written[-1], schedule_id), readme(
        "SCH-018, SCH-050", "a due Every record to append one dispatch carrying its id",
        written)
    assert not mentions(written[-1], "Tick"), readme(
        "SCH-017, SCH-018", "an Every dispatch carrying the id and acceptedAt, not the prompt",
        written[-1])
    listed = agent.call_tool("schedule_list", {}).value
    assert isinstance(listed, list) and len(listed) == 1 and instants_in(
        listed[0].get("scheduledAt")) == {_ms("2026-01-01T00:10:07.000Z")}, readme(
        "SCH-018, SCH-035", "the record advanced to the next anchored target 00:10:07", listed)


@pytest.mark.compat("SCH-PAYLOAD-LAYOUT")
@pytest.mark.spec("SCH-018")
def test_every_dispatch_is_exactly_the_official_payload(dsh_host_factory):
    host = dsh_host_factory(start_ms=1_767_225_607_000)  # 2026-01-01T00:00:07.000Z
    host.load_plugin("schedule")
    agent = host.create_agent()
    created = agent.call_tool("schedule_create", {"prompt": "Tick", "every_seconds": 300}).value
    host.advance(300)
    dispatch = changes(agent.events())[-1]
    expected = {"version": 1, "operation": "dispatch", "id": created.get("id"),
                "acceptedAt": "2026-01-01T00:05:07.000Z"}
    assert dispatch == expected, pinned(
        "SCH-PAYLOAD-LAYOUT", f"the Every dispatch {expected}", dispatch)


@pytest.mark.compat("SCH-PAYLOAD-KEY-ORDER")
@pytest.mark.spec("SCH-018")
def test_every_dispatch_keys_are_in_the_official_order(host, agent):
    agent.call_tool("schedule_create", {"prompt": "Tick", "every_seconds": 300})
    host.advance(300)
    dispatch = changes(agent.events())[-1]
    expected = ["version", "operation", "id", "acceptedAt"]
    assert list(dispatch) == expected, pinned("SCH-PAYLOAD-KEY-ORDER",
                                              f"the key order {expected}", list(dispatch))


@pytest.mark.spec("SCH-018", "SCH-050", "SCH-020")
@pytest.mark.parametrize(
    ("crashed_for_s", "next_target"),
    [(4_033, "2026-01-01T01:10:00.000Z"), (600, "2026-01-01T00:15:00.000Z"),
     (300, "2026-01-01T00:10:00.000Z")],
    ids=["between-occurrences", "on-an-occurrence", "on-the-target"],
)
@pytest.mark.dsh_probe(
    "every-dispatch-replays-aligned",
    "An every dispatch replays to the next target on the creation grid",
)
def test_a_written_every_dispatch_replays_to_the_first_aligned_target_after_it(
    host, agent, crashed_for_s, next_target
):
    # Created at 00:00: occurrences every 5 minutes. Resumed after the crash, the
    # owner decides once at the resume time (the decision time the dispatch adds).
    _create(agent, "Tick", every_seconds=300)
    host.crash()
    host.advance(crashed_for_s)
    resumed = host.resume(agent.session_id)
    resumed.call_tool("schedule_list", {})
    assert len(changes(resumed.events())) == 2, readme(
        "SCH-042, SCH-050", "the overdue Every record dispatched once after the resume",
        changes(resumed.events()))
    listed = resumed.call_tool("schedule_list", {}).value
    # A fresh session folding the written log replays the dispatch's acceptedAt.
    replayed = host.create_agent(seed=reseed(resumed.events())).call_tool(
        "schedule_list", {}).value
    for value in (listed, replayed):
        assert isinstance(value, list) and len(value) == 1 and instants_in(
            value[0].get("scheduledAt")) == {_ms(next_target)}, readme(
            "SCH-018, SCH-050", f"the record to advance to the first aligned target after the "
            f"decision time, {next_target}, live and on replay", value)


@pytest.mark.compat("SCH-LOG-INTEROP")
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
    listed = agent.call_tool("schedule_list", {}).value
    targets = [v.get("scheduledAt") for v in listed] if isinstance(listed, list) else listed
    assert targets == [next_target], pinned(
        "SCH-LOG-INTEROP", f"replay of an official log to advance to the first aligned target "
        f"after {accepted_at}: {next_target}", listed)


# -- ids ----------------------------------------------------------------------------


@pytest.mark.spec("SCH-015", "SCH-034")
@pytest.mark.dsh_probe("ids-never-reused", "A deleted record's id is never given to a new record")
def test_ids_are_never_reused(host, agent):
    ids = [_create(agent, p, after_seconds=600) for p in ("a", "b")]
    agent.call_tool("schedule_delete", {"id": ids[1]})
    ids.append(_create(agent, "c", after_seconds=60))
    host.advance(60)  # the third is dispatched: its id is terminal
    ids.append(_create(agent, "d", after_seconds=60))
    assert len(set(ids)) == 4, readme(
        "SCH-015, SCH-034", "a never-reused id for every create, even after a delete and a "
        "dispatch", ids)
    assert all(isinstance(i, str) and i and i == i.strip() for i in ids), readme(
        "SCH-015", "ids that are non-empty strings", ids)


@pytest.mark.compat("SCH-ID-FORMAT")
@pytest.mark.spec("SCH-015", "SCH-034")
def test_ids_are_session_local_and_never_reused(host, agent):
    def create(on: Any, prompt: str, seconds: int) -> Any:
        value = on.call_tool("schedule_create", {"prompt": prompt, "after_seconds": seconds})
        return value.value.get("id") if isinstance(value.value, dict) else value.value

    ids = [create(agent, p, 600) for p in ("a", "b")]
    agent.call_tool("schedule_delete", {"id": "schedule-2"})
    ids.append(create(agent, "c", 60))
    host.advance(60)  # schedule-3 is dispatched: its id is terminal
    ids.append(create(agent, "d", 60))
    ids.append(create(host.create_agent(), "e", 60))
    expected = ["schedule-1", "schedule-2", "schedule-3", "schedule-4", "schedule-1"]
    assert ids == expected, pinned(
        "SCH-ID-FORMAT", f"the ids {expected} (counting per session from schedule-1)", ids)


@pytest.mark.spec("SCH-015", "SCH-034", "SCH-020")
def test_ids_are_never_reused_across_a_crash_and_a_replay(host, agent):
    ids = [_create(agent, "a", after_seconds=60), _create(agent, "b", after_seconds=600)]
    agent.call_tool("schedule_delete", {"id": ids[1]})
    host.advance(60)  # the first is dispatched: its id is terminal
    host.crash()
    resumed = host.resume(agent.session_id)
    ids.append(_create(resumed, "c", after_seconds=600))
    replayed = host.create_agent(seed=reseed(resumed.events()))
    ids.append(_create(replayed, "d", after_seconds=600))
    assert len(set(ids)) == 4, readme(
        "SCH-015, SCH-034", "a never-reused id after a resume and in a replay of the written "
        "log (deleted, dispatched and active ids included)", ids)


@pytest.mark.compat("SCH-LOG-INTEROP")
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
    assert isinstance(value, dict) and value.get("id") not in used | {None}, pinned(
        "SCH-LOG-INTEROP", f"a create over an official log to succeed with a never-reused id "
        f"(the log used {sorted(used)})", value)


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


@pytest.mark.compat("SCH-LOG-INTEROP", "SCH-CODE-MAPPING")
@pytest.mark.spec("SCH-014", "SCH-019", "SCH-039")
@pytest.mark.parametrize("entries", list(CORRUPT_LOGS.values()), ids=list(CORRUPT_LOGS))
def test_list_over_a_corrupt_official_log_reports_corrupt_schedule_log(host, entries):
    agent = host.create_agent(seed=seed_log(*entries))
    result = agent.call_tool("schedule_list", {})
    assert result.is_error is False, readme("SCH-039", "a closed value, not a host error",
                                            result.error)
    assert code_of(result.value) == "corrupt_schedule_log", pinned(
        "SCH-CODE-MAPPING", "corrupt_schedule_log for an official log replay rejects",
        result.value)


@pytest.mark.compat("SCH-LOG-INTEROP", "SCH-CODE-MAPPING")
@pytest.mark.spec("SCH-019", "SCH-039")
@pytest.mark.parametrize("case", ["reused-id", "one-shot-dispatch-with-accepted-at", "version-2"])
def test_create_over_a_corrupt_official_log_reports_corrupt_and_appends_nothing(host, case):
    agent = host.create_agent(seed=seed_log(*CORRUPT_LOGS[case]))
    before = changes(agent.events())
    value = agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 60}).value
    assert code_of(value) == "corrupt_schedule_log", pinned(
        "SCH-CODE-MAPPING", "corrupt_schedule_log from create over a corrupt log", value)
    assert changes(agent.events()) == before, readme("SCH-019", "nothing appended",
                                                     changes(agent.events()))


@pytest.mark.compat("SCH-LOG-INTEROP", "SCH-CODE-MAPPING")
@pytest.mark.spec("SCH-019", "SCH-039")
@pytest.mark.parametrize("case", ["delete-twice", "every-dispatch-without-accepted-at"])
@pytest.mark.parametrize("target", ["schedule-1", "schedule-2", "schedule-9"])
def test_delete_over_a_corrupt_official_log_reports_corrupt_and_appends_nothing(
    host, case, target
):
    agent = host.create_agent(seed=seed_log(*CORRUPT_LOGS[case]))
    before = changes(agent.events())
    value = agent.call_tool("schedule_delete", {"id": target}).value
    assert code_of(value) == "corrupt_schedule_log", pinned(
        "SCH-CODE-MAPPING", "corrupt_schedule_log from delete over a corrupt log", value)
    assert changes(agent.events()) == before, readme("SCH-019", "nothing appended",
                                                     changes(agent.events()))


# -- replay of logs the implementation wrote, changed without knowing their layout ------

Log = list[dict[str, Any]]


def _last_change(agent: Any, sentences: str, needle: str) -> dict[str, Any]:
    """The last ``schedule/change`` event mentioning ``needle`` (an id or a prompt)."""
    found = [e for e in agent.events() if e["type"] == "schedule/change"
             and mentions(e["data"], needle)]
    assert found, readme(sentences, f"a schedule/change event mentioning {needle!r}; observed "
                         "none, so the log cannot be changed", changes(agent.events()))
    return dict(found[-1])


def _again(event: dict[str, Any], old: str | None = None, new: str | None = None) -> dict:
    data = event["data"] if old is None or new is None else replace_scalar(event["data"], old, new)
    return {**event, "data": data}


def _reused_id(host: Any, agent: Any) -> tuple[Log, Log]:
    _create(agent, "A", after_seconds=600)
    log = agent.events()
    return log, [*log, _again(_last_change(agent, "SCH-034", "A"))]


def _reused_after_delete(host: Any, agent: Any) -> tuple[Log, Log]:
    a = _create(agent, "A", after_seconds=600)
    create = _last_change(agent, "SCH-034", "A")
    agent.call_tool("schedule_delete", {"id": a})
    log = agent.events()
    return log, [*log, _again(create)]


def _reused_after_dispatch(host: Any, agent: Any) -> tuple[Log, Log]:
    _create(agent, "A", after_seconds=60)
    create = _last_change(agent, "SCH-034", "A")
    host.advance(60)
    log = agent.events()
    return log, [*log, _again(create)]


def _delete_twice(host: Any, agent: Any) -> tuple[Log, Log]:
    a = _create(agent, "A", after_seconds=600)
    agent.call_tool("schedule_delete", {"id": a})
    log = agent.events()
    return log, [*log, _again(_last_change(agent, "SCH-036", a))]


def _delete_after_dispatch(host: Any, agent: Any) -> tuple[Log, Log]:
    a = _create(agent, "A", after_seconds=60)
    b = _create(agent, "B", after_seconds=600)
    agent.call_tool("schedule_delete", {"id": b})
    delete = _last_change(agent, "SCH-036", b)
    host.advance(60)
    log = agent.events()
    return log, [*log, _again(delete, b, a)]


def _dispatch_after_delete(host: Any, agent: Any) -> tuple[Log, Log]:
    a = _create(agent, "A", after_seconds=60)
    b = _create(agent, "B", after_seconds=600)
    host.advance(60)
    dispatch = _last_change(agent, "SCH-049", a)
    agent.call_tool("schedule_delete", {"id": b})
    log = agent.events()
    return log, [*log, _again(dispatch, a, b)]


def _dispatched_twice(host: Any, agent: Any) -> tuple[Log, Log]:
    a = _create(agent, "A", after_seconds=60)
    host.advance(60)
    log = agent.events()
    return log, [*log, _again(_last_change(agent, "SCH-049", a))]


def _one_shot_with_every_shape(host: Any, agent: Any) -> tuple[Log, Log]:
    e = _create(agent, "E", every_seconds=300)
    a = _create(agent, "A", after_seconds=600)
    host.advance(300)
    log = agent.events()
    return log, [*log, _again(_last_change(agent, "SCH-050", e), e, a)]


def _every_with_one_shot_shape(host: Any, agent: Any) -> tuple[Log, Log]:
    a = _create(agent, "A", after_seconds=60)
    e = _create(agent, "E", every_seconds=600)
    host.advance(60)
    log = agent.events()
    return log, [*log, _again(_last_change(agent, "SCH-049", a), a, e)]


#: Logs the implementation wrote (clean), and the same log with one change that
#: breaks a replay rule of SCH-019 (corrupt), made without knowing the layout.
SELF_CORRUPTIONS: dict[str, Callable[[Any, Any], tuple[Log, Log]]] = {
    "reused-id": _reused_id,
    "reused-id-after-delete": _reused_after_delete,
    "reused-id-after-dispatch": _reused_after_dispatch,
    "delete-twice": _delete_twice,
    "delete-after-dispatch": _delete_after_dispatch,
    "dispatch-after-delete": _dispatch_after_delete,
    "one-shot-dispatched-twice": _dispatched_twice,
    "one-shot-dispatch-in-the-every-shape": _one_shot_with_every_shape,
    "every-dispatch-in-the-one-shot-shape": _every_with_one_shot_shape,
}
SELF_CORRUPT = pytest.mark.parametrize("case", list(SELF_CORRUPTIONS))


def _corrupted(host: Any, case: str) -> tuple[Any, Log]:
    """A fresh session over the corrupt log, after checking the clean log replays."""
    clean, corrupt = SELF_CORRUPTIONS[case](host, host.create_agent())
    listed = host.create_agent(seed=reseed(clean)).call_tool("schedule_list", {}).value
    assert isinstance(listed, list), readme(
        "SCH-003, SCH-020", "a log the implementation wrote to replay in a new session",
        listed)
    return host.create_agent(seed=reseed(corrupt)), corrupt


def _rejected(value: Any) -> bool:
    return not isinstance(value, list) and bool(closed_codes_in(value) & CLOSED_CODES)


@pytest.mark.spec("SCH-019", "SCH-039")
@SELF_CORRUPT
def test_list_over_a_written_log_broken_by_one_change_answers_a_closed_code(host, case):
    agent, _ = _corrupted(host, case)
    result = agent.call_tool("schedule_list", {})
    assert result.is_error is False and _rejected(result.value), readme(
        "SCH-019, SCH-039", f"replay to reject the written log broken by {case}: a closed "
        "version-1 code, not a list", result.value if result.is_error is False else result.error)


@pytest.mark.spec("SCH-019", "SCH-039")
@SELF_CORRUPT
def test_create_and_delete_over_a_broken_written_log_append_nothing(host, case):
    agent, _ = _corrupted(host, case)
    before = changes(agent.events())
    created = agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 60}).value
    deleted = agent.call_tool("schedule_delete", {"id": "never-allocated"}).value
    assert _rejected(created) and _rejected(deleted), readme(
        "SCH-019, SCH-039", f"create and delete over the log broken by {case} to answer a "
        "closed version-1 code", [created, deleted])
    assert changes(agent.events()) == before, readme("SCH-019", "nothing appended",
                                                     changes(agent.events()))


@pytest.mark.spec("SCH-019", "SCH-042")
@SELF_CORRUPT
def test_a_broken_written_log_never_dispatches(host, case):
    agent, corrupt = _corrupted(host, case)
    host.advance(3600)
    assert reminder_framings(agent.events()) == reminder_framings(corrupt), readme(
        "SCH-019", "no reminder from a log replay rejects", reminder_framings(agent.events()))
    assert changes(agent.events()) == changes(corrupt), readme(
        "SCH-019", "no change appended to a log replay rejects", changes(agent.events()))


@pytest.mark.compat("SCH-CODE-MAPPING")
@pytest.mark.spec("SCH-019", "SCH-039")
@SELF_CORRUPT
def test_a_broken_written_log_answers_corrupt_schedule_log(host, case):
    agent, _ = _corrupted(host, case)
    value = agent.call_tool("schedule_list", {}).value
    assert code_of(value) == "corrupt_schedule_log", pinned(
        "SCH-CODE-MAPPING", f"corrupt_schedule_log for the written log broken by {case}", value)


EXTRA_FIELD_IN = {
    "after-create": lambda host, agent: (_create(agent, "A", after_seconds=600), "A"),
    "at-create": lambda host, agent: (_create(agent, "T", at="2026-06-01T00:00:00Z"), "T"),
    "every-create": lambda host, agent: (_create(agent, "E", every_seconds=600), "E"),
    "delete": lambda host, agent: (
        agent.call_tool("schedule_delete", {"id": _create(agent, "D", after_seconds=600)}),
        "delete"),
    "one-shot-dispatch": lambda host, agent: (
        (_create(agent, "O", after_seconds=60), host.advance(60)), "dispatch"),
    "every-dispatch": lambda host, agent: (
        (_create(agent, "E", every_seconds=300), host.advance(300)), "dispatch"),
}


@pytest.mark.spec("SCH-019")
@pytest.mark.parametrize("change", list(EXTRA_FIELD_IN))
def test_replay_rejects_an_extra_field_in_any_object_of_a_written_change(host, change):
    """Each object of the change (its top level and any nested record) gets one field
    more; every such log is rejected, and the unchanged log is not."""
    agent = host.create_agent()
    EXTRA_FIELD_IN[change](host, agent)
    log = agent.events()
    last = max(i for i, e in enumerate(log) if e["type"] == "schedule/change")
    clean = host.create_agent(seed=reseed(log)).call_tool("schedule_list", {}).value
    assert isinstance(clean, list), readme(
        "SCH-003, SCH-020", "a log the implementation wrote to replay", clean)
    accepted = []
    for path in mapping_paths(log[last]["data"]):
        broken = [*log[:last], {**log[last], "data": add_field(log[last]["data"], path,
                                                                "unexpectedField", "x")},
                  *log[last + 1:]]
        value = host.create_agent(seed=reseed(broken)).call_tool("schedule_list", {}).value
        if not _rejected(value):
            accepted.append((path, value))
    assert mapping_paths(log[last]["data"]) and accepted == [], readme(
        "SCH-019", f"replay to reject the written {change} change with an extra field in any "
        "of its objects; accepted (object path, list)", accepted)


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


@pytest.mark.compat("SCH-LOG-INTEROP", "SCH-VIEW-FIELDS")
@pytest.mark.spec("SCH-014", "SCH-019", "SCH-020", "SCH-035")
@FOLDS
def test_list_folds_a_valid_official_log(host, entries, records):
    agent = host.create_agent(seed=seed_log(*entries))
    value = agent.call_tool("schedule_list", {}).value
    assert value == [_view(record) for record in records], pinned(
        "SCH-LOG-INTEROP",
        "the fold's active records in creation order", value)


@pytest.mark.spec("SCH-003", "SCH-014", "SCH-020", "SCH-035")
def test_a_written_log_replays_to_the_same_list_whatever_events_surround_it(host, agent):
    """Creates of the three kinds, a delete, a dispatch, and other plugins' events in
    between: resumed after a crash, and folded by a fresh session, the log the
    implementation wrote lists the same records."""
    agent.call_tool("schedule_create", {"prompt": "T", "at": "2026-06-01T00:00:00Z"})
    agent.append_event("custom/thing", {"note": "another plugin's event"})
    a = _create(agent, "A", after_seconds=600)
    _create(agent, "D", after_seconds=60)
    agent.append_event("custom/thing", {"note": "another"})
    _create(agent, "E", every_seconds=900)
    agent.call_tool("schedule_delete", {"id": a})
    host.advance(60)
    before = agent.call_tool("schedule_list", {}).value
    assert isinstance(before, list) and len(before) == 2, readme(
        "SCH-035", "the at and Every records active (the after deleted, the other dispatched)",
        before)
    host.crash()
    resumed = host.resume(agent.session_id).call_tool("schedule_list", {}).value
    replayed = host.create_agent(seed=reseed(agent.events())).call_tool(
        "schedule_list", {}).value
    assert resumed == before and replayed == before, readme(
        "SCH-003, SCH-020", f"the written log to replay to the same list {before}",
        {"resumed": resumed, "replayed in a new session": replayed})


# -- the whole log and the fork boundary ----------------------------------------------


@pytest.mark.spec("SCH-020")
def test_a_normal_session_folds_from_its_first_event(host, agent):
    # The create sits at the very start of the log: a fold that skipped it would
    # reject the later delete.
    first = _create(agent, "first", after_seconds=600)
    agent.append_event("custom/thing", {})
    kept = _create(agent, "kept", after_seconds=600)
    agent.call_tool("schedule_delete", {"id": first})
    log = reseed(agent.events())
    assert changes(log[:1]) and mentions(log[0]["data"], first), readme(
        "SCH-034", "the first create to be the log's first event", log[:1])
    value = host.create_agent(seed=log).call_tool("schedule_list", {}).value
    ids = [view.get("id") for view in value] if isinstance(value, list) else value
    assert ids == [kept], readme("SCH-020", "the fold of the complete log", ids)


@pytest.mark.compat("SCH-LOG-INTEROP")
@pytest.mark.spec("SCH-020")
def test_a_normal_session_folds_an_official_log_from_its_first_event(host):
    seed = seed_log(A1, ("custom/thing", {}), ("custom/thing", {}), T3, delete_change("schedule-1"))
    agent = host.create_agent(seed=seed)
    value = agent.call_tool("schedule_list", {}).value
    ids = [view.get("id") for view in value] if isinstance(value, list) else value
    assert ids == ["schedule-3"], pinned("SCH-LOG-INTEROP", "the fold of the complete log",
                                         ids)


@pytest.mark.spec("SCH-021")
def test_fork_does_not_inherit_parent_reminders(host, agent):
    _create(agent, "P1", after_seconds=600)
    p2 = _create(agent, "P2", every_seconds=1200)
    child = host.fork(agent)
    assert child.header()["seedLength"] == len(agent.events()), readme(
        "SCH-021", "the fork's seedLength to cover the parent's events", child.header())
    listed = child.call_tool("schedule_list", {}).value
    assert listed == [], readme("SCH-021", "the fork not to inherit reminders", listed)
    _id_of(child.call_tool("schedule_create", {"prompt": "C", "after_seconds": 3600}).value,
           "SCH-021, SCH-034")
    # The child's own new id may spell like P2's (ids are Session-local): ask only
    # when they differ.
    child_ids = {v.get("id") for v in child.call_tool("schedule_list", {}).value}
    if p2 not in child_ids:
        deleted = child.call_tool("schedule_delete", {"id": p2}).value
        assert deleted == {"id": p2, "deleted": False, "code": "schedule_not_found"}, (
            readme("SCH-021, SCH-036", "a parent id to be not found in the fork", deleted))
    host.advance(1200)
    assert reminder_framings(child.events()) == [], readme(
        "SCH-021", "no parent reminder in the fork", reminder_framings(child.events()))
    delivered = reminder_framings(agent.events())
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


def _fork_deleting_a_parent_record(host: Any, agent: Any) -> tuple[Any, str]:
    """(child, parent id): the child's suffix holds the parent's own delete change,
    made about a record active in the parent."""
    p1 = _create(agent, "P1", after_seconds=600)
    z = _create(agent, "Z", after_seconds=600)
    agent.call_tool("schedule_delete", {"id": z})
    delete = _last_change(agent, "SCH-036", z)
    child = host.fork(agent)
    child.append_event("schedule/change", replace_scalar(delete["data"], z, p1))
    return child, p1


@pytest.mark.spec("SCH-021", "SCH-019")
def test_fork_suffix_that_touches_a_parent_id_is_rejected(host, agent):
    child, p1 = _fork_deleting_a_parent_record(host, agent)
    value = child.call_tool("schedule_list", {}).value
    assert _rejected(value), readme(
        "SCH-019, SCH-021", "a fork suffix deleting a parent id to be a delete against an "
        "inactive record: a closed code, not a list", value)
    parent = agent.call_tool("schedule_list", {}).value
    assert [view.get("id") for view in parent] == [p1], readme(
        "SCH-021", "the parent unaffected", parent)


@pytest.mark.compat("SCH-CODE-MAPPING")
@pytest.mark.spec("SCH-021")
def test_fork_suffix_that_touches_a_parent_id_answers_corrupt_schedule_log(host, agent):
    child, _ = _fork_deleting_a_parent_record(host, agent)
    value = child.call_tool("schedule_list", {}).value
    assert code_of(value) == "corrupt_schedule_log", pinned(
        "SCH-CODE-MAPPING", "a fork suffix deleting a parent id to be corrupt_schedule_log",
        value)


@pytest.mark.spec("SCH-021")
def test_fork_child_owns_its_suffix_across_resume(host, agent):
    agent.call_tool("schedule_create", {"prompt": "P1", "after_seconds": 600})
    child = host.fork(agent)
    child.call_tool("schedule_create", {"prompt": "C1", "after_seconds": 900})
    host.crash()
    resumed = host.resume(child.session_id)
    listed = resumed.call_tool("schedule_list", {}).value
    assert isinstance(listed, list) and len(listed) == 1 and mentions(listed, "C1"), readme(
        "SCH-021", "the resumed fork to list only its own reminder C1", listed)
    host.advance(900)
    delivered = reminder_framings(resumed.events())
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


@pytest.mark.compat("SCH-LOG-INTEROP", "SCH-VIEW-FIELDS")
@pytest.mark.spec("SCH-014", "SCH-018", "SCH-020", "SCH-035")
@REUSE_HOST
@given(log=schedule_logs())
def test_any_valid_official_log_lists_its_fold(quiet_host, log):
    agent = quiet_host.create_agent(seed=seed_log(*log.changes))
    listed = agent.call_tool("schedule_list", {}).value
    assert listed == [_view(r) for r in log.active], pinned(
        "SCH-LOG-INTEROP", f"the fold of the generated log: {log.active}", listed)
    created = agent.call_tool("schedule_create", {"prompt": "next", "after_seconds": 1}).value
    assert created.get("id") not in [*log.seen_ids, None], readme(
        "SCH-034", f"an id the log never used ({log.seen_ids})", created)


@pytest.mark.compat("SCH-LOG-INTEROP", "SCH-CODE-MAPPING")
@pytest.mark.spec("SCH-019")
@REUSE_HOST
@given(log=corrupt_schedule_logs())
def test_any_corrupt_official_log_is_reported_as_corrupt(quiet_host, log):
    agent = quiet_host.create_agent(seed=seed_log(*log.changes))
    value = agent.call_tool("schedule_list", {}).value
    assert code_of(value) == "corrupt_schedule_log", pinned(
        "SCH-CODE-MAPPING", f"corrupt_schedule_log for a log breaking {log.rule!r}", value)

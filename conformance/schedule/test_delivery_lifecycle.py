"""README section "Delivery lifecycle": the live owner's timers, priorities,
batches, the idle phase, follow-up turns, failures and disposal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.session_logs import (
    START_MS,
    after_create,
    at_create,
    batch_framing,
    dispatches,
    every_create,
    flushes_of,
    message_content,
    one_shot_framing,
    reminder_messages,
    reminder_texts,
    seed_log,
    turn_number_of,
    user_message_fields,
)
from pytest_dsh import HostStuckError, reply_text

pytestmark = [pytest.mark.dsh_requires("schedule")]

HOUR_MS = 3_600_000
DAY_MS = 86_400_000

TRANSCRIPT_TYPES = (
    "turn/start", "user/message", "step/start", "assistant/message", "step/end", "turn/end"
)


def _create(agent: Any, arguments: dict[str, Any]) -> str:
    """Create a reminder and return the id the implementation allocated (its format is
    pinned detail SCH-ID-FORMAT, so readme-level checks never spell it)."""
    return str(agent.call_tool("schedule_create", arguments).value["id"])


def _opener_of(events, seq):
    """The ``turn/start`` of the turn holding event ``seq`` (no ``turn/end`` between)."""
    for event in reversed(events[:seq]):
        assert event["type"] != "turn/end", f"event {seq} is outside any turn"
        if event["type"] == "turn/start":
            return event
    raise AssertionError(f"event {seq} is outside any turn")


def _dispatch(schedule_id: str, accepted_at: str | None = None) -> dict[str, Any]:
    change: dict[str, Any] = {"version": 1, "operation": "dispatch", "id": schedule_id}
    if accepted_at is not None:
        change["acceptedAt"] = accepted_at
    return change


def _message_times(events: list[dict[str, Any]]) -> list[int]:
    return [event["time"] for event in reminder_messages(events)]


def _dispatch_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "schedule/change"
            and e["data"].get("operation") == "dispatch"]


# -- timing ------------------------------------------------------------------------


@pytest.mark.spec("SCH-042", "SCH-065")
def test_one_shot_fires_exactly_at_its_target(host, agent):
    id1 = _create(agent, {"prompt": "Stand up", "after_seconds": 90})
    host.advance(89.999)
    assert dispatches(agent.events()) == [], readme(
        "SCH-042, SCH-065",
        "one shot fires exactly at its target: dispatches(agent.events()) == []",
        dispatches(agent.events()),
    )
    host.advance(0.001)
    assert dispatches(agent.events()) == [_dispatch(id1)], readme(
        "SCH-042, SCH-065",
        "one shot fires exactly at its target: dispatches(agent.events()) == "
        "[_dispatch(id1)]",
        dispatches(agent.events()),
    )
    assert _dispatch_events(agent.events())[0]["time"] == START_MS + 90_000, readme(
        "SCH-042, SCH-065",
        "one shot fires exactly at its target: _dispatch_events(agent.events())[0]['time'] == "
        "START_MS + 90000",
        _dispatch_events(agent.events())[0]['time'],
    )
    assert reminder_texts(agent.events()) == [
        one_shot_framing(json.dumps(id1), "2026-01-01T00:01:30.000Z", '"Stand up"')], readme(
        "SCH-042, SCH-065",
        "one shot fires exactly at its target: reminder_texts(agent.events()) == "
        "[one_shot_framing(json.dumps(id1), '2026-01-01T00:01:30.000Z', '\"Stand up\"')]",
        reminder_texts(agent.events()),
    )


@pytest.mark.spec("SCH-042")
def test_the_earliest_target_of_the_fold_fires_first(host):
    seed = seed_log(after_create("schedule-1", "Second", 120, "2026-01-01T00:02:00.000Z"),
                    at_create("schedule-2", "First", "2026-01-01T00:01:00.000Z"))
    agent = host.create_agent(seed=seed)
    host.advance(60)
    assert dispatches(agent.events()) == [_dispatch("schedule-2")], readme(
        "SCH-042",
        "the earliest target of the fold fires first: dispatches(agent.events()) == "
        "[_dispatch('schedule-2')]",
        dispatches(agent.events()),
    )
    host.advance(60)
    assert dispatches(agent.events()) == [_dispatch("schedule-2"), _dispatch("schedule-1")], readme(
        "SCH-042",
        "the earliest target of the fold fires first: dispatches(agent.events()) == "
        "[_dispatch('schedule-2'), _dispatch('schedule-1')]",
        dispatches(agent.events()),
    )
    assert _message_times(agent.events()) == [START_MS + 60_000, START_MS + 120_000], readme(
        "SCH-042",
        "the earliest target of the fold fires first: _message_times(agent.events()) == [START_MS "
        "+ 60000, START_MS + 120000]",
        _message_times(agent.events()),
    )


@pytest.mark.spec("SCH-043")
def test_a_wait_beyond_the_platform_timer_range_is_split(host, agent):
    id1 = _create(agent, {"prompt": "Monthly", "after_seconds": 2_592_000})
    host.advance(2_147_483.647)  # the longest single platform timer
    assert dispatches(agent.events()) == [], readme(
        "SCH-043",
        "a wait beyond the platform timer range is split: dispatches(agent.events()) == []",
        dispatches(agent.events()),
    )
    wake = [r for r in flushes_of(host, agent.session_id) if r.wall_ms == START_MS + 2_147_483_647]
    assert wake, "the owner wakes at the end of the platform timer range and checks again"
    host.advance(444_516.352)
    assert dispatches(agent.events()) == [], readme(
        "SCH-043",
        "a wait beyond the platform timer range is split: dispatches(agent.events()) == []",
        dispatches(agent.events()),
    )
    host.advance(0.001)
    assert dispatches(agent.events()) == [_dispatch(id1)], readme(
        "SCH-043",
        "a wait beyond the platform timer range is split: dispatches(agent.events()) == "
        "[_dispatch(id1)]",
        dispatches(agent.events()),
    )
    assert _message_times(agent.events()) == [1_769_817_600_000], readme(
        "SCH-043",
        "a wait beyond the platform timer range is split: _message_times(agent.events()) == "
        "[1769817600000]",
        _message_times(agent.events()),
    )  # 2026-01-31T00:00:00.000Z


@pytest.mark.spec("SCH-043")
def test_a_wall_clock_rollback_never_fires_early(host, agent):
    id1 = _create(agent, {"prompt": "Roll", "after_seconds": 3600})
    host.set_wall_clock(START_MS - DAY_MS)
    host.advance(3600)  # the original timer elapses, but the wall clock says 1 day early
    assert dispatches(agent.events()) == [], readme(
        "SCH-043",
        "a wall clock rollback never fires early: dispatches(agent.events()) == []",
        dispatches(agent.events()),
    )
    host.advance(86_399)
    assert dispatches(agent.events()) == [], readme(
        "SCH-043",
        "a wall clock rollback never fires early: dispatches(agent.events()) == []",
        dispatches(agent.events()),
    )
    host.advance(1)
    assert dispatches(agent.events()) == [_dispatch(id1)], readme(
        "SCH-043",
        "a wall clock rollback never fires early: dispatches(agent.events()) == "
        "[_dispatch(id1)]",
        dispatches(agent.events()),
    )
    assert _message_times(agent.events()) == [START_MS + HOUR_MS], readme(
        "SCH-043",
        "a wall clock rollback never fires early: _message_times(agent.events()) == [START_MS + "
        "HOUR_MS]",
        _message_times(agent.events()),
    )
    assert reminder_texts(agent.events()) == [
        one_shot_framing(json.dumps(id1), "2026-01-01T01:00:00.000Z", '"Roll"')], readme(
        "SCH-043",
        "a wall clock rollback never fires early: reminder_texts(agent.events()) == "
        "[one_shot_framing(json.dumps(id1), '2026-01-01T01:00:00.000Z', '\"Roll\"')]",
        reminder_texts(agent.events()),
    )


@pytest.mark.spec("SCH-043", "SCH-037")
def test_a_forward_jump_makes_the_record_overdue_for_the_next_preflight(host, agent):
    id1 = _create(agent, {"prompt": "Jump", "after_seconds": 3600})
    host.set_wall_clock(START_MS + 5 * HOUR_MS)
    assert dispatches(agent.events()) == [], readme(
        "SCH-043, SCH-037",
        "a forward jump makes the record overdue for the next preflight: "
        "dispatches(agent.events()) == []",
        dispatches(agent.events()),
    )
    agent.call_tool("schedule_list", {})
    assert dispatches(agent.events()) == [_dispatch(id1)], readme(
        "SCH-043, SCH-037",
        "a forward jump makes the record overdue for the next preflight: "
        "dispatches(agent.events()) == [_dispatch(id1)]",
        dispatches(agent.events()),
    )
    assert reminder_texts(agent.events()) == [
        one_shot_framing(json.dumps(id1), "2026-01-01T01:00:00.000Z", '"Jump"')], readme(
        "SCH-043, SCH-037",
        "a forward jump makes the record overdue for the next preflight: "
        "reminder_texts(agent.events()) == [one_shot_framing(json.dumps(id1), "
        "'2026-01-01T01:00:00.000Z', '\"Jump\"')]",
        reminder_texts(agent.events()),
    )


@pytest.mark.spec("SCH-043")
def test_a_forward_jump_dispatches_at_the_next_wake(host, agent):
    id1 = _create(agent, {"prompt": "Jump", "after_seconds": 3600})
    _create(agent, {"prompt": "Far", "after_seconds": 30 * 3600})
    host.set_wall_clock(START_MS + 5 * HOUR_MS)
    host.advance(3600)  # the next wake: the first target on the monotonic timer
    assert dispatches(agent.events()) == [_dispatch(id1)], readme(
        "SCH-043",
        "a forward jump dispatches at the next wake: dispatches(agent.events()) == "
        "[_dispatch(id1)]",
        dispatches(agent.events()),
    )
    assert _message_times(agent.events()) == [START_MS + 6 * HOUR_MS], readme(
        "SCH-043",
        "a forward jump dispatches at the next wake: _message_times(agent.events()) == [START_MS "
        "+ 6 * HOUR_MS]",
        _message_times(agent.events()),
    )


@pytest.mark.spec("SCH-043", "SCH-045", "SCH-050", "SCH-051", "SCH-088")
def test_a_forward_jump_dispatches_one_batch_with_each_latest_occurrence(host, agent):
    id1 = _create(agent, {"prompt": "Five", "every_seconds": 300})
    id2 = _create(agent, {"prompt": "Hourly", "every_seconds": 3600})
    host.set_wall_clock(START_MS + 2 * HOUR_MS + 10_000)  # 02:00:10
    agent.call_tool("schedule_list", {})
    assert dispatches(agent.events()) == [
        _dispatch(id1, "2026-01-01T02:00:10.000Z"),
        _dispatch(id2, "2026-01-01T02:00:10.000Z"),
    ], readme(
        "SCH-043, SCH-045, SCH-050, SCH-051, SCH-088",
        "a forward jump dispatches one batch with each latest occurrence: "
        "dispatches(agent.events()) == [_dispatch(id1, '2026-01-01T02:00:10.000Z'), "
        "_dispatch(id2, '2026-01-...",
        dispatches(agent.events()),
    )
    assert reminder_texts(agent.events()) == [batch_framing(
        f'[{{"schedule_id":{json.dumps(id1)},"occurrence_at":"2026-01-01T02:00:00.000Z",'
        f'"reminder_prompt":"Five"}},{{"schedule_id":{json.dumps(id2)},'
        '"occurrence_at":"2026-01-01T02:00:00.000Z","reminder_prompt":"Hourly"}]'
    )], readme(
        "SCH-043, SCH-045, SCH-050, SCH-051, SCH-088",
        "a forward jump dispatches one batch with each latest occurrence: "
        "reminder_texts(agent.events()) == "
        "[batch_framing('[{\"schedule_id\":id1,\"occurrence_at\":\"2026-01-01T02:00:00.0...",
        reminder_texts(agent.events()),
    )
    targets = [v["scheduledAt"] for v in agent.call_tool("schedule_list", {}).value]
    assert targets == ["2026-01-01T02:05:00.000Z", "2026-01-01T03:00:00.000Z"], readme(
        "SCH-043, SCH-045, SCH-050, SCH-051, SCH-088",
        "a forward jump dispatches one batch with each latest occurrence: targets == "
        "['2026-01-01T02:05:00.000Z', '2026-01-01T03:00:00.000Z']",
        targets,
    )


@pytest.mark.spec("SCH-043", "SCH-050")
def test_a_forward_jump_batch_uses_the_wall_clock_of_the_wake(host, agent):
    id1 = _create(agent, {"prompt": "Five", "every_seconds": 300})
    id2 = _create(agent, {"prompt": "Hourly", "every_seconds": 3600})
    host.set_wall_clock(START_MS + 2 * HOUR_MS + 10_000)
    host.advance(300)  # wall clock 02:05:10
    assert dispatches(agent.events()) == [
        _dispatch(id1, "2026-01-01T02:05:10.000Z"),
        _dispatch(id2, "2026-01-01T02:05:10.000Z"),
    ], readme(
        "SCH-043, SCH-050",
        "a forward jump batch uses the wall clock of the wake: dispatches(agent.events()) == "
        "[_dispatch(id1, '2026-01-01T02:05:10.000Z'), _dispatch(id2, "
        "'2026-01-...",
        dispatches(agent.events()),
    )
    assert reminder_texts(agent.events()) == [batch_framing(
        f'[{{"schedule_id":{json.dumps(id1)},"occurrence_at":"2026-01-01T02:05:00.000Z",'
        f'"reminder_prompt":"Five"}},{{"schedule_id":{json.dumps(id2)},'
        '"occurrence_at":"2026-01-01T02:00:00.000Z","reminder_prompt":"Hourly"}]'
    )], readme(
        "SCH-043, SCH-050",
        "a forward jump batch uses the wall clock of the wake: reminder_texts(agent.events()) == "
        "[batch_framing('[{\"schedule_id\":id1,\"occurrence_at\":\"2026-01-01T02:05:00.0...",
        reminder_texts(agent.events()),
    )


# -- priority and batches -------------------------------------------------------------


@pytest.mark.spec("SCH-044", "SCH-075")
def test_due_one_shots_come_first_each_in_its_own_later_turn(dsh_host_factory):
    host = dsh_host_factory(start_ms=START_MS + 120_000)  # 00:02:00, everything is overdue
    host.load_plugin("schedule")
    seed = seed_log(
        every_create("schedule-1", "Tick", 300, "2026-01-01T00:00:30.000Z"),
        after_create("schedule-2", "Two", 60, "2026-01-01T00:01:00.000Z"),
        at_create("schedule-3", "Three", "2026-01-01T00:01:00.000Z"),
        at_create("schedule-4", "Four", "2026-01-01T00:00:10.000Z"),
    )
    agent = host.create_agent(seed=seed)
    events = agent.events()
    assert reminder_texts(events) == [
        one_shot_framing('"schedule-4"', "2026-01-01T00:00:10.000Z", '"Four"'),
        one_shot_framing('"schedule-2"', "2026-01-01T00:01:00.000Z", '"Two"'),
        one_shot_framing('"schedule-3"', "2026-01-01T00:01:00.000Z", '"Three"'),
        batch_framing('[{"schedule_id":"schedule-1","occurrence_at":"2026-01-01T00:00:30.000Z",'
                      '"reminder_prompt":"Tick"}]'),
    ], readme(
        "SCH-044, SCH-075",
        "due one shots come first each in its own later turn: reminder_texts(events) == "
        "[one_shot_framing('\"schedule-4\"', '2026-01-01T00:00:10.000Z', '\"Four\"'), "
        "one_shot_framing('...",
        reminder_texts(events),
    )
    assert dispatches(events) == [
        _dispatch("schedule-4"), _dispatch("schedule-2"), _dispatch("schedule-3"),
        _dispatch("schedule-1", "2026-01-01T00:02:00.000Z"),
    ], readme(
        "SCH-044, SCH-075",
        "due one shots come first each in its own later turn: dispatches(events) == "
        "[_dispatch('schedule-4'), _dispatch('schedule-2'), _dispatch('schedule-3'), "
        "_dispatch('schedule...",
        dispatches(events),
    )
    turns = [turn_number_of(events, m["seq"]) for m in reminder_messages(events)]
    assert None not in turns, readme(
        "SCH-044, SCH-075",
        "due one shots come first each in its own later turn: None not in turns",
        turns,
    )
    assert len(set(turns)) == 4 and turns == sorted(turns), readme(
        "SCH-044, SCH-075",
        "due one shots come first each in its own later turn: len(set(turns)) == 4 and turns == "
        "sorted(turns)",
    )
    for message in reminder_messages(events):
        # The reminder is the message of its own turn (no user prompt opened it).
        opener = _opener_of(events, message["seq"])
        (turn_message,) = [e for e in events[opener["seq"]:] if e["type"] == "user/message"
                           and turn_number_of(events, e["seq"]) == opener["data"]["turn"]]
        assert turn_message == message, readme(
            "SCH-044, SCH-075",
            "due one shots come first each in its own later turn: turn_message == message",
            turn_message,
        )


@pytest.mark.spec("SCH-045", "SCH-050", "SCH-076", "SCH-080")
def test_overdue_every_records_form_one_batch_in_target_then_creation_order(dsh_host_factory):
    host = dsh_host_factory(start_ms=START_MS + 1_200_000)  # 00:20:00
    host.load_plugin("schedule")
    seed = seed_log(
        every_create("schedule-1", "A", 300, "2026-01-01T00:01:00.000Z"),
        every_create("schedule-2", "B", 3600, "2026-01-01T00:02:00.000Z"),
        every_create("schedule-3", "C", 600, "2026-01-01T00:02:00.000Z"),
        every_create("schedule-4", "D", 900, "2026-01-01T00:00:30.000Z"),
    )
    agent = host.create_agent(seed=seed)
    accepted = "2026-01-01T00:20:00.000Z"
    assert dispatches(agent.events()) == [
        _dispatch("schedule-4", accepted), _dispatch("schedule-1", accepted),
        _dispatch("schedule-2", accepted), _dispatch("schedule-3", accepted),
    ], readme(
        "SCH-045, SCH-050, SCH-076, SCH-080",
        "overdue every records form one batch in target then creation order: "
        "dispatches(agent.events()) == [_dispatch('schedule-4', accepted), "
        "_dispatch('schedule-1', accepted), _dispatch('sched...",
        dispatches(agent.events()),
    )
    assert reminder_texts(agent.events()) == [batch_framing(
        '[{"schedule_id":"schedule-4","occurrence_at":"2026-01-01T00:15:30.000Z",'
        '"reminder_prompt":"D"},'
        '{"schedule_id":"schedule-1","occurrence_at":"2026-01-01T00:16:00.000Z",'
        '"reminder_prompt":"A"},'
        '{"schedule_id":"schedule-2","occurrence_at":"2026-01-01T00:02:00.000Z",'
        '"reminder_prompt":"B"},'
        '{"schedule_id":"schedule-3","occurrence_at":"2026-01-01T00:12:00.000Z",'
        '"reminder_prompt":"C"}]'
    )], readme(
        "SCH-045, SCH-050, SCH-076, SCH-080",
        "overdue every records form one batch in target then creation order: "
        "reminder_texts(agent.events()) == "
        "[batch_framing('[{\"schedule_id\":\"schedule-4\",\"occurrence_at\":\"2026-01-01T00:15:30.0...",
        reminder_texts(agent.events()),
    )
    listed = [(v["id"], v["scheduledAt"]) for v in agent.call_tool("schedule_list", {}).value]
    assert listed == [
        ("schedule-1", "2026-01-01T00:21:00.000Z"),
        ("schedule-2", "2026-01-01T01:02:00.000Z"),
        ("schedule-3", "2026-01-01T00:22:00.000Z"),
        ("schedule-4", "2026-01-01T00:30:30.000Z"),
    ], readme(
        "SCH-045, SCH-050, SCH-076, SCH-080",
        "overdue every records form one batch in target then creation order: listed == "
        "[('schedule-1', '2026-01-01T00:21:00.000Z'), ('schedule-2', '2026-01-01T01:02:00.000Z'), "
        "('schedule-3', '20...",
        listed,
    )


@pytest.mark.spec("SCH-050", "SCH-051")
def test_every_records_fire_on_their_own_anchors_without_a_shared_gate(host, agent):
    id1 = _create(agent, {"prompt": "A", "every_seconds": 300})
    id2 = _create(agent, {"prompt": "B", "every_seconds": 600})
    for _ in range(3):
        host.advance(300)
    assert dispatches(agent.events()) == [
        _dispatch(id1, "2026-01-01T00:05:00.000Z"),
        _dispatch(id1, "2026-01-01T00:10:00.000Z"),
        _dispatch(id2, "2026-01-01T00:10:00.000Z"),
        _dispatch(id1, "2026-01-01T00:15:00.000Z"),
    ], readme(
        "SCH-050, SCH-051",
        "every records fire on their own anchors without a shared gate: "
        "dispatches(agent.events()) == [_dispatch(id1, '2026-01-01T00:05:00.000Z'), "
        "_dispatch(id1, '2026-01-...",
        dispatches(agent.events()),
    )
    assert _message_times(agent.events()) == [
        START_MS + 300_000, START_MS + 600_000, START_MS + 900_000], readme(
        "SCH-050, SCH-051",
        "every records fire on their own anchors without a shared gate: "
        "_message_times(agent.events()) == [START_MS + 300000, START_MS + 600000, START_MS + "
        "900000]",
        _message_times(agent.events()),
    )
    assert f'"schedule_id":{json.dumps(id2)}' in reminder_texts(agent.events())[1], readme(
        "SCH-050, SCH-051",
        "every records fire on their own anchors without a shared gate: "
        "'\"schedule_id\":id2' in reminder_texts(agent.events())[1]",
        reminder_texts(agent.events())[1],
    )


@pytest.mark.spec("SCH-051", "SCH-088")
def test_missed_intervals_are_never_replayed(host, agent):
    id1 = _create(agent, {"prompt": "Tick", "every_seconds": 300})
    host.crash()
    host.advance(10 * 3600 + 42)
    resumed = host.resume(agent.session_id)
    assert (
        dispatches(resumed.events()) == [_dispatch(id1, "2026-01-01T10:00:42.000Z")]
    ), readme(
        "SCH-051, SCH-088",
        "missed intervals are never replayed: dispatches(resumed.events()) == "
        "[_dispatch(id1, '2026-01-01T10:00:42.000Z')]",
        dispatches(resumed.events()),
    )
    assert reminder_texts(resumed.events()) == [batch_framing(
        f'[{{"schedule_id":{json.dumps(id1)},"occurrence_at":"2026-01-01T10:00:00.000Z",'
        '"reminder_prompt":"Tick"}]')], readme(
        "SCH-051, SCH-088",
        "missed intervals are never replayed: reminder_texts(resumed.events()) == "
        "[batch_framing('[{\"schedule_id\":id1,\"occurrence_at\":\"2026-01-01T10:00:00...",
        reminder_texts(resumed.events()),
    )
    host.advance(258)
    assert len(dispatches(resumed.events())) == 2, readme(
        "SCH-051, SCH-088",
        "missed intervals are never replayed: len(dispatches(resumed.events())) == 2",
        len(dispatches(resumed.events())),
    )


# -- checkpoints and the idle phase ----------------------------------------------------


@pytest.mark.spec("SCH-046", "SCH-052")
def test_a_due_reminder_is_checkpointed_before_and_after_its_dispatch(host, agent):
    agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 60})
    seen = len(flushes_of(host, agent.session_id))
    host.advance(60)
    (dispatch,) = _dispatch_events(agent.events())
    at_target = [r for r in flushes_of(host, agent.session_id)[seen:]
                 if r.wall_ms == START_MS + 60_000]
    lengths = [r.durable_length for r in at_target]
    before = [i for i, n in enumerate(lengths) if n <= dispatch["seq"]]
    after = [i for i, n in enumerate(lengths) if n > dispatch["seq"]]
    assert before and after and before[0] < after[0], readme(
        "SCH-046, SCH-052",
        "a due reminder is checkpointed before and after its dispatch: before and after and "
        "(before[0] < after[0])",
    )
    assert dispatch in host.durable_events(agent.session_id), readme(
        "SCH-046, SCH-052",
        "a due reminder is checkpointed before and after its dispatch: dispatch in "
        "host.durable_events(agent.session_id)",
        host.durable_events(agent.session_id),
    )


@pytest.mark.spec("SCH-046")
@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
def test_a_failed_due_checkpoint_dispatches_nothing(host, agent, outcome):
    id1 = _create(agent, {"prompt": "x", "after_seconds": 60})
    host.faults.fail_flushes(outcome)
    host.advance(60)
    assert dispatches(agent.events()) == [], readme(
        "SCH-046",
        "a failed due checkpoint dispatches nothing: dispatches(agent.events()) == []",
        dispatches(agent.events()),
    )
    assert reminder_texts(agent.events()) == [], readme(
        "SCH-046",
        "a failed due checkpoint dispatches nothing: reminder_texts(agent.events()) == []",
        reminder_texts(agent.events()),
    )
    (view,) = agent.call_tool("schedule_list", {}).value
    assert view["id"] == id1, readme(
        "SCH-046",
        "a failed due checkpoint dispatches nothing: view['id'] == id1",
        view['id'],
    )


@pytest.mark.spec("SCH-047", "SCH-053")
def test_a_due_reminder_waits_for_a_running_turn_then_opens_a_later_turn(host, agent):
    id1 = _create(agent, {"prompt": "Ping", "after_seconds": 60})
    agent.script(reply_text("long answer", thinking_s=600))
    agent.prompt("work")
    host.advance(120)
    assert dispatches(agent.events()) == [], readme(
        "SCH-047, SCH-053",
        "a due reminder waits for a running turn then opens a later turn: "
        "dispatches(agent.events()) == []",
        dispatches(agent.events()),
    )
    assert reminder_texts(agent.events()) == [], readme(
        "SCH-047, SCH-053",
        "a due reminder waits for a running turn then opens a later turn: "
        "reminder_texts(agent.events()) == []",
        reminder_texts(agent.events()),
    )
    assert agent.call_tool("schedule_list", {}).value[0]["state"] == "overdue", readme(
        "SCH-047, SCH-053",
        "a due reminder waits for a running turn then opens a later turn: "
        "agent.call_tool('schedule_list', {}).value[0]['state'] == 'overdue'",
    )
    host.advance(480)  # the long turn ends at 00:10:00
    events = agent.events()
    (first_end,) = [e for e in events if e["type"] == "turn/end" and e["data"]["turn"] == 1]
    (message,) = reminder_messages(events)
    assert message["seq"] > first_end["seq"], readme(
        "SCH-047, SCH-053",
        "a due reminder waits for a running turn then opens a later turn: message['seq'] > "
        "first_end['seq']",
        message['seq'],
    )
    assert turn_number_of(events, message["seq"]) == 2, readme(
        "SCH-047, SCH-053",
        "a due reminder waits for a running turn then opens a later turn: turn_number_of(events, "
        "message['seq']) == 2",
        turn_number_of(events, message['seq']),
    )
    assert _dispatch_events(events)[0]["time"] == first_end["time"] == START_MS + 600_000, readme(
        "SCH-047, SCH-053",
        "a due reminder waits for a running turn then opens a later turn: "
        "_dispatch_events(events)[0]['time'] == first_end['time'] == START_MS + 600000",
    )
    assert reminder_texts(events) == [
        one_shot_framing(json.dumps(id1), "2026-01-01T00:01:00.000Z", '"Ping"')], readme(
        "SCH-047, SCH-053",
        "a due reminder waits for a running turn then opens a later turn: reminder_texts(events) "
        "== [one_shot_framing(json.dumps(id1), '2026-01-01T00:01:00.000Z', '\"Ping\"')]",
        reminder_texts(events),
    )


@pytest.mark.spec("SCH-048", "SCH-052")
def test_dispatch_is_recorded_before_the_follow_up_turn_opens(host, agent):
    agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 60})
    agent.call_tool("schedule_create", {"prompt": "y", "every_seconds": 300})
    host.advance(300)
    events = agent.events()
    for dispatch in _dispatch_events(events):
        opener = next(e for e in events[dispatch["seq"]:] if e["type"] == "turn/start")
        message = next(e for e in events[opener["seq"]:] if e["type"] == "user/message")
        assert message in reminder_messages(events), readme(
            "SCH-048, SCH-052",
            "dispatch is recorded before the follow up turn opens: message in "
            "reminder_messages(events)",
            reminder_messages(events),
        )
        assert dispatch["seq"] < opener["seq"], readme(
            "SCH-048, SCH-052",
            "dispatch is recorded before the follow up turn opens: dispatch['seq'] < "
            "opener['seq']",
            dispatch['seq'],
        )


@pytest.mark.spec("SCH-048", "SCH-050")
def test_a_batch_samples_one_decision_time(host, agent):
    for prompt, seconds in (("a", 300), ("b", 600), ("c", 900)):
        agent.call_tool("schedule_create", {"prompt": prompt, "every_seconds": seconds})
    host.set_wall_clock(START_MS + 7 * HOUR_MS + 123)
    agent.call_tool("schedule_list", {})
    accepted = {d["acceptedAt"] for d in dispatches(agent.events())}
    assert accepted == {"2026-01-01T07:00:00.123Z"}, readme(
        "SCH-048, SCH-050",
        "a batch samples one decision time: accepted == {'2026-01-01T07:00:00.123Z'}",
        accepted,
    )
    assert len(reminder_texts(agent.events())) == 1, readme(
        "SCH-048, SCH-050",
        "a batch samples one decision time: len(reminder_texts(agent.events())) == 1",
        len(reminder_texts(agent.events())),
    )


@pytest.mark.spec("SCH-053", "SCH-054")
def test_the_follow_up_turn_is_an_ordinary_transcript_turn(host, agent):
    id1 = _create(agent, {"prompt": "Stand up", "after_seconds": 60})
    agent.script(reply_text("Time to stand up!"))
    host.advance(60)
    events = agent.events()
    (message,) = reminder_messages(events)
    opener = _opener_of(events, message["seq"])
    turn = [e for e in events[opener["seq"]:] if e["type"] in TRANSCRIPT_TYPES]
    kinds = [e["type"] for e in turn]
    assert kinds[0] == "turn/start" and kinds[-1] == "turn/end", readme(
        "SCH-053, SCH-054",
        "the follow up turn is an ordinary transcript turn: kinds[0] == 'turn/start' and "
        "kinds[-1] == 'turn/end'",
    )
    assert sorted(kinds) == sorted(TRANSCRIPT_TYPES), readme(
        "SCH-053, SCH-054",
        "the follow up turn is an ordinary transcript turn: sorted(kinds) == "
        "sorted(TRANSCRIPT_TYPES)",
        sorted(kinds),
    )  # one step, one message each way
    (reply,) = [e for e in turn if e["type"] == "assistant/message"]
    assert message["seq"] < reply["seq"], readme(
        "SCH-053, SCH-054",
        "the follow up turn is an ordinary transcript turn: message['seq'] < reply['seq']",
        message['seq'],
    )
    assert (
        message_content(reply["data"]) == [{"type": "text", "text": "Time to stand up!"}]
    ), readme(
        "SCH-053, SCH-054",
        "the follow up turn is an ordinary transcript turn: message_content(reply['data']) == "
        "[{'type': 'text', 'text': 'Time to stand up!'}]",
        message_content(reply['data']),
    )
    assert user_message_fields(message["data"]) == {
        "content": [{"type": "text", "text": one_shot_framing(
            json.dumps(id1), "2026-01-01T00:01:00.000Z", '"Stand up"')}],
        "source": {"kind": "plugin", "plugin": "schedule"},
    }, readme(
        "SCH-053, SCH-054",
        "the follow up turn is an ordinary transcript turn: user_message_fields(message['data']) "
        "== {'content': [{'type': 'text', 'text': one_shot_framing(json.dumps(id1), '2026-...",
        user_message_fields(message['data']),
    )
    # Besides its schedule/change records and the reminder, the plugin writes nothing.
    assert [e for e in events if e["type"] == "user/message"] == [message], readme(
        "SCH-053, SCH-054",
        "the follow up turn is an ordinary transcript turn: [e for e in events if e['type'] == "
        "'user/message'] == [message]",
        [e for e in events if e['type'] == 'user/message'],
    )
    assert {e["type"] for e in events if e["type"].startswith("schedule/")} == {
        "schedule/change"}, readme(
        "SCH-053, SCH-054",
        "the follow up turn is an ordinary transcript turn: {e['type'] for e in events if "
        "e['type'].startswith('schedule/')} == {'schedule/change'}",
    )
    assert not [e for e in events if e["type"] == "steering/message"], readme(
        "SCH-053, SCH-054",
        "the follow up turn is an ordinary transcript turn: not [e for e in events if e['type'] "
        "== 'steering/message']",
        [e for e in events if e['type'] == 'steering/message'],
    )


@pytest.mark.spec("SCH-053")
def test_a_reminder_never_steers_the_running_turn(host, agent):
    agent.call_tool("schedule_create", {"prompt": "Ping", "after_seconds": 60})
    agent.script(reply_text("first half", thinking_s=300))
    agent.prompt("work")
    host.advance(600)
    events = agent.events()
    first_turn = [e for e in events if turn_number_of(events, e["seq"]) == 1]
    assert (
        [e["type"] for e in first_turn if e["type"] == "user/message"] == ["user/message"]
    ), readme(
        "SCH-053",
        "a reminder never steers the running turn: [e['type'] for e in first_turn if e['type'] == "
        "'user/message'] == ['user/message']",
        [e['type'] for e in first_turn if e['type'] == 'user/message'],
    )
    assert all(e["data"].get("source", {}).get("kind") != "plugin" for e in first_turn
               if e["type"] == "user/message"), readme(
        "SCH-053",
        "a reminder never steers the running turn: all((e['data'].get('source', {}).get('kind') "
        "!= 'plugin' for e in first_turn if e['type'] == 'user/message'))",
    )
    assert not [e for e in events if e["type"] == "steering/message"], readme(
        "SCH-053",
        "a reminder never steers the running turn: not [e for e in events if e['type'] == "
        "'steering/message']",
        [e for e in events if e['type'] == 'steering/message'],
    )
    assert len(reminder_messages(events)) == 1, readme(
        "SCH-053",
        "a reminder never steers the running turn: len(reminder_messages(events)) == 1",
        len(reminder_messages(events)),
    )


@pytest.mark.spec("SCH-055")
def test_dispatch_does_not_depend_on_the_follow_up_turn_succeeding(host, agent):
    id1 = _create(agent, {"prompt": "x", "after_seconds": 60})
    host.add_pre_step_probe("raise")
    host.advance(60)
    events = agent.events()
    assert dispatches(events) == [_dispatch(id1)], readme(
        "SCH-055",
        "dispatch does not depend on the follow up turn succeeding: dispatches(events) == "
        "[_dispatch(id1)]",
        dispatches(events),
    )
    ends = [e for e in events if e["type"] == "turn/end"]
    assert ends and ends[-1]["data"]["reason"]["kind"] == "error", readme(
        "SCH-055",
        "dispatch does not depend on the follow up turn succeeding: ends and "
        "ends[-1]['data']['reason']['kind'] == 'error'",
    )
    assert agent.call_tool("schedule_list", {}).value == [], readme(
        "SCH-055",
        "dispatch does not depend on the follow up turn succeeding: "
        "agent.call_tool('schedule_list', {}).value == []",
    )
    host.advance(3600)
    # No retry: the failed follow-up is neither dispatched nor delivered again.
    events = agent.events()
    assert dispatches(events) == [_dispatch(id1)], readme(
        "SCH-055",
        "dispatch does not depend on the follow up turn succeeding: dispatches(events) == "
        "[_dispatch(id1)]",
        dispatches(events),
    )
    assert len(reminder_messages(events)) <= 1, readme(
        "SCH-055",
        "dispatch does not depend on the follow up turn succeeding: "
        "len(reminder_messages(events)) <= 1",
        len(reminder_messages(events)),
    )


# -- failures --------------------------------------------------------------------------


@pytest.mark.spec("SCH-056")
def test_a_failed_follow_up_writes_no_dispatch(host, agent):
    id1 = _create(agent, {"prompt": "x", "after_seconds": 60})
    host.faults.fail_followups()
    host.advance(60)
    assert dispatches(agent.events()) == [], readme(
        "SCH-056",
        "a failed follow up writes no dispatch: dispatches(agent.events()) == []",
        dispatches(agent.events()),
    )
    assert reminder_messages(agent.events()) == [], readme(
        "SCH-056",
        "a failed follow up writes no dispatch: reminder_messages(agent.events()) == []",
        reminder_messages(agent.events()),
    )
    (view,) = agent.call_tool("schedule_list", {}).value
    assert (view["id"], view["state"]) == (id1, "overdue"), readme(
        "SCH-056",
        "a failed follow up writes no dispatch: (view['id'], view['state']) == (id1, "
        "'overdue')",
        (view['id'], view['state']),
    )


@pytest.mark.spec("SCH-057")
def test_a_failed_dispatch_append_faults_the_owner_but_tools_still_work(host, agent):
    id1 = _create(agent, {"prompt": "A", "after_seconds": 60})
    id2 = _create(agent, {"prompt": "B", "after_seconds": 120})
    host.faults.fail_appends(event_type="schedule/change")
    host.advance(60)
    assert dispatches(agent.events()) == [], readme(
        "SCH-057",
        "a failed dispatch append faults the owner but tools still work: "
        "dispatches(agent.events()) == []",
        dispatches(agent.events()),
    )
    host.advance(3600)
    assert [v["id"] for v in agent.call_tool("schedule_list", {}).value] == [
        id1, id2], readme(
        "SCH-057",
        "a failed dispatch append faults the owner but tools still work: [v['id'] for v in "
        "agent.call_tool('schedule_list', {}).value] == [id1, id2]",
    )
    created = agent.call_tool("schedule_create", {"prompt": "C", "after_seconds": 60}).value
    assert created.get("id") not in (None, id1, id2), readme(
        "SCH-057",
        "a failed dispatch append faults the owner but tools still work: created['id'] a "
        "fresh id, neither id1 nor id2",
        created['id'],
    )
    assert agent.call_tool("schedule_delete", {"id": id2}).value == {
        "id": id2, "deleted": True}, readme(
        "SCH-057",
        "a failed dispatch append faults the owner but tools still work: "
        "agent.call_tool('schedule_delete', {'id': id2}).value == {'id': id2, "
        "'deleted': True}",
    )
    host.advance(3600)
    assert dispatches(agent.events()) == [], readme(
        "SCH-057",
        "a failed dispatch append faults the owner but tools still work: "
        "dispatches(agent.events()) == []",
        dispatches(agent.events()),
    )
    texts = reminder_texts(agent.events())
    assert len(texts) <= 1, readme(
        "SCH-057",
        "a failed dispatch append faults the owner but tools still work: len(texts) <= 1",
        len(texts),
    )  # the follow-up may already have been queued
    assert all(json.dumps(id1) in text for text in texts), readme(
        "SCH-057",
        "a failed dispatch append faults the owner but tools still work: all((json.dumps(id1) in "
        "text for text in texts))",
    )


@pytest.mark.spec("SCH-057")
@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
def test_a_rejected_dispatch_barrier_is_recovered_by_a_later_preflight(host, agent, outcome):
    id1 = _create(agent, {"prompt": "A", "after_seconds": 60})
    host.faults.fail_flushes(outcome, first=2, count=1)  # due preflight ok, barrier fails
    host.advance(60)
    assert dispatches(agent.events()) == [_dispatch(id1)], readme(
        "SCH-057",
        "a rejected dispatch barrier is recovered by a later preflight: "
        "dispatches(agent.events()) == [_dispatch(id1)]",
        dispatches(agent.events()),
    )
    assert any(r.outcome == outcome for r in flushes_of(host, agent.session_id)), readme(
        "SCH-057",
        "a rejected dispatch barrier is recovered by a later preflight: any((r.outcome == outcome "
        "for r in flushes_of(host, agent.session_id)))",
    )
    assert agent.call_tool("schedule_list", {}).value == [], readme(
        "SCH-057",
        "a rejected dispatch barrier is recovered by a later preflight: "
        "agent.call_tool('schedule_list', {}).value == []",
    )
    assert dispatches(host.durable_events(agent.session_id)) == [_dispatch(id1)], readme(
        "SCH-057",
        "a rejected dispatch barrier is recovered by a later preflight: "
        "dispatches(host.durable_events(agent.session_id)) == [_dispatch(id1)]",
        dispatches(host.durable_events(agent.session_id)),
    )
    host.crash()
    resumed = host.resume(agent.session_id)
    host.advance(60)
    assert len(reminder_messages(resumed.events())) <= 1, readme(
        "SCH-057",
        "a rejected dispatch barrier is recovered by a later preflight: "
        "len(reminder_messages(resumed.events())) <= 1",
        len(reminder_messages(resumed.events())),
    )
    assert dispatches(resumed.events()) == [_dispatch(id1)], readme(
        "SCH-057",
        "a rejected dispatch barrier is recovered by a later preflight: "
        "dispatches(resumed.events()) == [_dispatch(id1)]",
        dispatches(resumed.events()),
    )


# -- disposal --------------------------------------------------------------------------


@pytest.mark.spec("SCH-058")
def test_agent_disposal_cancels_timers_without_deleting_records(host, agent):
    id1 = _create(agent, {"prompt": "A", "after_seconds": 60})
    id2 = _create(agent, {"prompt": "B", "every_seconds": 300})
    durable = host.durable_events(agent.session_id)
    agent.dispose()
    host.advance(600)
    assert host.durable_events(agent.session_id) == durable, readme(
        "SCH-058",
        "agent disposal cancels timers without deleting records: "
        "host.durable_events(agent.session_id) == durable",
        host.durable_events(agent.session_id),
    )
    assert dispatches(agent.events()) == [], readme(
        "SCH-058",
        "agent disposal cancels timers without deleting records: dispatches(agent.events()) == []",
        dispatches(agent.events()),
    )
    resumed = host.resume(agent.session_id)
    assert [d["id"] for d in dispatches(resumed.events())] == [id1, id2], readme(
        "SCH-058",
        "agent disposal cancels timers without deleting records: [d['id'] for d in "
        "dispatches(resumed.events())] == [id1, id2]",
        [d['id'] for d in dispatches(resumed.events())],
    )


@pytest.mark.spec("SCH-058")
def test_plugin_disposal_cancels_timers_without_deleting_records(host, agent):
    agent.call_tool("schedule_create", {"prompt": "A", "after_seconds": 60})
    durable = host.durable_events(agent.session_id)
    live = agent.events()
    host.unload_plugin("schedule")
    host.advance(600)
    assert agent.events() == live, readme(
        "SCH-058",
        "plugin disposal cancels timers without deleting records: agent.events() == live",
        agent.events(),
    )
    assert host.durable_events(agent.session_id) == durable, readme(
        "SCH-058",
        "plugin disposal cancels timers without deleting records: "
        "host.durable_events(agent.session_id) == durable",
        host.durable_events(agent.session_id),
    )
    assert (
        not {"schedule_create", "schedule_list", "schedule_delete"} & set(agent.tool_names())
    ), readme(
        "SCH-058",
        "plugin disposal cancels timers without deleting records: not {'schedule_create', "
        "'schedule_list', 'schedule_delete'} & set(agent.tool_names())",
        {'schedule_create', 'schedule_list', 'schedule_delete'} & set(agent.tool_names()),
    )
    host.load_plugin("schedule")  # the existing agent is not adopted on reload
    host.advance(600)
    assert agent.events() == live, readme(
        "SCH-058",
        "plugin disposal cancels timers without deleting records: agent.events() == live",
        agent.events(),
    )


@pytest.mark.spec("SCH-058")
def test_disposal_waits_for_an_in_flight_preflight_and_then_writes_nothing(host, agent):
    agent.call_tool("schedule_create", {"prompt": "A", "after_seconds": 60})
    host.faults.fail_flushes("hang")
    host.advance(60)  # the due preflight hangs
    with pytest.raises(HostStuckError):
        host.unload_plugin("schedule")
    host.faults.release_hung_flushes()
    host.run_until_idle()
    assert dispatches(agent.events()) == [], readme(
        "SCH-058",
        "disposal waits for an in flight preflight and then writes nothing: "
        "dispatches(agent.events()) == []",
        dispatches(agent.events()),
    )
    assert reminder_messages(agent.events()) == [], readme(
        "SCH-058",
        "disposal waits for an in flight preflight and then writes nothing: "
        "reminder_messages(agent.events()) == []",
        reminder_messages(agent.events()),
    )


# -- restart ----------------------------------------------------------------------------


@pytest.mark.spec("SCH-044", "SCH-084")
def test_resume_dispatches_overdue_one_shots_then_the_every_batch(host, agent):
    id1 = _create(agent, {"prompt": "One", "after_seconds": 60})
    id2 = _create(agent, {"prompt": "Every", "every_seconds": 300})
    host.crash()
    host.advance(3610)
    resumed = host.resume(agent.session_id)
    events = resumed.events()
    assert reminder_texts(events) == [
        one_shot_framing(json.dumps(id1), "2026-01-01T00:01:00.000Z", '"One"'),
        batch_framing(f'[{{"schedule_id":{json.dumps(id2)},"occurrence_at":"2026-01-01T01:00:00.000Z",'
                      '"reminder_prompt":"Every"}]'),
    ], readme(
        "SCH-044, SCH-084",
        "resume dispatches overdue one shots then the every batch: reminder_texts(events) == "
        "[one_shot_framing(json.dumps(id1), '2026-01-01T00:01:00.000Z', '\"One\"'), "
        "batch_framing('[{\"s...",
        reminder_texts(events),
    )
    assert dispatches(events) == [
        _dispatch(id1), _dispatch(id2, "2026-01-01T01:00:10.000Z")], readme(
        "SCH-044, SCH-084",
        "resume dispatches overdue one shots then the every batch: dispatches(events) == "
        "[_dispatch(id1), _dispatch(id2, '2026-01-01T01:00:10.000Z')]",
        dispatches(events),
    )
    turns = [turn_number_of(events, m["seq"]) for m in reminder_messages(events)]
    assert turns[0] is not None and turns[1] is not None and turns[0] < turns[1], readme(
        "SCH-044, SCH-084",
        "resume dispatches overdue one shots then the every batch: turns[0] is not None and "
        "turns[1] is not None and (turns[0] < turns[1])",
    )
    (view,) = resumed.call_tool("schedule_list", {}).value
    assert (
        (view["scheduledAt"], view["state"]) == ("2026-01-01T01:05:00.000Z", "scheduled")
    ), readme(
        "SCH-044, SCH-084",
        "resume dispatches overdue one shots then the every batch: (view['scheduledAt'], "
        "view['state']) == ('2026-01-01T01:05:00.000Z', 'scheduled')",
        (view['scheduledAt'], view['state']),
    )


@pytest.mark.spec("SCH-042", "SCH-084")
def test_nothing_is_delivered_while_the_session_is_cold(host, agent):
    agent.call_tool("schedule_create", {"prompt": "Cold", "after_seconds": 60})
    durable = host.durable_events(agent.session_id)
    host.crash()
    host.advance(7200)
    assert host.durable_events(agent.session_id) == durable, readme(
        "SCH-042, SCH-084",
        "nothing is delivered while the session is cold: host.durable_events(agent.session_id) == "
        "durable",
        host.durable_events(agent.session_id),
    )
    resumed = host.resume(agent.session_id)
    assert _message_times(resumed.events()) == [START_MS + 7_200_000], readme(
        "SCH-042, SCH-084",
        "nothing is delivered while the session is cold: _message_times(resumed.events()) == "
        "[START_MS + 7200000]",
        _message_times(resumed.events()),
    )



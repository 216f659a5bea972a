"""README section "Delivery lifecycle": the live owner's timers, priorities,
batches, the idle phase, follow-up turns, failures and disposal.

Readme-level tests here write their logs through the implementation
(``written_logs``): a dispatch is observed as a ``schedule/change`` event,
other than a create, that mentions the record's id; the Every dispatches of one
batch carry the same values besides their ids (one acceptedAt). The exact
payloads (``acceptedAt`` spelled as the decision time) are pinned detail
SCH-PAYLOAD-LAYOUT, and replaying logs spelled in the official layout is
SCH-LOG-INTEROP; both are checked by the compat tests at the end.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from dsh_conformance.expect import pinned, readme
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
    reminder_framings,
    reminder_messages,
    reminder_texts,
    seed_log,
    suite_instant,
    turn_number_of,
    user_message_fields,
)
from dsh_conformance.schedule.tool_values import delete_succeeded
from dsh_conformance.schedule.written_logs import (
    Written,
    create,
    overdue_after_resume,
    transition_events,
    transition_values,
    transitions,
)
from pytest_dsh import HostStuckError, reply_text

pytestmark = [pytest.mark.dsh_requires("schedule")]

HOUR_MS = 3_600_000
DAY_MS = 86_400_000

TRANSCRIPT_TYPES = (
    "turn/start", "user/message", "step/start", "assistant/message", "step/end", "turn/end"
)


def _opener_of(events, seq):
    """The ``turn/start`` of the turn holding event ``seq`` (no ``turn/end`` between)."""
    for event in reversed(events[:seq]):
        assert event["type"] != "turn/end", f"event {seq} is outside any turn"
        if event["type"] == "turn/start":
            return event
    raise AssertionError(f"event {seq} is outside any turn")


def _dispatch(schedule_id: str, accepted_at: str | None = None) -> dict[str, Any]:
    """A dispatch payload in the official layout (pinned detail SCH-PAYLOAD-LAYOUT)."""
    change: dict[str, Any] = {"version": 1, "operation": "dispatch", "id": schedule_id}
    if accepted_at is not None:
        change["acceptedAt"] = accepted_at
    return change


def _message_times(events: list[dict[str, Any]]) -> list[int]:
    return [event["time"] for event in reminder_messages(events)]


def _listed(agent: Any, sentences: str = "SCH-035") -> list[Any]:
    """The value of ``schedule_list``, which must be the list of active records."""
    value = agent.call_tool("schedule_list", {}).value
    assert isinstance(value, list), readme(
        sentences, "schedule_list to return the list of active records", value)
    return value


def _one_batch(agent_or_events: Any, records: list[Written], sentences: str) -> None:
    """The transitions of ``records`` are the dispatches of one Every batch: each
    carries the same values besides its id, one acceptedAt (SCH-050)."""
    events = agent_or_events if isinstance(agent_or_events, list) else agent_or_events.events()
    values = transition_values(events, records)
    assert len({tuple(rest) for _, rest in values}) == 1, readme(
        sentences, "each Every record of one batch to append its id plus the same acceptedAt "
        "(the dispatches differ only in their ids)", values)


# -- timing ------------------------------------------------------------------------


@pytest.mark.spec("SCH-042", "SCH-049", "SCH-065")
def test_one_shot_fires_exactly_at_its_target(host, agent):
    record = create(agent, {"prompt": "Stand up", "after_seconds": 90})
    host.advance(89.999)
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-042", "no dispatch a millisecond before the target",
        transitions(agent.events(), [record]))
    host.advance(0.001)
    assert transitions(agent.events(), [record]) == [record.id], readme(
        "SCH-042, SCH-049", "one dispatch naming the id at the target",
        transition_events(agent.events(), [record]))
    (dispatch,) = transition_events(agent.events(), [record])
    assert dispatch["time"] == START_MS + 90_000, readme(
        "SCH-042", "the dispatch to be appended at the target, 90 s after the create",
        dispatch["time"] - START_MS)
    expected = [one_shot_framing(json.dumps(record.id), "2026-01-01T00:01:30.000Z", '"Stand up"')]
    assert reminder_framings(agent.events()) == expected, readme(
        "SCH-065", "the one-shot framing of the reminder", reminder_framings(agent.events()))


@pytest.mark.spec("SCH-042")
@pytest.mark.dsh_probe(
    "one-shots-fire-at-their-targets",
    "Each one-shot reminder fires at its own target, the earliest first, none before",
)
def test_the_earliest_target_of_the_fold_fires_first(host, agent):
    second = create(agent, {"prompt": "Second", "after_seconds": 120})
    first = create(agent, {"prompt": "First", "at": "2026-01-01T00:01:00Z"})
    host.advance(60)
    assert transitions(agent.events(), [first, second]) == [first.id], readme(
        "SCH-042", "the record with the earliest target (created second) to fire first",
        transition_events(agent.events(), [first, second]))
    host.advance(60)
    assert transitions(agent.events(), [first, second]) == [first.id, second.id], readme(
        "SCH-042", "the later target to fire at its own time",
        transition_events(agent.events(), [first, second]))
    assert _message_times(agent.events()) == [START_MS + 60_000, START_MS + 120_000], readme(
        "SCH-042", "the reminders at 00:01:00 and 00:02:00", _message_times(agent.events()))


@pytest.mark.spec("SCH-043")
def test_a_wait_beyond_the_platform_timer_range_is_split(host, agent):
    record = create(agent, {"prompt": "Monthly", "after_seconds": 2_592_000})
    host.advance(2_147_483.647)  # the longest single platform timer
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-043", "no dispatch at the end of the first platform timer",
        transitions(agent.events(), [record]))
    wake = [r for r in flushes_of(host, agent.session_id) if r.wall_ms == START_MS + 2_147_483_647]
    assert wake, readme(
        "SCH-043", "the owner to wake at the end of the platform timer range and reread the "
        "fold (a flush then)", flushes_of(host, agent.session_id))
    host.advance(444_516.352)
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-043", "no dispatch a millisecond before the 30-day target",
        transitions(agent.events(), [record]))
    host.advance(0.001)
    assert transitions(agent.events(), [record]) == [record.id], readme(
        "SCH-043", "the dispatch at the 30-day target", transition_events(agent.events(), [record]))
    assert _message_times(agent.events()) == [1_769_817_600_000], readme(
        "SCH-043", "the reminder at 2026-01-31T00:00:00.000Z", _message_times(agent.events()))


@pytest.mark.spec("SCH-043")
def test_a_wall_clock_rollback_never_fires_early(host, agent):
    record = create(agent, {"prompt": "Roll", "after_seconds": 3600})
    host.set_wall_clock(START_MS - DAY_MS)
    host.advance(3600)  # the original timer elapses, but the wall clock says 1 day early
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-043", "no dispatch when the timer elapses but the wall clock was rolled back",
        transitions(agent.events(), [record]))
    host.advance(86_399)
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-043", "no dispatch a second before the wall clock reaches the target",
        transitions(agent.events(), [record]))
    host.advance(1)
    assert transitions(agent.events(), [record]) == [record.id], readme(
        "SCH-043", "the dispatch once the wall clock reaches the target",
        transition_events(agent.events(), [record]))
    assert _message_times(agent.events()) == [START_MS + HOUR_MS], readme(
        "SCH-043", "the reminder at the target's wall-clock time", _message_times(agent.events()))
    expected = [one_shot_framing(json.dumps(record.id), "2026-01-01T01:00:00.000Z", '"Roll"')]
    assert reminder_framings(agent.events()) == expected, readme(
        "SCH-043, SCH-065", "the one-shot framing of the reminder",
        reminder_framings(agent.events()))


@pytest.mark.spec("SCH-043", "SCH-037")
def test_a_forward_jump_makes_the_record_overdue_for_the_next_preflight(host, agent):
    record = create(agent, {"prompt": "Jump", "after_seconds": 3600})
    host.set_wall_clock(START_MS + 5 * HOUR_MS)
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-043", "no dispatch from the jump alone, before any wake or preflight",
        transitions(agent.events(), [record]))
    agent.call_tool("schedule_list", {})
    assert transitions(agent.events(), [record]) == [record.id], readme(
        "SCH-043, SCH-037", "the list preflight to make the owner recompute and dispatch the "
        "overdue record", transition_events(agent.events(), [record]))
    expected = [one_shot_framing(json.dumps(record.id), "2026-01-01T01:00:00.000Z", '"Jump"')]
    assert reminder_framings(agent.events()) == expected, readme(
        "SCH-043, SCH-065", "the one-shot framing with the target as occurrence_at",
        reminder_framings(agent.events()))


@pytest.mark.spec("SCH-043")
def test_a_forward_jump_dispatches_at_the_next_wake(host, agent):
    jump = create(agent, {"prompt": "Jump", "after_seconds": 3600})
    far = create(agent, {"prompt": "Far", "after_seconds": 30 * 3600})
    host.set_wall_clock(START_MS + 5 * HOUR_MS)
    host.advance(3600)  # the next wake: the first target on the monotonic timer
    assert transitions(agent.events(), [jump, far]) == [jump.id], readme(
        "SCH-043", "the record made overdue by the jump to be dispatched at the next wake",
        transition_events(agent.events(), [jump, far]))
    assert _message_times(agent.events()) == [START_MS + 6 * HOUR_MS], readme(
        "SCH-043", "the reminder at the wake's wall-clock time", _message_times(agent.events()))


@pytest.mark.spec("SCH-043", "SCH-045", "SCH-050", "SCH-051", "SCH-088")
def test_a_forward_jump_dispatches_one_batch_with_each_latest_occurrence(host, agent):
    five = create(agent, {"prompt": "Five", "every_seconds": 300})
    hourly = create(agent, {"prompt": "Hourly", "every_seconds": 3600})
    host.set_wall_clock(START_MS + 2 * HOUR_MS + 10_000)  # 02:00:10
    agent.call_tool("schedule_list", {})
    assert transitions(agent.events(), [five, hourly]) == [five.id, hourly.id], readme(
        "SCH-045, SCH-050, SCH-051", "one dispatch per overdue Every record, in target and "
        "creation order, none per missed interval",
        transition_events(agent.events(), [five, hourly]))
    _one_batch(agent, [five, hourly], "SCH-050")
    expected = [batch_framing(
        f'[{{"schedule_id":{json.dumps(five.id)},"occurrence_at":"2026-01-01T02:00:00.000Z",'
        f'"reminder_prompt":"Five"}},{{"schedule_id":{json.dumps(hourly.id)},'
        '"occurrence_at":"2026-01-01T02:00:00.000Z","reminder_prompt":"Hourly"}]'
    )]
    assert reminder_framings(agent.events()) == expected, readme(
        "SCH-045, SCH-050, SCH-088", "one batch with each record's latest due occurrence",
        reminder_framings(agent.events()))
    targets = [suite_instant(v.get("scheduledAt")) for v in _listed(agent)]
    assert targets == ["2026-01-01T02:05:00.000Z", "2026-01-01T03:00:00.000Z"], readme(
        "SCH-050", "each record advanced directly to its first future target", targets)


@pytest.mark.spec("SCH-043", "SCH-050")
def test_a_forward_jump_batch_uses_the_wall_clock_of_the_wake(host, agent):
    five = create(agent, {"prompt": "Five", "every_seconds": 300})
    hourly = create(agent, {"prompt": "Hourly", "every_seconds": 3600})
    host.set_wall_clock(START_MS + 2 * HOUR_MS + 10_000)
    host.advance(300)  # wall clock 02:05:10
    assert transitions(agent.events(), [five, hourly]) == [five.id, hourly.id], readme(
        "SCH-043, SCH-050", "one batch dispatch per record at the wake",
        transition_events(agent.events(), [five, hourly]))
    _one_batch(agent, [five, hourly], "SCH-050")
    expected = [batch_framing(
        f'[{{"schedule_id":{json.dumps(five.id)},"occurrence_at":"2026-01-01T02:05:00.000Z",'
        f'"reminder_prompt":"Five"}},{{"schedule_id":{json.dumps(hourly.id)},'
        '"occurrence_at":"2026-01-01T02:00:00.000Z","reminder_prompt":"Hourly"}]'
    )]
    assert reminder_framings(agent.events()) == expected, readme(
        "SCH-043, SCH-050", "the latest occurrences due at the wake's wall clock, 02:05:10",
        reminder_framings(agent.events()))


# -- priority and batches -------------------------------------------------------------


@pytest.mark.spec("SCH-044", "SCH-075")
def test_due_one_shots_come_first_each_in_its_own_later_turn(host, agent):
    tick = create(agent, {"prompt": "Tick", "every_seconds": 300})
    two = create(agent, {"prompt": "Two", "after_seconds": 60})
    three = create(agent, {"prompt": "Three", "at": "2026-01-01T00:01:00Z"})
    four = create(agent, {"prompt": "Four", "at": "2026-01-01T00:00:10Z"})
    records = [tick, two, three, four]
    resumed = overdue_after_resume(host, agent, 400)  # 00:06:40, everything is overdue
    events = resumed.events()
    assert reminder_framings(events) == [
        one_shot_framing(json.dumps(four.id), "2026-01-01T00:00:10.000Z", '"Four"'),
        one_shot_framing(json.dumps(two.id), "2026-01-01T00:01:00.000Z", '"Two"'),
        one_shot_framing(json.dumps(three.id), "2026-01-01T00:01:00.000Z", '"Three"'),
        batch_framing(f'[{{"schedule_id":{json.dumps(tick.id)},'
                      '"occurrence_at":"2026-01-01T00:05:00.000Z","reminder_prompt":"Tick"}]'),
    ], readme(
        "SCH-044, SCH-075", "the due one-shots first, in target then creation order, then the "
        "Every batch", reminder_framings(events))
    assert transitions(events, records) == [four.id, two.id, three.id, tick.id], readme(
        "SCH-044, SCH-049", "one dispatch per reminder, in delivery order",
        transition_events(events, records))
    _assert_each_reminder_opens_its_own_later_turn(events, 4)


def _assert_each_reminder_opens_its_own_later_turn(events: list[Any], count: int) -> None:
    turns = [turn_number_of(events, m["seq"]) for m in reminder_messages(events)]
    assert None not in turns and len(set(turns)) == count and turns == sorted(turns), readme(
        "SCH-044", f"each of the {count} reminders to enter its own later turn, one at a time",
        turns)
    for message in reminder_messages(events):
        # The reminder is the message of its own turn (no user prompt opened it).
        opener = _opener_of(events, message["seq"])
        opened = [e for e in events[opener["seq"]:] if e["type"] == "user/message"
                  and turn_number_of(events, e["seq"]) == opener["data"]["turn"]]
        assert opened == [message], readme(
            "SCH-044", "the reminder to be the one user message of the turn it opens", opened)


@pytest.mark.spec("SCH-045", "SCH-050", "SCH-076", "SCH-080")
def test_overdue_every_records_form_one_batch_in_target_then_creation_order(host, agent):
    # Created a minute apart: targets B 00:06, D 00:08, C 00:12, E 00:12, A 00:15.
    a = create(agent, {"prompt": "A", "every_seconds": 900})
    host.advance(60)
    b = create(agent, {"prompt": "B", "every_seconds": 300})
    host.advance(60)
    c = create(agent, {"prompt": "C", "every_seconds": 600})
    e = create(agent, {"prompt": "E", "every_seconds": 600})
    host.advance(60)
    d = create(agent, {"prompt": "D", "every_seconds": 300})
    records = [a, b, c, e, d]
    resumed = overdue_after_resume(host, agent, 17 * 60)  # 00:20:00
    events = resumed.events()
    assert transitions(events, records) == [b.id, d.id, c.id, e.id, a.id], readme(
        "SCH-045, SCH-050", "one dispatch per overdue Every record, in target then creation "
        "order", transition_events(events, records))
    _one_batch(events, records, "SCH-050")

    def item(record: Written, occurrence: str) -> str:
        return (f'{{"schedule_id":{json.dumps(record.id)},"occurrence_at":"{occurrence}",'
                f'"reminder_prompt":"{record.prompt}"}}')

    items = [item(b, "2026-01-01T00:16:00.000Z"), item(d, "2026-01-01T00:18:00.000Z"),
             item(c, "2026-01-01T00:12:00.000Z"), item(e, "2026-01-01T00:12:00.000Z"),
             item(a, "2026-01-01T00:15:00.000Z")]
    assert reminder_framings(events) == [batch_framing("[" + ",".join(items) + "]")], readme(
        "SCH-045, SCH-076, SCH-080", "one batch message, in target then creation order, each "
        "with its latest due occurrence", reminder_framings(events))
    listed = [(v.get("id"), suite_instant(v.get("scheduledAt"))) for v in _listed(resumed)]
    assert listed == [
        (a.id, "2026-01-01T00:30:00.000Z"), (b.id, "2026-01-01T00:21:00.000Z"),
        (c.id, "2026-01-01T00:22:00.000Z"), (e.id, "2026-01-01T00:22:00.000Z"),
        (d.id, "2026-01-01T00:23:00.000Z"),
    ], readme("SCH-050, SCH-035", "each record advanced to its first future anchor-aligned "
              "target, listed in creation order", listed)


@pytest.mark.spec("SCH-050", "SCH-051")
def test_every_records_fire_on_their_own_anchors_without_a_shared_gate(host, agent):
    a = create(agent, {"prompt": "A", "every_seconds": 300})
    b = create(agent, {"prompt": "B", "every_seconds": 600})
    for _ in range(3):
        host.advance(300)
    assert transitions(agent.events(), [a, b]) == [a.id, a.id, b.id, a.id], readme(
        "SCH-050, SCH-051", "A at 00:05, A and B at 00:10, A at 00:15",
        transition_events(agent.events(), [a, b]))
    values = [rest for _, rest in transition_values(agent.events(), [a, b])]
    assert values[1] == values[2] and len({tuple(v) for v in values}) == 3, readme(
        "SCH-050", "the dispatches of one batch to share one acceptedAt, and each batch its "
        "own", transition_values(agent.events(), [a, b]))
    assert _message_times(agent.events()) == [
        START_MS + 300_000, START_MS + 600_000, START_MS + 900_000], readme(
        "SCH-051", "one message per wake, A and B together at 00:10",
        _message_times(agent.events()))
    assert f'"schedule_id":{json.dumps(b.id)}' in reminder_framings(agent.events())[1], readme(
        "SCH-050", "B to be in the 00:10 batch", reminder_framings(agent.events()))


@pytest.mark.spec("SCH-051", "SCH-088")
def test_missed_intervals_are_never_replayed(host, agent):
    tick = create(agent, {"prompt": "Tick", "every_seconds": 300})
    resumed = overdue_after_resume(host, agent, 10 * 3600 + 42)
    assert transitions(resumed.events(), [tick]) == [tick.id], readme(
        "SCH-051, SCH-088", "one dispatch for 120 missed intervals",
        transition_events(resumed.events(), [tick]))
    expected = [batch_framing(
        f'[{{"schedule_id":{json.dumps(tick.id)},"occurrence_at":"2026-01-01T10:00:00.000Z",'
        '"reminder_prompt":"Tick"}]')]
    assert reminder_framings(resumed.events()) == expected, readme(
        "SCH-051, SCH-088", "one batch with the latest due occurrence only",
        reminder_framings(resumed.events()))
    host.advance(258)
    assert transitions(resumed.events(), [tick]) == [tick.id, tick.id], readme(
        "SCH-051", "the next dispatch at the next anchor-aligned target, 10:05:00",
        transition_events(resumed.events(), [tick]))


# -- checkpoints and the idle phase ----------------------------------------------------


@pytest.mark.spec("SCH-046", "SCH-052")
def test_a_due_reminder_is_checkpointed_before_and_after_its_dispatch(host, agent):
    record = create(agent, {"prompt": "x", "after_seconds": 60})
    seen = len(flushes_of(host, agent.session_id))
    host.advance(60)
    appended = transition_events(agent.events(), [record])
    assert len(appended) == 1, readme(
        "SCH-049", "the due one-shot to append one dispatch", appended)
    (dispatch,) = appended
    at_target = [r for r in flushes_of(host, agent.session_id)[seen:]
                 if r.wall_ms == START_MS + 60_000]
    lengths = [r.durable_length for r in at_target]
    before = [i for i, n in enumerate(lengths) if n <= dispatch["seq"]]
    after = [i for i, n in enumerate(lengths) if n > dispatch["seq"]]
    assert before and after and before[0] < after[0], readme(
        "SCH-046, SCH-052",
        "a durable checkpoint of the log before the dispatch, then one that includes it",
        lengths,
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
    rec1 = create(agent, {"prompt": "x", "after_seconds": 60})
    id1 = rec1.id
    host.faults.fail_flushes(outcome)
    host.advance(60)
    assert transitions(agent.events(), [rec1]) == [], readme(
        "SCH-046", f"no dispatch when the due checkpoint is {outcome}",
        transition_events(agent.events(), [rec1]))
    assert reminder_framings(agent.events()) == [], readme(
        "SCH-046",
        "a failed due checkpoint dispatches nothing: reminder_framings(agent.events()) == []",
        reminder_framings(agent.events()),
    )
    listed = [view.get("id") for view in _listed(agent)]
    assert listed == [id1], readme(
        "SCH-046, SCH-047", "the record to stay active", listed)


@pytest.mark.spec("SCH-047", "SCH-053")
def test_a_due_reminder_waits_for_a_running_turn_then_opens_a_later_turn(host, agent):
    rec1 = create(agent, {"prompt": "Ping", "after_seconds": 60})
    id1 = rec1.id
    agent.script(reply_text("long answer", thinking_s=600))
    agent.prompt("work")
    host.advance(120)
    assert transitions(agent.events(), [rec1]) == [], readme(
        "SCH-047", "no dispatch while a turn owns the agent",
        transition_events(agent.events(), [rec1]))
    assert reminder_framings(agent.events()) == [], readme(
        "SCH-047, SCH-053",
        "a due reminder waits for a running turn then opens a later turn: "
        "reminder_framings(agent.events()) == []",
        reminder_framings(agent.events()),
    )
    states = [(view.get("id"), view.get("state")) for view in _listed(agent)]
    assert states == [(id1, "overdue")], readme(
        "SCH-047, SCH-035", "the record to stay active, listed overdue", states)
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
    times = [e["time"] for e in transition_events(events, [rec1])]
    assert times == [first_end["time"]] and first_end["time"] == START_MS + 600_000, readme(
        "SCH-047, SCH-053", "one dispatch when the long turn ends, at 00:10:00",
        (times, first_end["time"]))
    assert reminder_framings(events) == [
        one_shot_framing(json.dumps(id1), "2026-01-01T00:01:00.000Z", '"Ping"')], readme(
        "SCH-047, SCH-053",
        "a due reminder waits for a running turn, then opens a later turn with the one-shot "
        "framing of its 00:01:00 occurrence",
        reminder_framings(events),
    )


@pytest.mark.spec("SCH-048", "SCH-052")
def test_dispatch_is_recorded_before_the_follow_up_turn_opens(host, agent):
    records = [create(agent, {"prompt": "x", "after_seconds": 60}),
               create(agent, {"prompt": "y", "every_seconds": 300})]
    host.advance(300)
    events = agent.events()
    assert len(transition_events(events, records)) == 2, readme(
        "SCH-049, SCH-050", "a dispatch for each of the two due reminders",
        transition_events(events, records))
    for dispatch in transition_events(events, records):
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
    records = [create(agent, {"prompt": prompt, "every_seconds": seconds})
               for prompt, seconds in (("a", 300), ("b", 600), ("c", 900))]
    host.set_wall_clock(START_MS + 7 * HOUR_MS + 123)
    agent.call_tool("schedule_list", {})
    assert transitions(agent.events(), records) == [r.id for r in records], readme(
        "SCH-045, SCH-050", "one dispatch per overdue Every record",
        transition_events(agent.events(), records))
    _one_batch(agent, records, "SCH-048, SCH-050")
    assert len(reminder_framings(agent.events())) == 1, readme(
        "SCH-048, SCH-050",
        "a batch samples one decision time: len(reminder_framings(agent.events())) == 1",
        len(reminder_framings(agent.events())),
    )


@pytest.mark.spec("SCH-053", "SCH-054")
def test_the_follow_up_turn_is_an_ordinary_transcript_turn(host, agent):
    rec1 = create(agent, {"prompt": "Stand up", "after_seconds": 60})
    id1 = rec1.id
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
    # The framing only: its source tag is pinned detail SCH-REMINDER-SOURCE.
    framing = one_shot_framing(json.dumps(id1), "2026-01-01T00:01:00.000Z", '"Stand up"')
    assert reminder_framings([message]) == [framing], readme(
        "SCH-053, SCH-054",
        "the follow-up turn to open with the one-shot framing of the reminder",
        user_message_fields(message["data"]),
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
    create(agent, {"prompt": "Ping", "after_seconds": 60})
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
    rec1 = create(agent, {"prompt": "x", "after_seconds": 60})
    id1 = rec1.id
    host.add_pre_step_watcher("raise")
    host.advance(60)
    events = agent.events()
    assert transitions(events, [rec1]) == [id1], readme(
        "SCH-055", "the dispatch recorded although the follow-up turn fails",
        transition_events(events, [rec1]))
    ends = [e for e in events if e["type"] == "turn/end"]
    assert ends and ends[-1]["data"]["reason"]["kind"] == "error", readme(
        "SCH-055",
        "dispatch does not depend on the follow up turn succeeding: ends and "
        "ends[-1]['data']['reason']['kind'] == 'error'",
    )
    assert _listed(agent) == [], readme(
        "SCH-055", "the dispatched one-shot to be inactive", _listed(agent))
    host.advance(3600)
    # No retry: the failed follow-up is neither dispatched nor delivered again.
    events = agent.events()
    assert transitions(events, [rec1]) == [id1], readme(
        "SCH-055", "the dispatch recorded although the follow-up turn fails",
        transition_events(events, [rec1]))
    assert len(reminder_messages(events)) <= 1, readme(
        "SCH-055",
        "dispatch does not depend on the follow up turn succeeding: "
        "len(reminder_messages(events)) <= 1",
        len(reminder_messages(events)),
    )


# -- failures --------------------------------------------------------------------------


@pytest.mark.spec("SCH-056")
def test_a_failed_follow_up_writes_no_dispatch(host, agent):
    rec1 = create(agent, {"prompt": "x", "after_seconds": 60})
    id1 = rec1.id
    host.faults.fail_followups()
    host.advance(60)
    assert transitions(agent.events(), [rec1]) == [], readme(
        "SCH-056", "no dispatch when the follow-up fails",
        transition_events(agent.events(), [rec1]))
    assert reminder_messages(agent.events()) == [], readme(
        "SCH-056",
        "a failed follow up writes no dispatch: reminder_messages(agent.events()) == []",
        reminder_messages(agent.events()),
    )
    states = [(view.get("id"), view.get("state")) for view in _listed(agent)]
    assert states == [(id1, "overdue")], readme(
        "SCH-056, SCH-085", "the record to stay active, listed overdue", states)


@pytest.mark.spec("SCH-057")
def test_a_failed_dispatch_append_faults_the_owner_but_tools_still_work(host, agent):
    rec1 = create(agent, {"prompt": "A", "after_seconds": 60})
    id1 = rec1.id
    rec2 = create(agent, {"prompt": "B", "after_seconds": 120})
    id2 = rec2.id
    host.faults.fail_appends(event_type="schedule/change")
    host.advance(60)
    assert transitions(agent.events(), [rec1, rec2]) == [], readme(
        "SCH-057", "no dispatch when its append fails",
        transition_events(agent.events(), [rec1, rec2]))
    host.advance(3600)
    listed = [v.get("id") for v in _listed(agent)]
    assert listed == [id1, id2], readme(
        "SCH-057", "both records still active and listed by the tools of the faulted owner",
        listed)
    rec3 = create(agent, {"prompt": "C", "after_seconds": 60})
    assert rec3.id not in (id1, id2), readme(
        "SCH-034, SCH-057", "a create after the fault to allocate a fresh id", rec3.id)
    deleted = agent.call_tool("schedule_delete", {"id": id2}).value
    assert delete_succeeded(deleted), readme("SCH-036, SCH-057",
                                             "the delete of an active id to succeed", deleted)
    host.advance(3600)
    assert transitions(agent.events(), [rec1, rec2, rec3]) == [id2], readme(
        "SCH-057", "the faulted owner to dispatch nothing more (the only transition is the "
        "delete)", transition_events(agent.events(), [rec1, rec2, rec3]))
    texts = reminder_framings(agent.events())
    assert len(texts) <= 1, readme(
        "SCH-057",
        "a failed dispatch append faults the owner but tools still work: len(texts) <= 1",
        len(texts),
    )  # the follow-up may already have been queued
    assert all(json.dumps(id1) in text for text in texts), readme(
        "SCH-057", "the one message the failed dispatch may have queued to be the first "
        "record's", texts)


@pytest.mark.spec("SCH-057")
@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
def test_a_rejected_dispatch_barrier_is_recovered_by_a_later_preflight(host, agent, outcome):
    rec1 = create(agent, {"prompt": "A", "after_seconds": 60})
    id1 = rec1.id
    host.faults.fail_flushes(outcome, first=2, count=1)  # due preflight ok, barrier fails
    host.advance(60)
    assert transitions(agent.events(), [rec1]) == [id1], readme(
        "SCH-057", "the dispatch to stay appended when its barrier is " + outcome,
        transition_events(agent.events(), [rec1]))
    assert any(r.outcome == outcome for r in flushes_of(host, agent.session_id)), readme(
        "SCH-057",
        f"the dispatch barrier to have been {outcome}",
        flushes_of(host, agent.session_id),
    )
    assert _listed(agent) == [], readme(
        "SCH-057", "the dispatched one-shot to be inactive for the list", _listed(agent))
    durable = host.durable_events(agent.session_id)
    assert transitions(durable, [rec1]) == [id1], readme(
        "SCH-057", "the list's ordinary preflight to make the pending dispatch durable",
        transition_events(durable, [rec1]))
    host.crash()
    resumed = host.resume(agent.session_id)
    host.advance(60)
    assert len(reminder_messages(resumed.events())) <= 1, readme(
        "SCH-057",
        "a rejected dispatch barrier is recovered by a later preflight: "
        "len(reminder_messages(resumed.events())) <= 1",
        len(reminder_messages(resumed.events())),
    )
    assert transitions(resumed.events(), [rec1]) == [id1], readme(
        "SCH-057", "no second dispatch after the resume",
        transition_events(resumed.events(), [rec1]))


# -- disposal --------------------------------------------------------------------------


@pytest.mark.spec("SCH-058")
def test_agent_disposal_cancels_timers_without_deleting_records(host, agent):
    rec1 = create(agent, {"prompt": "A", "after_seconds": 60})
    id1 = rec1.id
    rec2 = create(agent, {"prompt": "B", "every_seconds": 300})
    id2 = rec2.id
    durable = host.durable_events(agent.session_id)
    agent.dispose()
    host.advance(600)
    assert host.durable_events(agent.session_id) == durable, readme(
        "SCH-058",
        "agent disposal cancels timers without deleting records: "
        "host.durable_events(agent.session_id) == durable",
        host.durable_events(agent.session_id),
    )
    assert transitions(agent.events(), [rec1, rec2]) == [], readme(
        "SCH-058", "no dispatch after the agent's disposal",
        transition_events(agent.events(), [rec1, rec2]))
    resumed = host.resume(agent.session_id)
    assert transitions(resumed.events(), [rec1, rec2]) == [id1, id2], readme(
        "SCH-058, SCH-084", "the kept records to be delivered once the session resumes",
        transition_events(resumed.events(), [rec1, rec2]))


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
    record = create(agent, {"prompt": "A", "after_seconds": 60})
    host.faults.fail_flushes("hang")
    host.advance(60)  # the due preflight hangs
    with pytest.raises(HostStuckError):
        host.unload_plugin("schedule")
    host.faults.release_hung_flushes()
    host.run_until_idle()
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-058", "no dispatch once the plugin is disposed, after the preflight settles",
        transition_events(agent.events(), [record]))
    assert reminder_messages(agent.events()) == [], readme(
        "SCH-058",
        "disposal waits for an in flight preflight and then writes nothing: "
        "reminder_messages(agent.events()) == []",
        reminder_messages(agent.events()),
    )


# -- restart ----------------------------------------------------------------------------


@pytest.mark.spec("SCH-044", "SCH-084")
def test_resume_dispatches_overdue_one_shots_then_the_every_batch(host, agent):
    rec1 = create(agent, {"prompt": "One", "after_seconds": 60})
    id1 = rec1.id
    rec2 = create(agent, {"prompt": "Every", "every_seconds": 300})
    id2 = rec2.id
    host.crash()
    host.advance(3610)
    resumed = host.resume(agent.session_id)
    events = resumed.events()
    assert reminder_framings(events) == [
        one_shot_framing(json.dumps(id1), "2026-01-01T00:01:00.000Z", '"One"'),
        batch_framing(f'[{{"schedule_id":{json.dumps(id2)},"occurrence_at":"2026-01-01T01:00:00.000Z",'
                      '"reminder_prompt":"Every"}]'),
    ], readme(
        "SCH-044, SCH-084",
        "resume dispatches overdue one shots then the every batch: reminder_framings(events) == "
        "[one_shot_framing(json.dumps(id1), '2026-01-01T00:01:00.000Z', '\"One\"'), "
        "batch_framing('[{\"s...",
        reminder_framings(events),
    )
    assert transitions(events, [rec1, rec2]) == [id1, id2], readme(
        "SCH-044, SCH-084", "the one-shot dispatched first, then the Every record",
        transition_events(events, [rec1, rec2]))
    _assert_each_reminder_opens_its_own_later_turn(events, 2)
    views = [(v.get("id"), suite_instant(v.get("scheduledAt")), v.get("state"))
             for v in _listed(resumed)]
    assert views == [(id2, "2026-01-01T01:05:00.000Z", "scheduled")], readme(
        "SCH-050, SCH-084", "the Every record advanced to its first future target, scheduled",
        views)


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


# -- pinned: the dispatch payloads, and logs spelled in the official layout ------------------


@pytest.mark.compat("SCH-LOG-INTEROP")
@pytest.mark.spec("SCH-042")
def test_the_earliest_target_of_an_official_log_fires_first(host):
    seed = seed_log(after_create("schedule-1", "Second", 120, "2026-01-01T00:02:00.000Z"),
                    at_create("schedule-2", "First", "2026-01-01T00:01:00.000Z"))
    agent = host.create_agent(seed=seed)
    host.advance(60)
    assert dispatches(agent.events()) == [_dispatch("schedule-2")], pinned(
        "SCH-LOG-INTEROP", "the earliest target of the seeded log to fire first",
        dispatches(agent.events()))
    host.advance(60)
    expected = [_dispatch("schedule-2"), _dispatch("schedule-1")]
    assert dispatches(agent.events()) == expected, pinned(
        "SCH-LOG-INTEROP", "the second seeded record to fire at its target",
        dispatches(agent.events()))
    assert _message_times(agent.events()) == [START_MS + 60_000, START_MS + 120_000], pinned(
        "SCH-LOG-INTEROP", "the reminders at 00:01:00 and 00:02:00",
        _message_times(agent.events()))


@pytest.mark.compat("SCH-LOG-INTEROP")
@pytest.mark.spec("SCH-044", "SCH-075")
def test_due_one_shots_of_an_official_log_come_first(dsh_host_factory):
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
    ], pinned("SCH-LOG-INTEROP", "the seeded one-shots first, in target then creation order, "
              "then the batch", reminder_texts(events))
    assert dispatches(events) == [
        _dispatch("schedule-4"), _dispatch("schedule-2"), _dispatch("schedule-3"),
        _dispatch("schedule-1", "2026-01-01T00:02:00.000Z"),
    ], pinned("SCH-LOG-INTEROP", "one dispatch per seeded reminder, in delivery order",
              dispatches(events))


@pytest.mark.compat("SCH-LOG-INTEROP")
@pytest.mark.spec("SCH-045", "SCH-050", "SCH-076")
def test_overdue_every_records_of_an_official_log_form_one_batch(dsh_host_factory):
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
    ], pinned("SCH-LOG-INTEROP", "one batch over the seeded records, in target then creation "
              "order", dispatches(agent.events()))
    assert reminder_texts(agent.events()) == [batch_framing(
        '[{"schedule_id":"schedule-4","occurrence_at":"2026-01-01T00:15:30.000Z",'
        '"reminder_prompt":"D"},'
        '{"schedule_id":"schedule-1","occurrence_at":"2026-01-01T00:16:00.000Z",'
        '"reminder_prompt":"A"},'
        '{"schedule_id":"schedule-2","occurrence_at":"2026-01-01T00:02:00.000Z",'
        '"reminder_prompt":"B"},'
        '{"schedule_id":"schedule-3","occurrence_at":"2026-01-01T00:12:00.000Z",'
        '"reminder_prompt":"C"}]'
    )], pinned("SCH-LOG-INTEROP", "each seeded record's latest due occurrence in one batch",
               reminder_texts(agent.events()))
    listed = [(v["id"], v["scheduledAt"]) for v in agent.call_tool("schedule_list", {}).value]
    assert listed == [
        ("schedule-1", "2026-01-01T00:21:00.000Z"),
        ("schedule-2", "2026-01-01T01:02:00.000Z"),
        ("schedule-3", "2026-01-01T00:22:00.000Z"),
        ("schedule-4", "2026-01-01T00:30:30.000Z"),
    ], pinned("SCH-LOG-INTEROP", "the seeded records advanced to their first future targets",
              listed)

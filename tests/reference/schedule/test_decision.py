"""due_decision: one-shot priority, batch order, wait targets (notes §7.5, §13 items 49-51)."""

from __future__ import annotations

import pytest

from dsh_reference.schedule.core import (
    BatchReminder,
    EveryBatchDue,
    FoldedSchedule,
    OneShotDue,
    ScheduleLogError,
    Wait,
    due_decision,
    fold_schedule_events,
    parse_iso_ms,
)


def at(schedule_id, scheduled_at):
    return {"id": schedule_id, "kind": "at", "prompt": schedule_id, "scheduledAt": scheduled_at}


def every(schedule_id, scheduled_at, seconds=300):
    return {
        "id": schedule_id,
        "kind": "every",
        "prompt": schedule_id,
        "everySeconds": seconds,
        "scheduledAt": scheduled_at,
    }


def folded(*records):
    return FoldedSchedule(active=records, seen_ids=tuple(record["id"] for record in records))


def ms(text):
    return parse_iso_ms(text)


def test_nothing_active_means_waiting_forever():
    assert due_decision(folded(), ms("2026-01-01T00:00:00.000Z")) == Wait(None)


def test_nothing_due_means_waiting_for_the_earliest_target():
    state = folded(
        at("a", "2026-01-01T00:10:00.000Z"),
        every("b", "2026-01-01T00:05:00.000Z"),
        at("c", "2026-01-01T00:07:00.000Z"),
    )
    assert due_decision(state, ms("2026-01-01T00:04:59.999Z")) == Wait(
        ms("2026-01-01T00:05:00.000Z")
    )


def test_a_target_equal_to_now_is_due():
    record = at("a", "2026-01-01T00:05:00.000Z")
    assert due_decision(folded(record), ms("2026-01-01T00:05:00.000Z")) == OneShotDue(record)


def test_one_shots_due_at_the_same_target_go_in_creation_order():
    first = at("schedule-1", "2026-01-01T00:05:00.000Z")
    second = at("schedule-2", "2026-01-01T00:05:00.000Z")
    decision = due_decision(folded(first, second), ms("2026-01-01T00:06:00.000Z"))
    assert decision == OneShotDue(first)


def test_the_earliest_due_one_shot_goes_first():
    late = at("schedule-1", "2026-01-01T00:05:00.000Z")
    early = at("schedule-2", "2026-01-01T00:04:00.000Z")
    assert due_decision(folded(late, early), ms("2026-01-01T00:06:00.000Z")) == OneShotDue(early)


def test_a_due_one_shot_outranks_an_every_record_with_an_earlier_target():
    recurring = every("schedule-1", "2026-01-01T00:01:00.000Z")
    one_shot = at("schedule-2", "2026-01-01T00:05:00.000Z")
    decision = due_decision(folded(recurring, one_shot), ms("2026-01-01T00:06:00.000Z"))
    assert decision == OneShotDue(one_shot)


def test_due_every_records_form_one_batch_by_target_then_creation_order():
    b = every("b", "2026-01-01T00:02:00.000Z", 3600)
    a = every("a", "2026-01-01T00:01:00.000Z", 300)
    c = every("c", "2026-01-01T00:02:00.000Z", 300)
    later = every("d", "2026-01-01T00:21:00.000Z", 300)
    decision = due_decision(folded(b, a, c, later), ms("2026-01-01T00:20:00.000Z"))
    assert decision == EveryBatchDue(
        accepted_at="2026-01-01T00:20:00.000Z",
        reminders=(
            BatchReminder(a, "2026-01-01T00:16:00.000Z"),
            BatchReminder(b, "2026-01-01T00:02:00.000Z"),
            BatchReminder(c, "2026-01-01T00:17:00.000Z"),
        ),
    )


def test_after_a_batch_each_record_advances_to_its_first_aligned_target_after_accepted_at():
    def create(record):
        return {
            "type": "schedule/change",
            "data": {"version": 1, "operation": "create", "schedule": record},
        }

    log = [
        create(every("a", "2026-01-01T00:01:00.000Z", 300)),
        create(every("b", "2026-01-01T00:02:00.000Z", 3600)),
    ]
    decision = due_decision(fold_schedule_events(log), ms("2026-01-01T00:20:00.000Z"))
    assert isinstance(decision, EveryBatchDue)
    for reminder in decision.reminders:
        log.append(
            {
                "type": "schedule/change",
                "data": {
                    "version": 1,
                    "operation": "dispatch",
                    "id": reminder.record["id"],
                    "acceptedAt": decision.accepted_at,
                },
            }
        )
    after_batch = fold_schedule_events(log).active
    assert [record["scheduledAt"] for record in after_batch] == [
        "2026-01-01T00:21:00.000Z",
        "2026-01-01T01:02:00.000Z",
    ]


@pytest.mark.parametrize("now", [253402300800000, 2**53])
def test_a_clock_outside_four_digit_years_cannot_decide_a_due_batch(now):
    state = folded(every("a", "0001-01-01T00:00:00.000Z"))
    with pytest.raises(ScheduleLogError):
        due_decision(state, now)

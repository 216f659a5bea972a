"""The invariant companion's policy: same fold on logs and on candidate events (notes §9)."""

from __future__ import annotations

import pytest

from dsh_reference.schedule.core import ScheduleLogError, check_candidate_event, check_schedule_log


def change(data):
    return {"type": "schedule/change", "seq": 0, "time": 0, "data": data}


def create(schedule_id):
    record = {
        "id": schedule_id,
        "kind": "at",
        "prompt": "p",
        "scheduledAt": "2026-01-02T08:30:00.000Z",
    }
    return change({"version": 1, "operation": "create", "schedule": record})


def delete(schedule_id):
    return change({"version": 1, "operation": "delete", "id": schedule_id})


def test_a_valid_log_passes():
    check_schedule_log([create("schedule-1"), delete("schedule-1"), create("schedule-2")])


def test_a_log_with_a_reused_id_is_refused():
    with pytest.raises(ScheduleLogError) as caught:
        check_schedule_log([create("schedule-1"), create("schedule-1")])
    assert caught.value.message == 'schedule id "schedule-1" was reused'


def test_a_candidate_that_would_corrupt_the_log_is_refused_and_the_log_is_untouched():
    log = [create("schedule-1")]
    with pytest.raises(ScheduleLogError) as caught:
        check_candidate_event(log, delete("schedule-2"))
    assert caught.value.message == 'schedule delete targets inactive id "schedule-2"'
    assert log == [create("schedule-1")]


def test_a_valid_candidate_passes():
    check_candidate_event([create("schedule-1")], delete("schedule-1"))


def test_candidates_of_other_types_are_not_checked_even_over_a_corrupt_log():
    corrupt = [create("x"), create("x")]
    check_candidate_event(corrupt, {"type": "user/message", "data": "garbage"})


@pytest.mark.parametrize("seed_length", [None, 0])
def test_a_missing_seed_length_means_the_whole_log(seed_length):
    with pytest.raises(ScheduleLogError):
        check_candidate_event([create("schedule-1")], create("schedule-1"), seed_length)


def test_a_fork_seed_length_is_honoured():
    parent = [create("schedule-1")]
    check_candidate_event(parent, create("schedule-1"), 1)
    with pytest.raises(ScheduleLogError) as caught:
        check_candidate_event(parent, delete("schedule-1"), 1)
    assert caught.value.message == 'schedule delete targets inactive id "schedule-1"'


def test_a_seed_length_beyond_the_log_is_refused():
    with pytest.raises(ScheduleLogError) as caught:
        check_schedule_log([], 1)
    assert caught.value.message == "schedule seedLength must be within the supplied event log"

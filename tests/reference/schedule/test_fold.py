"""fold_schedule_events and allocate_schedule_id (notes §2.4, §3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_reference.schedule.core import (
    FoldedSchedule,
    ScheduleFold,
    ScheduleLogError,
    allocate_schedule_id,
    fold_schedule_events,
)


def event(data, event_type="schedule/change"):
    return {"type": event_type, "seq": 0, "time": 1_767_225_600_000, "data": data}


def after(schedule_id, scheduled_at="2026-01-01T00:01:30.000Z", prompt="p"):
    return {
        "id": schedule_id,
        "kind": "after",
        "prompt": prompt,
        "afterSeconds": 90,
        "scheduledAt": scheduled_at,
    }


def at(schedule_id, scheduled_at="2026-01-02T08:30:00.500Z"):
    return {"id": schedule_id, "kind": "at", "prompt": "p", "scheduledAt": scheduled_at}


def every(schedule_id, scheduled_at="2026-01-01T00:05:00.000Z", seconds=300):
    return {
        "id": schedule_id,
        "kind": "every",
        "prompt": "p",
        "everySeconds": seconds,
        "scheduledAt": scheduled_at,
    }


def create(record):
    return event({"version": 1, "operation": "create", "schedule": record})


def delete(schedule_id):
    return event({"version": 1, "operation": "delete", "id": schedule_id})


def dispatch(schedule_id, accepted_at=None):
    data = {"version": 1, "operation": "dispatch", "id": schedule_id}
    if accepted_at is not None:
        data["acceptedAt"] = accepted_at
    return event(data)


def corrupt_message(events, seed_length=0):
    with pytest.raises(ScheduleLogError) as caught:
        fold_schedule_events(events, seed_length)
    return caught.value.message


def test_an_empty_log_folds_to_nothing():
    assert fold_schedule_events([]) == FoldedSchedule(active=(), seen_ids=())


def test_active_records_keep_creation_order_and_dispatched_ids_stay_seen():
    events = [
        create(after("schedule-1")),
        create(every("schedule-2", "2026-01-01T01:00:00.000Z", 3600)),
        create(at("schedule-3")),
        event({"irrelevant": True}, "user/message"),
        dispatch("schedule-1"),
    ]
    folded = fold_schedule_events(events)
    assert [record["id"] for record in folded.active] == ["schedule-2", "schedule-3"]
    assert folded.seen_ids == ("schedule-1", "schedule-2", "schedule-3")


def test_deleted_records_leave_active_but_not_seen():
    folded = fold_schedule_events([create(at("a")), create(at("b")), delete("a")])
    assert [record["id"] for record in folded.active] == ["b"]
    assert folded.seen_ids == ("a", "b")


@pytest.mark.parametrize(
    ("events", "message"),
    [
        (
            [create(at("schedule-1")), create(at("schedule-1"))],
            'schedule id "schedule-1" was reused',
        ),
        (
            [create(at("schedule-1")), delete("schedule-1"), create(at("schedule-1"))],
            'schedule id "schedule-1" was reused',
        ),
        ([create(at('a"b')), create(at('a"b'))], 'schedule id "a\\"b" was reused'),
        ([create(at("é\u2028😀")), create(at("é\u2028😀"))], 'schedule id "é\u2028😀" was reused'),
        ([delete("schedule-9")], 'schedule delete targets inactive id "schedule-9"'),
        (
            [create(at("schedule-1")), delete("schedule-1"), delete("schedule-1")],
            'schedule delete targets inactive id "schedule-1"',
        ),
        ([dispatch("schedule-9")], 'schedule dispatch targets inactive id "schedule-9"'),
        (
            [create(at("schedule-1")), dispatch("schedule-1"), dispatch("schedule-1")],
            'schedule dispatch targets inactive id "schedule-1"',
        ),
        (
            [create(after("schedule-1")), dispatch("schedule-1"), delete("schedule-1")],
            'schedule delete targets inactive id "schedule-1"',
        ),
        (
            [create(after("x")), dispatch("x", "2026-01-01T00:02:00.000Z")],
            "one-shot dispatch must not contain acceptedAt",
        ),
        (
            [create(at("x")), dispatch("x", "2026-01-03T00:00:00.000Z")],
            "one-shot dispatch must not contain acceptedAt",
        ),
        ([create(every("x")), dispatch("x")], "every dispatch must contain acceptedAt"),
        (
            [create(every("x")), dispatch("x", "2026-01-01T00:04:59.999Z")],
            "every dispatch cannot precede the active scheduledAt",
        ),
        ([create(at("x")), event("garbage")], "schedule/change payload must be an object"),
        (
            [event({"version": 1, "operation": "create"})],
            ("schedule create must contain exactly version, operation, and schedule"),
        ),
    ],
)
def test_protocol_breaches_raise_with_the_exact_message(events, message):
    assert corrupt_message(events) == message


def test_every_dispatch_at_exactly_scheduled_at_advances_one_interval():
    events = [create(every("x")), dispatch("x", "2026-01-01T00:05:00.000Z")]
    (record,) = fold_schedule_events(events).active
    assert record["scheduledAt"] == "2026-01-01T00:10:00.000Z"


def test_every_dispatch_skips_missed_intervals_to_the_first_target_after_accepted_at():
    events = [create(every("x")), dispatch("x", "2026-01-01T01:07:13.000Z")]
    (record,) = fold_schedule_events(events).active
    assert record == every("x", "2026-01-01T01:10:00.000Z")


def test_an_advanced_every_record_keeps_its_creation_position():
    events = [
        create(every("first")),
        create(at("second")),
        dispatch("first", "2026-01-01T00:05:00.000Z"),
    ]
    assert [record["id"] for record in fold_schedule_events(events).active] == ["first", "second"]


def test_an_every_record_is_removed_by_its_final_dispatch_near_year_9999():
    events = [
        create(every("x", "9999-12-31T23:55:00.000Z")),
        dispatch("x", "9999-12-31T23:56:00.000Z"),
    ]
    assert fold_schedule_events(events) == FoldedSchedule(active=(), seen_ids=("x",))


def test_an_exhausted_every_record_cannot_be_dispatched_again():
    events = [
        create(every("x", "9999-12-31T23:55:00.000Z")),
        dispatch("x", "9999-12-31T23:56:00.000Z"),
        dispatch("x", "9999-12-31T23:57:00.000Z"),
    ]
    assert corrupt_message(events) == 'schedule dispatch targets inactive id "x"'


def test_events_of_other_types_are_not_inspected():
    events = [
        event(None, "user/message"),
        event("garbage", "schedule/changes"),
        {"no": "type"},
        event({"version": 99}, "Schedule/Change"),
        create(at("x")),
    ]
    assert [record["id"] for record in fold_schedule_events(events).active] == ["x"]


@dataclass
class AttributeEvent:
    type: str
    data: object


def test_events_may_be_objects_with_type_and_data_attributes():
    events = [AttributeEvent("schedule/change", create(at("x"))["data"])]
    assert fold_schedule_events(events).seen_ids == ("x",)


@pytest.mark.parametrize(
    ("events", "seed_length"),
    [
        ([], -1),
        ([create(at("x"))], 1.5),
        ([create(at("x"))], 2),
        ([], 1),
        ([], None),
        ([], True),
        ([], "0"),
    ],
)
def test_seed_length_must_lie_within_the_log(events, seed_length):
    assert corrupt_message(events, seed_length) == (
        "schedule seedLength must be within the supplied event log"
    )


@pytest.mark.parametrize("seed_length", [0, 1.0, 2])
def test_seed_length_at_either_end_of_the_log_is_accepted(seed_length):
    events = [create(at("a")), create(at("b"))]
    expected = ("a", "b")[int(seed_length) :]
    assert fold_schedule_events(events, seed_length).seen_ids == expected


def test_a_fork_does_not_own_its_parents_records():
    parent = [create(at("schedule-1"))]
    assert fold_schedule_events(parent, 1) == FoldedSchedule(active=(), seen_ids=())


def test_a_fork_deleting_a_parent_record_is_corrupt():
    events = [create(at("schedule-1")), delete("schedule-1")]
    assert corrupt_message(events, 1) == 'schedule delete targets inactive id "schedule-1"'


def test_a_fork_may_reuse_a_parent_id_in_its_own_suffix():
    events = [create(at("schedule-1")), create(at("schedule-1"))]
    assert fold_schedule_events(events, 1).seen_ids == ("schedule-1",)
    assert corrupt_message(events, 0) == 'schedule id "schedule-1" was reused'


def test_a_fork_allocates_its_first_id_afresh():
    folded = fold_schedule_events([create(at("schedule-1"))], 1)
    assert allocate_schedule_id(folded) == "schedule-1"


@pytest.mark.parametrize(
    ("seen_ids", "expected"),
    [
        ((), "schedule-1"),
        (("schedule-1",), "schedule-2"),
        (("schedule-2",), "schedule-3"),
        (("schedule-1", "schedule-3"), "schedule-4"),
        (("schedule-3", "schedule-1"), "schedule-4"),
        (("foo",), "schedule-2"),
        (("schedule-2", "schedule-3", "schedule-4"), "schedule-5"),
        (("schedule-5", "x"), "schedule-3"),
    ],
)
def test_allocation_probes_upward_from_seen_count_plus_one(seen_ids, expected):
    assert allocate_schedule_id(FoldedSchedule(active=(), seen_ids=seen_ids)) == expected


def test_allocation_never_reuses_a_deleted_id():
    folded = fold_schedule_events([create(at("schedule-1")), delete("schedule-1")])
    assert allocate_schedule_id(folded) == "schedule-2"


_OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(["create-after", "create-every", "delete", "dispatch"]), st.integers(0, 9)
    ),
    max_size=30,
)


@given(_OPERATIONS)
def test_any_valid_create_delete_dispatch_sequence_folds_without_reusing_ids(operations):
    events: list[dict[str, object]] = []
    created: list[str] = []
    for operation, pick in operations:
        folded = fold_schedule_events(events)
        active_ids = [record["id"] for record in folded.active]
        if operation.startswith("create"):
            schedule_id = allocate_schedule_id(folded)
            assert schedule_id not in folded.seen_ids
            record = after(schedule_id) if operation == "create-after" else every(schedule_id)
            events.append(create(record))
            created.append(schedule_id)
        elif active_ids:
            target = folded.active[pick % len(active_ids)]
            if operation == "delete":
                events.append(delete(target["id"]))
            elif target["kind"] == "every":
                events.append(dispatch(target["id"], target["scheduledAt"]))
            else:
                events.append(dispatch(target["id"]))
    folded = fold_schedule_events(events)
    assert folded.seen_ids == tuple(created)
    assert len(set(created)) == len(created)


class _IndexOnly(Sequence[object]):
    """A sequence read by index only: its ``__getitem__`` refuses slices."""

    def __init__(self, events: list[object]) -> None:
        self._events = events

    def __len__(self) -> int:
        return len(self._events)

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        if not isinstance(index, int):
            raise TypeError("no slices")
        return self._events[index]


class _ShortSlices(_IndexOnly):
    """A sequence whose slices are wrong (one event short): the fold must not trust them."""

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        if isinstance(index, slice):
            return self._events[index][:-1]
        return self._events[index]


@pytest.mark.parametrize("wrap", [list, tuple, _IndexOnly, _ShortSlices])
@pytest.mark.parametrize("start", [0, 1, 3, 6])
def test_folding_a_suffix_reads_the_same_events_from_any_sequence(wrap, start):
    events = [
        event(None, "user/message"),
        create(every("a")),
        event({"turn": 1}, "turn/start"),
        create(at("b")),
        AttributeEvent("schedule/change", dispatch("a", "2026-01-01T00:05:00.000Z")["data"]),
        delete("b"),
    ]
    folded, expected = ScheduleFold(), ScheduleFold()
    for one in events:  # the expected fold: one event at a time
        expected.apply(one)
    for one in events[:start]:  # what an earlier read folded already
        folded.apply(one)
    folded.apply_all(wrap(events), start)
    assert list(folded.targets()) == list(expected.targets())
    assert folded.active() == expected.active()

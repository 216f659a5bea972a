"""resolve_every_occurrence: latest due occurrence, next target, exhaustion (notes §4.7)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_reference.schedule.core import (
    EveryOccurrence,
    ScheduleLogError,
    parse_iso_ms,
    resolve_every_occurrence,
)


def every(scheduled_at, seconds=300):
    return {
        "id": "x",
        "kind": "every",
        "prompt": "p",
        "everySeconds": seconds,
        "scheduledAt": scheduled_at,
    }


def ms(text):
    return parse_iso_ms(text)


@pytest.mark.parametrize(
    ("scheduled_at", "seconds", "accepted_at", "occurrence_at", "next_scheduled_at"),
    [
        (
            "2026-01-01T00:05:00.000Z",
            300,
            "2026-01-01T01:07:13.000Z",
            "2026-01-01T01:05:00.000Z",
            "2026-01-01T01:10:00.000Z",
        ),
        (
            "2026-01-01T00:01:00.000Z",
            300,
            "2026-01-01T00:06:00.000Z",
            "2026-01-01T00:06:00.000Z",
            "2026-01-01T00:11:00.000Z",
        ),
        (
            "2026-01-01T00:01:00.000Z",
            300,
            "2026-01-01T00:01:00.000Z",
            "2026-01-01T00:01:00.000Z",
            "2026-01-01T00:06:00.000Z",
        ),
        (
            "2026-01-01T00:02:00.000Z",
            3600,
            "2026-01-01T00:20:00.000Z",
            "2026-01-01T00:02:00.000Z",
            "2026-01-01T01:02:00.000Z",
        ),
        (
            "2026-01-01T00:00:00.123Z",
            86400,
            "2026-01-03T00:00:00.122Z",
            "2026-01-02T00:00:00.123Z",
            "2026-01-03T00:00:00.123Z",
        ),
        (
            "9999-12-31T23:50:00.000Z",
            300,
            "9999-12-31T23:50:00.000Z",
            "9999-12-31T23:50:00.000Z",
            "9999-12-31T23:55:00.000Z",
        ),
    ],
)
def test_dispatch_delivers_the_latest_due_occurrence_and_advances_past_it(
    scheduled_at, seconds, accepted_at, occurrence_at, next_scheduled_at
):
    resolved = resolve_every_occurrence(every(scheduled_at, seconds), ms(accepted_at))
    assert resolved == EveryOccurrence(occurrence_at, next_scheduled_at)


def test_no_next_target_after_the_last_representable_instant_means_exhausted():
    resolved = resolve_every_occurrence(
        every("9999-12-31T23:55:00.000Z"), ms("9999-12-31T23:56:00.000Z")
    )
    assert resolved == EveryOccurrence("9999-12-31T23:55:00.000Z", None)


@pytest.mark.parametrize("accepted_at_ms", [-62135596800001, 253402300800000, 1.5, True, None])
def test_accepted_at_must_be_a_representable_instant(accepted_at_ms):
    with pytest.raises(ScheduleLogError) as caught:
        resolve_every_occurrence(every("2026-01-01T00:05:00.000Z"), accepted_at_ms)
    assert (
        caught.value.message == "every acceptedAt must be a representable four-digit-year instant"
    )


@pytest.mark.parametrize("seconds", [0, -300, 1.5, True, "300", 2**53])
def test_interval_must_be_positive_safe_milliseconds(seconds):
    with pytest.raises(ScheduleLogError) as caught:
        resolve_every_occurrence(every("2026-01-01T00:05:00.000Z", seconds), 0)
    assert caught.value.message == "every interval milliseconds must be a positive safe integer"


def test_accepted_at_before_scheduled_at_is_refused():
    with pytest.raises(ScheduleLogError) as caught:
        resolve_every_occurrence(every("2026-01-01T00:05:00.000Z"), ms("2026-01-01T00:04:59.999Z"))
    assert caught.value.message == "every dispatch cannot precede the active scheduledAt"


def test_an_unparseable_scheduled_at_breaks_the_arithmetic():
    with pytest.raises(ScheduleLogError) as caught:
        resolve_every_occurrence(every("not a time"), 0)
    assert caught.value.message == (
        "every occurrence arithmetic must stay within the accepted interval"
    )


@given(
    target=st.integers(0, 4_102_444_800_000),
    seconds=st.integers(300, 10**7),
    elapsed=st.integers(0, 10**12),
)
def test_occurrence_is_aligned_and_brackets_accepted_at(target, seconds, elapsed):
    from dsh_reference.schedule.core import format_iso_ms

    resolved = resolve_every_occurrence(every(format_iso_ms(target), seconds), target + elapsed)
    occurrence = ms(resolved.occurrence_at)
    assert (occurrence - target) % (seconds * 1000) == 0
    assert occurrence <= target + elapsed < ms(resolved.next_scheduled_at)
    assert ms(resolved.next_scheduled_at) - occurrence == seconds * 1000

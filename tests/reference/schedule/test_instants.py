"""Canonical instants, their bounds, and the future-instant gate (notes §4.1)."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_reference.schedule.core import (
    MAX_EPOCH_MS,
    MIN_EPOCH_MS,
    ScheduleInputError,
    format_iso_ms,
    future_instant,
    has_canonical_iso_shape,
    parse_iso_ms,
)

NOW = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z
OUT_OF_RANGE = (
    "time_out_of_range",
    "The scheduled time must be representable as a four-digit-year RFC 3339 UTC instant.",
)
NOT_FUTURE = ("not_future", "The scheduled time must be strictly in the future.")


def test_bounds_are_the_first_and_last_millisecond_of_four_digit_years():
    assert MIN_EPOCH_MS == -62135596800000
    assert MAX_EPOCH_MS == 253402300799999


@pytest.mark.parametrize(
    ("epoch_ms", "text"),
    [
        (0, "1970-01-01T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (1_767_225_600_000, "2026-01-01T00:00:00.000Z"),
        (1_767_225_690_500, "2026-01-01T00:01:30.500Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (-62135596800000, "0001-01-01T00:00:00.000Z"),
        (253402300799999, "9999-12-31T23:59:59.999Z"),
    ],
)
def test_format_and_parse_are_inverse_on_canonical_instants(epoch_ms, text):
    assert format_iso_ms(epoch_ms) == text
    assert parse_iso_ms(text) == epoch_ms


@pytest.mark.parametrize("epoch_ms", [-62135596800001, 253402300800000, 1.5, True])
def test_format_rejects_values_outside_four_digit_years(epoch_ms):
    with pytest.raises(ValueError):
        format_iso_ms(epoch_ms)


def test_format_accepts_an_integral_float():
    assert format_iso_ms(0.0) == "1970-01-01T00:00:00.000Z"


@pytest.mark.parametrize(
    "text",
    [
        "2026-02-30T00:00:00.000Z",
        "2025-02-29T00:00:00.000Z",
        "2026-04-31T00:00:00.000Z",
        "1900-02-29T00:00:00.000Z",
    ],
)
def test_calendar_impossible_instants_have_canonical_shape_but_do_not_parse(text):
    assert has_canonical_iso_shape(text)
    assert parse_iso_ms(text) is None


def test_leap_day_of_a_leap_year_parses():
    assert parse_iso_ms("2024-02-29T00:00:00.000Z") == 1_709_164_800_000


@pytest.mark.parametrize(
    "text",
    [
        "2026-01-01T00:00:00Z",
        "2026-01-01T00:00:00.5Z",
        "2026-01-01T00:00:00.0000Z",
        "2026-01-01T00:00:00.000z",
        "2026-01-01t00:00:00.000Z",
        "2026-01-01 00:00:00.000Z",
        "2026-01-01T00:00:00.000+00:00",
        "2026-01-01T00:00:00.000Z\n",
        "0000-01-01T00:00:00.000Z",
        "+02026-01-01T00:00:00.000Z",
        "\uff12\uff10\uff12\uff16-01-01T00:00:00.000Z",
        "2026-13-01T00:00:00.000Z",
        "2026-01-32T00:00:00.000Z",
        "2026-01-01T24:00:00.000Z",
        "2026-01-01T00:00:60.000Z",
        5,
        None,
    ],
)
def test_non_canonical_texts_fail_the_shape_check(text):
    assert not has_canonical_iso_shape(text)
    assert parse_iso_ms(text) is None


def test_future_instant_returns_canonical_text_one_millisecond_after_now():
    assert future_instant(NOW + 1, NOW) == "2026-01-01T00:00:00.001Z"


@pytest.mark.parametrize("epoch_ms", [NOW, NOW - 1, MIN_EPOCH_MS])
def test_future_instant_rejects_now_and_the_past(epoch_ms):
    with pytest.raises(ScheduleInputError) as caught:
        future_instant(epoch_ms, NOW)
    assert (caught.value.code, caught.value.message) == NOT_FUTURE


@pytest.mark.parametrize(
    ("epoch_ms", "now"),
    [
        (MIN_EPOCH_MS - 1, NOW),  # in the past, but range is checked first
        (MAX_EPOCH_MS + 1, NOW),
        (NOW + 0.5, NOW),
        (NOW + 1000, NOW + 0.5),
        (True, 0),
        (2**53, NOW),
    ],
)
def test_future_instant_checks_range_before_the_future(epoch_ms, now):
    with pytest.raises(ScheduleInputError) as caught:
        future_instant(epoch_ms, now)
    assert (caught.value.code, caught.value.message) == OUT_OF_RANGE


def test_future_instant_accepts_the_last_representable_millisecond():
    assert future_instant(MAX_EPOCH_MS, NOW) == "9999-12-31T23:59:59.999Z"


@given(st.lists(st.integers(MIN_EPOCH_MS, MAX_EPOCH_MS), min_size=1, max_size=5))
def test_format_equals_datetime_isoformat_with_the_day_cache_warm(instants):
    # Pins the per-day cache of the date part (a performance change): formatting
    # an instant again, or another on the same day, gives datetime's own text.
    for epoch_ms in [*instants, *instants, *(ms + 1 for ms in instants if ms < MAX_EPOCH_MS)]:
        expected = (
            datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=epoch_ms)
        ).isoformat(timespec="milliseconds") + "Z"
        assert format_iso_ms(epoch_ms) == expected


@given(st.lists(st.integers(MIN_EPOCH_MS - 2, MAX_EPOCH_MS + 2), min_size=1, max_size=6))
def test_format_repeated_and_alternating_instants_as_datetime_does(instants):
    # Pins the cache of the last instant formatted: each value formatted twice in
    # a row, then the list again, gives datetime's text or the same ValueError.
    for epoch_ms in [ms for ms in instants for _ in range(2)] + instants:
        if not MIN_EPOCH_MS <= epoch_ms <= MAX_EPOCH_MS:
            with pytest.raises(ValueError, match="four-digit-year"):
                format_iso_ms(epoch_ms)
            continue
        expected = (
            datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=epoch_ms)
        ).isoformat(timespec="milliseconds") + "Z"
        assert format_iso_ms(epoch_ms) == expected


def test_the_last_instant_formatted_is_not_reused_for_a_bool_or_a_float():
    assert format_iso_ms(1) == "1970-01-01T00:00:00.001Z"
    with pytest.raises(ValueError):
        format_iso_ms(True)  # type: ignore[arg-type]
    assert format_iso_ms(1.0) == "1970-01-01T00:00:00.001Z"  # type: ignore[arg-type]
    assert format_iso_ms(2.0) == "1970-01-01T00:00:00.002Z"  # type: ignore[arg-type]
    assert format_iso_ms(2) == "1970-01-01T00:00:00.002Z"


@given(st.lists(st.integers(MIN_EPOCH_MS, MAX_EPOCH_MS), min_size=1, max_size=4))
def test_parse_reads_the_last_formatted_text_as_any_other(instants):
    # Pins the reuse of the last instant formatted by parse_iso_ms: the text
    # just formatted, another instant's text, and a text that is not a string
    # each parse as they would with nothing formatted before.
    for epoch_ms in instants:
        text = format_iso_ms(epoch_ms)
        expected = (
            datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=epoch_ms)
        ).isoformat(timespec="milliseconds") + "Z"
        assert parse_iso_ms(text) == epoch_ms and text == expected
        assert parse_iso_ms(format_iso_ms(instants[0])) == instants[0]
        assert parse_iso_ms(text.encode()) is None
        assert parse_iso_ms(text[:-1]) is None


class _SameText(str):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


def test_parse_does_not_reuse_the_last_text_for_a_str_subclass():
    format_iso_ms(0)
    assert parse_iso_ms(_SameText("not an instant")) is None

"""Record builders: prompt first, then the selector, then range and the future (notes §4)."""

from __future__ import annotations

import pytest

from dsh_reference.schedule.core import (
    ParsedAt,
    ScheduleInputError,
    create_after_record,
    create_at_record,
    create_every_record,
    to_js_json,
)

NOW = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z
PROMPT = ("invalid_prompt", "prompt must be non-empty after trimming.")
AFTER = ("invalid_rule", "after_seconds must be a positive safe integer.")
EVERY = ("invalid_rule", "every_seconds must be a safe integer.")
FREQUENCY = ("frequency_too_high", "every_seconds must be at least 300.")
NOT_FUTURE = ("not_future", "The scheduled time must be strictly in the future.")
OUT_OF_RANGE = (
    "time_out_of_range",
    "The scheduled time must be representable as a four-digit-year RFC 3339 UTC instant.",
)
GAP = ("invalid_rule", "The local at time does not exist in the selected time zone.")


def error_of(build, *arguments):
    with pytest.raises(ScheduleInputError) as caught:
        build(*arguments)
    return caught.value.code, caught.value.message


def test_after_record_is_due_after_the_delay_in_canonical_key_order():
    record = create_after_record("schedule-1", "Stand up", 90, NOW)
    assert to_js_json(record) == (
        '{"id":"schedule-1","kind":"after","prompt":"Stand up","afterSeconds":90,'
        '"scheduledAt":"2026-01-01T00:01:30.000Z"}'
    )


def test_after_seconds_given_as_an_integral_float_is_stored_as_an_integer():
    record = create_after_record("schedule-1", "p", 60.0, NOW)
    assert record["afterSeconds"] == 60
    assert type(record["afterSeconds"]) is int


@pytest.mark.parametrize(
    ("prompt", "stored"),
    [
        ("  Stand up \n", "Stand up"),
        ("\ufeffStand up\u3000", "Stand up"),
        ("\u0085Stand up\u001c", "\u0085Stand up\u001c"),
    ],
)
def test_the_stored_prompt_is_trimmed_with_javascript_rules(prompt, stored):
    assert create_after_record("schedule-1", prompt, 90, NOW)["prompt"] == stored


@pytest.mark.parametrize("prompt", ["", "   ", "\ufeff", "\u2028\u2029", None, 5, ["x"]])
def test_a_blank_or_non_string_prompt_is_invalid_before_the_selector(prompt):
    assert error_of(create_after_record, "schedule-1", prompt, 0, NOW) == PROMPT
    assert error_of(create_every_record, "schedule-1", prompt, 1, NOW) == PROMPT
    assert error_of(create_at_record, "schedule-1", prompt, "nonsense", NOW) == PROMPT


@pytest.mark.parametrize("seconds", [0, -5, 1.5, 1e300, True, "5", None, float("nan")])
def test_after_seconds_must_be_a_positive_safe_integer(seconds):
    assert error_of(create_after_record, "schedule-1", "p", seconds, NOW) == AFTER


@pytest.mark.parametrize("seconds", [9007199254740991, 10**15, 251_635_075_200])
def test_a_huge_after_delay_is_out_of_range(seconds):
    assert error_of(create_after_record, "schedule-1", "p", seconds, NOW) == OUT_OF_RANGE


def test_the_longest_after_delay_from_2026_reaches_the_last_second_of_9999():
    record = create_after_record("schedule-1", "p", 251_635_075_199, NOW)
    assert record["scheduledAt"] == "9999-12-31T23:59:59.000Z"


def test_every_record_first_target_is_one_interval_after_now():
    record = create_every_record("schedule-2", "Check metrics", 3600, NOW)
    assert to_js_json(record) == (
        '{"id":"schedule-2","kind":"every","prompt":"Check metrics","everySeconds":3600,'
        '"scheduledAt":"2026-01-01T01:00:00.000Z"}'
    )


@pytest.mark.parametrize(("seconds", "stored"), [(300, 300), (300.0, 300)])
def test_the_smallest_every_interval_is_five_minutes(seconds, stored):
    record = create_every_record("schedule-1", "p", seconds, NOW)
    assert record["everySeconds"] == stored
    assert record["scheduledAt"] == "2026-01-01T00:05:00.000Z"


@pytest.mark.parametrize("seconds", [299.5, 1e300, True, "300", None])
def test_every_seconds_must_be_a_safe_integer(seconds):
    assert error_of(create_every_record, "schedule-1", "p", seconds, NOW) == EVERY


@pytest.mark.parametrize("seconds", [299, 0, -1, -(2**53 - 1)])
def test_every_seconds_below_300_is_too_frequent(seconds):
    assert error_of(create_every_record, "schedule-1", "p", seconds, NOW) == FREQUENCY


def test_a_huge_every_interval_is_out_of_range():
    assert error_of(create_every_record, "schedule-1", "p", 10**15, NOW) == OUT_OF_RANGE


def test_at_record_stores_only_the_canonical_target():
    record = create_at_record("schedule-3", "Call Bob", "2026-01-02T09:30:00.5+01:00", NOW)
    assert to_js_json(record) == (
        '{"id":"schedule-3","kind":"at","prompt":"Call Bob",'
        '"scheduledAt":"2026-01-02T08:30:00.500Z"}'
    )


def test_at_record_from_a_local_object_keeps_no_zone():
    at = {"date": "2026-01-02", "time": "09:30:00.5", "time_zone": "Europe/Berlin"}
    assert create_at_record("schedule-3", "p", at, NOW) == {
        "id": "schedule-3",
        "kind": "at",
        "prompt": "p",
        "scheduledAt": "2026-01-02T08:30:00.500Z",
    }


def test_at_record_accepts_a_selector_parsed_before_the_queue():
    record = create_at_record("schedule-3", "p", ParsedAt(NOW + 1), NOW)
    assert record["scheduledAt"] == "2026-01-01T00:00:00.001Z"


@pytest.mark.parametrize(
    ("at", "expected"),
    [
        ("2026-01-01T00:00:00Z", NOT_FUTURE),
        ("2026-01-01T01:00:00+01:00", NOT_FUTURE),
        ("1500-01-01T00:00:00Z", NOT_FUTURE),
        ({"date": "1500-01-01", "time": "00:00:00", "time_zone": "UTC"}, NOT_FUTURE),
        ({"date": "2025-12-31", "time": "19:00:00", "time_zone": "America/New_York"}, NOT_FUTURE),
        ("0001-01-01T00:00:00+01:00", OUT_OF_RANGE),
        ({"date": "2025-03-09", "time": "02:30:00", "time_zone": "America/New_York"}, GAP),
    ],
)
def test_at_targets_must_be_in_range_and_strictly_future(at, expected):
    assert error_of(create_at_record, "schedule-1", "p", at, NOW) == expected


def test_at_one_millisecond_after_now_is_accepted():
    record = create_at_record("schedule-1", "p", "2026-01-01T00:00:00.001Z", NOW)
    assert record["scheduledAt"] == "2026-01-01T00:00:00.001Z"


@pytest.mark.parametrize("now", [1.5, 2**53, -(2**53)])
def test_an_unsafe_clock_sample_makes_every_target_out_of_range(now):
    assert error_of(create_at_record, "schedule-1", "p", ParsedAt(NOW), now) == OUT_OF_RANGE

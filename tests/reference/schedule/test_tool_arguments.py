"""Pre-queue argument checks of schedule_create and schedule_delete (README decision 5)."""

from __future__ import annotations

import pytest

from dsh_reference.schedule.core import (
    AfterRequest,
    AtRequest,
    EveryRequest,
    ParsedAt,
    ScheduleInputError,
    build_requested_record,
    validate_create_arguments,
    validate_delete_id,
)

NOW = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z
SELECTOR = (
    "invalid_selector",
    "schedule_create accepts exactly one of after_seconds, at, or every_seconds.",
)
PROMPT = ("invalid_prompt", "prompt must be non-empty after trimming.")
AFTER = ("invalid_rule", "after_seconds must be a positive safe integer.")
EVERY = ("invalid_rule", "every_seconds must be a safe integer.")
FREQUENCY = ("frequency_too_high", "every_seconds must be at least 300.")
DELETE_ID = ("invalid_rule", "schedule_delete id must be non-empty without surrounding whitespace.")
NOT_FUTURE = ("not_future", "The scheduled time must be strictly in the future.")
OUT_OF_RANGE = (
    "time_out_of_range",
    "The scheduled time must be representable as a four-digit-year RFC 3339 UTC instant.",
)


def error_of(check, argument):
    with pytest.raises(ScheduleInputError) as caught:
        check(argument)
    return caught.value.code, caught.value.message


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"prompt": "p"}, SELECTOR),
        ({"prompt": "p", "after_seconds": 60, "every_seconds": 300}, SELECTOR),
        ({"prompt": "p", "after_seconds": 60, "at": "2027-01-01T00:00:00Z"}, SELECTOR),
        ({"prompt": "p", "after_seconds": 60, "at": None}, SELECTOR),
        ({"prompt": "p", "after_seconds": 60, "bogus": 1}, SELECTOR),
        ({"prompt": "p", "after_seconds": 60, "time_zone": "UTC"}, SELECTOR),
        ({"prompt": "", "after_seconds": 60, "every_seconds": 300}, SELECTOR),
        ({"prompt": "", "bogus": 1, "after_seconds": 0}, SELECTOR),
        ({}, SELECTOR),
        ({"prompt": "", "after_seconds": 60}, PROMPT),
        ({"prompt": " \t\ufeff", "every_seconds": 10}, PROMPT),
        ({"after_seconds": 60}, PROMPT),
        ({"prompt": None, "after_seconds": 60}, PROMPT),
        ({"prompt": 5, "after_seconds": 0}, PROMPT),
        ({"prompt": "", "at": "nonsense"}, PROMPT),
        ({"prompt": "p", "after_seconds": 0}, AFTER),
        ({"prompt": "p", "after_seconds": -5}, AFTER),
        ({"prompt": "p", "after_seconds": 1.5}, AFTER),
        ({"prompt": "p", "after_seconds": 1e300}, AFTER),
        ({"prompt": "p", "after_seconds": True}, AFTER),
        ({"prompt": "p", "after_seconds": None}, AFTER),
        ({"prompt": "p", "every_seconds": 299.5}, EVERY),
        ({"prompt": "p", "every_seconds": 1e300}, EVERY),
        ({"prompt": "p", "every_seconds": None}, EVERY),
        ({"prompt": "p", "every_seconds": "300"}, EVERY),
        ({"prompt": "p", "every_seconds": 299}, FREQUENCY),
        ({"prompt": "p", "every_seconds": -1}, FREQUENCY),
        ({"prompt": "p", "every_seconds": 0}, FREQUENCY),
        (
            {"prompt": "p", "at": "2026-01-02T08:30:00"},
            (
                "invalid_rule",
                "at must use YYYY-MM-DDTHH:mm:ss with optional 1-3 digit fractional seconds"
                " and an explicit Z or numeric offset.",
            ),
        ),
        (
            {"prompt": "p", "at": None},
            ("invalid_rule", "at must be an explicit-offset string or local calendar object."),
        ),
        (
            {"prompt": "p", "at": {"date": "2026-01-02", "time": "09:30:00"}},
            ("invalid_rule", "Local at must contain exactly date, time, and time_zone."),
        ),
        (
            {"prompt": "p", "at": {"date": "2026-01-02", "time": "09:30:00", "time_zone": 1}},
            ("invalid_time_zone", "time_zone must be a string."),
        ),
        (
            {
                "prompt": "p",
                "at": {"date": "2026-01-02", "time": "09:30:00", "time_zone": "america/new york"},
            },
            ("invalid_time_zone", "time_zone must be UTC or a valid IANA Area/Location name."),
        ),
        (
            {
                "prompt": "p",
                "at": {"date": "2026-03-08", "time": "02:30:00", "time_zone": "America/New_York"},
            },
            ("invalid_rule", "The local at time does not exist in the selected time zone."),
        ),
        (
            {"prompt": "p", "at": "0001-01-01T00:00:00+01:00"},
            OUT_OF_RANGE,
        ),
    ],
)
def test_create_arguments_fail_in_the_fixed_order(arguments, expected):
    assert error_of(validate_create_arguments, arguments) == expected


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"prompt": " Stand up ", "after_seconds": 60.0}, AfterRequest("Stand up", 60)),
        ({"prompt": "p", "after_seconds": 10**15}, AfterRequest("p", 10**15)),
        ({"prompt": "p", "every_seconds": 300}, EveryRequest("p", 300)),
        ({"prompt": "p", "every_seconds": 10**15}, EveryRequest("p", 10**15)),
        # Not-future needs the clock, so a past target passes the shape checks.
        ({"prompt": "p", "at": "2000-01-01T00:00:00Z"}, AtRequest("p", ParsedAt(946684800000))),
        (
            {"prompt": "p", "at": {"date": "1500-01-01", "time": "00:00:00", "time_zone": "UTC"}},
            AtRequest("p", ParsedAt(-14831769600000)),
        ),
    ],
)
def test_shape_valid_arguments_become_a_request(arguments, expected):
    assert validate_create_arguments(arguments) == expected


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        (
            AfterRequest("p", 90),
            {
                "id": "schedule-1",
                "kind": "after",
                "prompt": "p",
                "afterSeconds": 90,
                "scheduledAt": "2026-01-01T00:01:30.000Z",
            },
        ),
        (
            EveryRequest("p", 300),
            {
                "id": "schedule-1",
                "kind": "every",
                "prompt": "p",
                "everySeconds": 300,
                "scheduledAt": "2026-01-01T00:05:00.000Z",
            },
        ),
        (
            AtRequest("p", ParsedAt(NOW + 1)),
            {
                "id": "schedule-1",
                "kind": "at",
                "prompt": "p",
                "scheduledAt": "2026-01-01T00:00:00.001Z",
            },
        ),
    ],
)
def test_a_request_builds_its_record_with_the_allocated_id_and_now(request_, expected):
    assert build_requested_record(request_, "schedule-1", NOW) == expected


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        (AtRequest("p", ParsedAt(NOW)), NOT_FUTURE),
        (AtRequest("p", ParsedAt(946684800000)), NOT_FUTURE),
        (AfterRequest("p", 10**15), OUT_OF_RANGE),
        (EveryRequest("p", 10**15), OUT_OF_RANGE),
    ],
)
def test_clock_dependent_failures_surface_when_the_record_is_built(request_, expected):
    with pytest.raises(ScheduleInputError) as caught:
        build_requested_record(request_, "schedule-1", NOW)
    assert (caught.value.code, caught.value.message) == expected


@pytest.mark.parametrize(
    "schedule_id",
    ["", " schedule-1", "schedule-1 ", "\tschedule-1", "schedule-1\n", "\ufeffschedule-1", None, 1],
)
def test_delete_id_must_be_non_empty_and_unpadded(schedule_id):
    assert error_of(validate_delete_id, schedule_id) == DELETE_ID


@pytest.mark.parametrize("schedule_id", ["schedule-1", "Schedule-1", "x\u0085", "a b"])
def test_delete_id_is_returned_exactly_as_given(schedule_id):
    assert validate_delete_id(schedule_id) == schedule_id

"""parse_at_selector and resolve_local_instant (notes §4.2-4.4, README decisions 1-4)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_reference.schedule.core import (
    LocalFields,
    ParsedAt,
    ScheduleInputError,
    format_iso_ms,
    parse_at_selector,
    resolve_local_instant,
    validate_time_zone,
    zone_offset_ms,
)
from dsh_reference.schedule.core.local_instants import _instant_by_samples
from pytest_dsh.contract.tzdb import pinned_zone

SHAPE = (
    "invalid_rule",
    "at must use YYYY-MM-DDTHH:mm:ss with optional 1-3 digit fractional seconds"
    " and an explicit Z or numeric offset.",
)
UNREAL = ("invalid_rule", "The at value must be a real ISO calendar date and time.")
LOCAL_UNREAL = ("invalid_rule", "The local at value must be a real ISO calendar date and time.")
OFFSET = ("invalid_rule", "The at numeric offset is invalid.")
OUT_OF_RANGE = (
    "time_out_of_range",
    "The scheduled time must be representable as a four-digit-year RFC 3339 UTC instant.",
)
LOCAL_KEYS = ("invalid_rule", "Local at must contain exactly date, time, and time_zone.")
LOCAL_TYPES = ("invalid_rule", "Local at date and time must be strings.")
ZONE_TYPE = ("invalid_time_zone", "time_zone must be a string.")
LOCAL_SHAPE = (
    "invalid_rule",
    "Local at requires date YYYY-MM-DD and time HH:mm:ss with optional one-to-three digit"
    " milliseconds.",
)
ZONE = ("invalid_time_zone", "time_zone must be UTC or a valid IANA Area/Location name.")
GAP = ("invalid_rule", "The local at time does not exist in the selected time zone.")
SELECTOR_TYPE = (
    "invalid_rule",
    "at must be an explicit-offset string or local calendar object.",
)


def target_of(at):
    parsed = parse_at_selector(at)
    assert isinstance(parsed, ParsedAt)
    return format_iso_ms(parsed.epoch_ms)


def error_of(at):
    with pytest.raises(ScheduleInputError) as caught:
        parse_at_selector(at)
    return caught.value.code, caught.value.message


def local(date, time, zone):
    return {"date": date, "time": time, "time_zone": zone}


# -- the explicit-offset string -----------------------------------------------------


@pytest.mark.parametrize(
    ("at", "expected"),
    [
        ("2026-01-02T08:30:00Z", "2026-01-02T08:30:00.000Z"),
        ("2026-01-02T08:30:00.5Z", "2026-01-02T08:30:00.500Z"),
        ("2026-01-02T08:30:00.05Z", "2026-01-02T08:30:00.050Z"),
        ("2026-01-02T08:30:00.005Z", "2026-01-02T08:30:00.005Z"),
        ("2026-01-02T08:30:00.123Z", "2026-01-02T08:30:00.123Z"),
        ("2026-01-01T05:30:00+05:30", "2026-01-01T00:00:00.000Z"),
        ("2025-12-31T19:00:00-05:00", "2026-01-01T00:00:00.000Z"),
        ("2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00.000Z"),
        ("2026-01-02T00:00:00+23:59", "2026-01-01T00:01:00.000Z"),
        ("2026-01-01T00:00:00-23:59", "2026-01-01T23:59:00.000Z"),
        ("2024-02-29T12:00:00Z", "2024-02-29T12:00:00.000Z"),
        ("1500-01-01T00:00:00Z", "1500-01-01T00:00:00.000Z"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"),
        ("0001-01-01T00:00:00-01:00", "0001-01-01T01:00:00.000Z"),
        ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
        ("9999-12-31T23:59:59.999+00:01", "9999-12-31T23:58:59.999Z"),
    ],
)
def test_offset_strings_identify_one_instant(at, expected):
    assert target_of(at) == expected


@pytest.mark.parametrize(
    ("at", "expected"),
    [
        ("2026-01-02T08:30:00.1234Z", SHAPE),
        ("2026-01-02T08:30:00.Z", SHAPE),
        ("2026-01-02T08:30:00", SHAPE),
        ("2026-01-02T08:30Z", SHAPE),
        ("2026-01-02t08:30:00Z", SHAPE),
        ("2026-01-02T08:30:00z", SHAPE),
        ("2026-01-02 08:30:00Z", SHAPE),
        ("2026-01-02T08:30:00Z\n", SHAPE),
        (" 2026-01-02T08:30:00Z", SHAPE),
        ("\uff12\uff10\uff12\uff16-01-02T08:30:00Z", SHAPE),
        ("2026-01-02T08:30:00+0530", SHAPE),
        ("2026-01-02T08:30:00+05", SHAPE),
        ("2026-01-02T08:30:00+5:30", SHAPE),
        ("+02026-01-02T08:30:00Z", SHAPE),
        ("", SHAPE),
        ("2026-01-02T24:00:00Z", UNREAL),
        ("2026-01-02T23:60:00Z", UNREAL),
        ("2026-01-02T23:59:60Z", UNREAL),
        ("0000-01-01T00:00:00Z", UNREAL),
        ("2026-02-30T01:00:00Z", UNREAL),
        ("2025-02-29T01:00:00Z", UNREAL),
        ("1900-02-29T01:00:00Z", UNREAL),
        ("2026-13-01T01:00:00Z", UNREAL),
        ("2026-00-01T01:00:00Z", UNREAL),
        ("2026-01-00T01:00:00Z", UNREAL),
        ("2026-01-32T01:00:00Z", UNREAL),
        ("2026-02-30T01:00:00+25:00", UNREAL),
        ("2026-01-02T08:30:00-00:00", OFFSET),
        ("2026-01-02T08:30:00+24:00", OFFSET),
        ("2026-01-02T08:30:00+05:60", OFFSET),
        ("2026-01-02T08:30:00-99:99", OFFSET),
        ("0001-01-01T00:00:00+01:00", OUT_OF_RANGE),
        ("0001-01-01T00:00:00.000+00:01", OUT_OF_RANGE),
        ("9999-12-31T23:59:59.999-00:01", OUT_OF_RANGE),
        ("9999-12-31T23:30:00-01:00", OUT_OF_RANGE),
    ],
)
def test_offset_string_failures_in_check_order(at, expected):
    assert error_of(at) == expected


# -- the local object: structure and grammar ---------------------------------------------


@pytest.mark.parametrize(
    ("at", "expected"),
    [
        ({"date": "2026-01-02", "time": "09:30:00"}, LOCAL_KEYS),
        ({**local("2026-01-02", "09:30:00", "UTC"), "offset": "+01:00"}, LOCAL_KEYS),
        ({}, LOCAL_KEYS),
        ({"date": 5, "time": 5}, LOCAL_KEYS),
        ({"date": "2026-01-02", "time": "09:30:00", "timeZone": "UTC"}, LOCAL_KEYS),
        (local(None, "09:30:00", "UTC"), LOCAL_TYPES),
        (local("2026-01-02", 930, "UTC"), LOCAL_TYPES),
        (local(20260102, "09:30:00", None), LOCAL_TYPES),
        (local("2026-01-02", "09:30:00", None), ZONE_TYPE),
        (local("2026-01-02", "09:30:00", 0), ZONE_TYPE),
        (local("2026-01-02", "09:30:00", ["UTC"]), ZONE_TYPE),
        (local("2026-1-02", "09:30:00", "UTC"), LOCAL_SHAPE),
        (local("2026-01-02T09:30:00", "09:30:00", "UTC"), LOCAL_SHAPE),
        (local("2026-01-02", "9:30:00", "UTC"), LOCAL_SHAPE),
        (local("2026-01-02", "09:30", "UTC"), LOCAL_SHAPE),
        (local("2026-01-02", "09:30:00.1234", "UTC"), LOCAL_SHAPE),
        (local("2026-01-02", "09:30:00Z", "UTC"), LOCAL_SHAPE),
        (local("2026-01-02\n", "09:30:00", "UTC"), LOCAL_SHAPE),
        (local("\uff12\uff10\uff12\uff16-01-02", "09:30:00", "UTC"), LOCAL_SHAPE),
        (local("2026-01-02", "24:00:00", "UTC"), LOCAL_UNREAL),
        (local("2026-01-02", "23:60:00", "UTC"), LOCAL_UNREAL),
        (local("2026-01-02", "23:59:60", "UTC"), LOCAL_UNREAL),
        (local("0000-01-02", "09:30:00", "UTC"), LOCAL_UNREAL),
        (local("2026-02-30", "09:30:00", "UTC"), UNREAL),
        (local("2026-13-01", "09:30:00", "UTC"), UNREAL),
        (local("2026-04-31", "09:30:00", "UTC"), UNREAL),
        (local("2026-02-30", "09:30:00", "Foo/Bar"), UNREAL),
        (local("2026-01-02", "24:00:00", "utc"), LOCAL_UNREAL),
        (local("2026-01-02", "9:30", "Foo/Bar"), LOCAL_SHAPE),
    ],
)
def test_local_object_failures_in_check_order(at, expected):
    assert error_of(at) == expected


@pytest.mark.parametrize("at", [None, 5, 1.5, True, False, [], ["2026-01-02T09:30:00Z"]])
def test_at_of_any_other_type_is_a_schedule_error(at):
    assert error_of(at) == SELECTOR_TYPE


# -- time zones -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "zone",
    [
        "UTC",
        "Etc/UTC",
        "Etc/GMT",
        "Etc/GMT-14",
        "Etc/GMT+12",
        "US/Eastern",
        "Asia/Calcutta",
        "Europe/Kyiv",
        "Europe/Kiev",
        "America/Argentina/Buenos_Aires",
        "America/New_York",
        "America/Port-au-Prince",
    ],
)
def test_exact_pinned_area_location_keys_and_utc_are_valid(zone):
    assert validate_time_zone(zone) == zone


@pytest.mark.parametrize(
    ("zone", "key"),
    [("america/new_york", "America/New_York"), ("AMERICA/NEW_YORK", "America/New_York"),
     ("Europe/london", "Europe/London"), ("etc/utc", "Etc/UTC"), ("us/eastern", "US/Eastern")],
)
def test_area_location_names_match_case_insensitively(zone, key):
    # Pin SCH-ZONE-NAME-CASE: ICU's match, which the official build uses.
    assert validate_time_zone(zone) == key


@pytest.mark.parametrize(
    "zone",
    [
        "",
        "utc",
        "UTC ",
        " UTC",
        "Z",
        "GMT",
        "EST",
        "EST5EDT",
        "Factory",
        "America/New_York ",
        "\ufeffAmerica/New_York",
        "Europe/London/",
        "/Europe",
        "Europe//London",
        "1Europe/London",
        "Foo/Bar",
        "Etc/Unknown",
        "Etc/GMT+14",
        "posix/America/New_York",
        "right/UTC",
        "America/New York",
    ],
)
def test_other_zone_names_are_invalid(zone):
    assert error_of(local("2026-01-02", "09:30:00", zone)) == ZONE


# -- resolution ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("date", "time", "zone", "expected"),
    [
        ("2026-01-02", "09:30:00.5", "Europe/Berlin", "2026-01-02T08:30:00.500Z"),
        ("2026-01-02", "09:30:00", "UTC", "2026-01-02T09:30:00.000Z"),
        ("2026-01-02", "09:30:00", "Etc/GMT-14", "2026-01-01T19:30:00.000Z"),
        ("2026-01-01", "00:00:00", "US/Eastern", "2026-01-01T05:00:00.000Z"),
        # America/New_York: gap 02:00-03:00 on 2026-03-08, overlap 01:00-02:00 on 2026-11-01.
        ("2026-03-08", "01:59:59.999", "America/New_York", "2026-03-08T06:59:59.999Z"),
        ("2026-03-08", "03:00:00", "America/New_York", "2026-03-08T07:00:00.000Z"),
        ("2026-11-01", "01:30:00", "America/New_York", "2026-11-01T05:30:00.000Z"),
        ("2026-11-01", "02:00:00", "America/New_York", "2026-11-01T07:00:00.000Z"),
        ("1800-01-01", "00:00:00", "America/New_York", "1800-01-01T04:56:02.000Z"),
        ("2026-10-25", "01:30:00", "Europe/London", "2026-10-25T00:30:00.000Z"),
        # Europe/Dublin: winter time is the negative-DST offset; the instants are unaffected.
        ("2026-01-15", "12:00:00", "Europe/Dublin", "2026-01-15T12:00:00.000Z"),
        ("2026-07-01", "12:00:00", "Europe/Dublin", "2026-07-01T11:00:00.000Z"),
        ("2026-10-25", "01:30:00", "Europe/Dublin", "2026-10-25T00:30:00.000Z"),
        # Australia/Lord_Howe moves by 30 minutes.
        ("2026-04-05", "01:45:00", "Australia/Lord_Howe", "2026-04-04T14:45:00.000Z"),
        ("2026-04-05", "02:00:00", "Australia/Lord_Howe", "2026-04-04T15:30:00.000Z"),
        ("2026-10-04", "02:30:00", "Australia/Lord_Howe", "2026-10-03T15:30:00.000Z"),
        # Pacific/Apia skipped 2011-12-30 entirely (-10:00 to +14:00).
        ("2011-12-29", "23:59:59.999", "Pacific/Apia", "2011-12-30T09:59:59.999Z"),
        ("2011-12-31", "00:00:00", "Pacific/Apia", "2011-12-30T10:00:00.000Z"),
        ("2026-06-01", "12:00:00", "Asia/Kathmandu", "2026-06-01T06:15:00.000Z"),
        ("1985-12-31", "23:59:59.999", "Asia/Kathmandu", "1985-12-31T18:29:59.999Z"),
        ("1986-01-01", "00:15:00", "Asia/Kathmandu", "1985-12-31T18:30:00.000Z"),
        # America/Santiago: -03 to -04 at local midnight on 2026-04-05, back on 2026-09-06.
        ("2026-04-04", "23:30:00", "America/Santiago", "2026-04-05T02:30:00.000Z"),
        ("2026-09-05", "23:59:59.999", "America/Santiago", "2026-09-06T03:59:59.999Z"),
        ("2026-09-06", "01:00:00", "America/Santiago", "2026-09-06T04:00:00.000Z"),
        # Antarctica/Troll switches between +00 and +02.
        ("2026-03-29", "03:00:00", "Antarctica/Troll", "2026-03-29T01:00:00.000Z"),
        ("2026-10-25", "02:00:00", "Antarctica/Troll", "2026-10-25T00:00:00.000Z"),
        ("2026-10-25", "03:00:00", "Antarctica/Troll", "2026-10-25T03:00:00.000Z"),
        # Proleptic Gregorian for every year, including before 1582-10-15.
        ("1500-01-01", "00:00:00", "UTC", "1500-01-01T00:00:00.000Z"),
        ("1582-10-14", "00:00:00", "UTC", "1582-10-14T00:00:00.000Z"),
        ("0001-01-01", "00:00:00", "UTC", "0001-01-01T00:00:00.000Z"),
        ("0001-01-01", "12:00:00", "America/New_York", "0001-01-01T16:56:02.000Z"),
        ("9999-12-31", "23:59:59.999", "UTC", "9999-12-31T23:59:59.999Z"),
        ("9999-12-31", "23:59:59", "Asia/Tokyo", "9999-12-31T14:59:59.000Z"),
        ("9999-12-31", "23:59:59", "Australia/Sydney", "9999-12-31T12:59:59.000Z"),
    ],
)
def test_local_times_resolve_to_the_earliest_matching_instant(date, time, zone, expected):
    assert target_of(local(date, time, zone)) == expected


@pytest.mark.parametrize(
    ("date", "time", "zone"),
    [
        ("2026-03-08", "02:30:00", "America/New_York"),
        ("2026-03-08", "02:00:00", "America/New_York"),
        ("2026-03-08", "02:59:59.999", "America/New_York"),
        ("2026-03-29", "01:30:00", "Europe/London"),
        ("2026-03-29", "01:30:00", "Europe/Dublin"),
        ("2026-10-04", "02:15:00", "Australia/Lord_Howe"),
        ("2011-12-30", "00:00:00", "Pacific/Apia"),
        ("2011-12-30", "12:00:00", "Pacific/Apia"),
        ("2011-12-30", "23:59:59.999", "Pacific/Apia"),
        ("1986-01-01", "00:10:00", "Asia/Kathmandu"),
        ("2026-09-06", "00:30:00", "America/Santiago"),
        ("2026-03-29", "02:00:00", "Antarctica/Troll"),
        ("1999-04-04", "02:30:00", "US/Eastern"),
    ],
)
def test_local_times_inside_a_gap_do_not_exist(date, time, zone):
    assert error_of(local(date, time, zone)) == GAP


@pytest.mark.parametrize(
    ("date", "time", "zone"),
    [
        ("0001-01-01", "00:00:00", "Asia/Tokyo"),
        ("0001-01-01", "09:18:58", "Asia/Tokyo"),
        ("9999-12-31", "23:59:59", "America/New_York"),
        ("9999-12-31", "23:59:59.999", "Etc/GMT+12"),
        ("0001-01-01", "00:00:00", "Etc/GMT-14"),
    ],
)
def test_local_times_whose_instant_leaves_years_1_to_9999_are_out_of_range(date, time, zone):
    assert error_of(local(date, time, zone)) == OUT_OF_RANGE


def test_resolve_local_instant_accepts_fields_directly():
    fields = LocalFields(2026, 11, 1, 1, 30, 0, 0)
    assert resolve_local_instant(fields, "America/New_York") == 1_793_511_000_000


_ZONES = st.sampled_from(
    [
        "America/New_York",
        "Europe/Dublin",
        "Australia/Lord_Howe",
        "Pacific/Apia",
        "America/Santiago",
        "Antarctica/Troll",
        "Asia/Kathmandu",
    ]
)


@given(zone=_ZONES, instant_ms=st.integers(-2_208_988_800_000, 4_102_444_800_000))
def test_resolution_reproduces_the_wall_clock_of_any_instant_no_later_than_it(zone, instant_ms):
    # Project an instant to its wall clock, resolve that wall clock back: the result shows
    # the same wall clock and is the instant itself or an earlier one (an overlap).
    wall = (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=instant_ms)).astimezone(
        pinned_zone(zone)
    )
    fields = LocalFields(
        wall.year,
        wall.month,
        wall.day,
        wall.hour,
        wall.minute,
        wall.second,
        wall.microsecond // 1000,
    )
    resolved = resolve_local_instant(fields, zone)
    assert resolved <= instant_ms
    again = (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=resolved)).astimezone(
        pinned_zone(zone)
    )
    assert again.replace(tzinfo=None) == wall.replace(tzinfo=None)
    assert instant_ms - resolved <= 3 * 3_600_000


def _transitions(zone_key: str, start_ms: int, end_ms: int) -> list[int]:
    """The zone's offset changes in [start, end), to the second (weekly scan, then bisection)."""
    zone = pinned_zone(zone_key)
    week = 7 * 86_400_000
    found, at, before = [], start_ms, zone_offset_ms(zone, start_ms)
    while at < end_ms:
        after = zone_offset_ms(zone, at + week)
        if after != before:
            low, high = at, at + week  # the offset at low is `before`, at high it is not
            while high - low > 1000:
                middle = (low + high) // 2000 * 1000
                if zone_offset_ms(zone, middle) == before:
                    low = middle
                else:
                    high = middle
            found.append(high)
            before = zone_offset_ms(zone, high)
        at += week
    return found


def _outcome(resolve, *args):
    try:
        return resolve(*args)
    except ScheduleInputError as exc:
        return exc.code


def _fields_of(local_ms: int) -> LocalFields:
    wall = datetime(1970, 1, 1) + timedelta(milliseconds=local_ms)
    return LocalFields(wall.year, wall.month, wall.day, wall.hour, wall.minute, wall.second,
                       wall.microsecond // 1000)


_STEPS_MS = (-3_600_001, -3_600_000, -1_800_000, -1000, -1, 0, 1, 999, 1000, 1_800_000,
             3_599_999, 3_600_000, 86_400_000)


@pytest.mark.parametrize("zone_key", [
    "America/New_York", "Europe/Dublin", "Australia/Lord_Howe", "Pacific/Apia",
    "America/Santiago", "Antarctica/Troll", "Asia/Kathmandu", "Africa/Casablanca",
    "Europe/Moscow",
])
def test_the_two_fold_offsets_decide_what_the_samples_decide(zone_key):
    # The resolver reads two offsets where the samples read five: around every
    # transition from 1900 to 2100 (both wall clocks of it, to the millisecond),
    # the instant, the gap or the range error must be the samples' own.
    zone = pinned_zone(zone_key)
    transitions = _transitions(zone_key, -2_208_988_800_000, 4_102_444_800_000)
    assert transitions, "the zone changes its offset in the span"
    for at in transitions:
        for wall in (at + zone_offset_ms(zone, at - 1000), at + zone_offset_ms(zone, at)):
            for step in _STEPS_MS:
                local_ms = wall + step
                assert _outcome(resolve_local_instant, _fields_of(local_ms), zone_key) == \
                    _outcome(_instant_by_samples, zone, local_ms), (zone_key, local_ms)

"""README section "Absolute-time input": the two ``at`` forms, their
rejections, DST gaps and overlaps, and what a create retains."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from dsh_conformance.schedule.session_logs import START_MS, changes, flushes_of
from pytest_dsh.strategies.schedule import (
    local_at_near_transitions,
    malformed_at_strings,
    offset_at_strings,
)

pytestmark = [pytest.mark.dsh_requires("schedule")]

Y1400_MS = -17_987_443_200_000  # 1400-01-01T00:00:00.000Z (proleptic Gregorian)
Y1700_MS = -8_520_336_000_000  # 1700-01-01T00:00:00.000Z
Y1900_MS = -2_208_988_800_000  # 1900-01-01T00:00:00.000Z
DAY_MS = 86_400_000

SHAPE = (
    "at must use YYYY-MM-DDTHH:mm:ss with optional 1-3 digit fractional seconds and an "
    "explicit Z or numeric offset."
)
UNREAL = "The at value must be a real ISO calendar date and time."
LOCAL_UNREAL = "The local at value must be a real ISO calendar date and time."
OFFSET = "The at numeric offset is invalid."
LOCAL_SHAPE = (
    "Local at requires date YYYY-MM-DD and time HH:mm:ss with optional one-to-three digit "
    "milliseconds."
)
LOCAL_KEYS = "Local at must contain exactly date, time, and time_zone."
LOCAL_TYPES = "Local at date and time must be strings."
AT_TYPE = "at must be an explicit-offset string or local calendar object."
ZONE = "time_zone must be UTC or a valid IANA Area/Location name."
ZONE_TYPE = "time_zone must be a string."
GAP = "The local at time does not exist in the selected time zone."
NOT_FUTURE = "The scheduled time must be strictly in the future."
OUT_OF_RANGE = "The scheduled time must be representable as a four-digit-year RFC 3339 UTC instant."


def _rule(message: str) -> dict[str, str]:
    return {"code": "invalid_rule", "message": message}


def _create(agent: Any, at: Any) -> Any:
    result = agent.call_tool("schedule_create", {"prompt": "Reminder", "at": at})
    assert result.is_error is False, result.error
    return result.value


def _local(date: str, time: str, zone: Any = "UTC") -> dict[str, Any]:
    return {"date": date, "time": time, "time_zone": zone}


# -- the offset string -----------------------------------------------------------------


@pytest.mark.spec("SCH-023", "SCH-024", "SCH-027", "SCH-030")
@pytest.mark.parametrize(
    ("at", "scheduled_at"),
    [
        ("2026-01-02T08:30:00Z", "2026-01-02T08:30:00.000Z"),
        ("2026-01-02T09:30:00+01:00", "2026-01-02T08:30:00.000Z"),
        ("2026-01-01T20:00:00-05:30", "2026-01-02T01:30:00.000Z"),
        ("2026-01-02T08:30:00+00:00", "2026-01-02T08:30:00.000Z"),
        ("2026-01-02T23:59:00+23:59", "2026-01-02T00:00:00.000Z"),
        ("2026-01-02T00:00:00-23:59", "2026-01-02T23:59:00.000Z"),
        ("2026-01-02T08:30:00.5Z", "2026-01-02T08:30:00.500Z"),
        ("2026-01-02T08:30:00.05Z", "2026-01-02T08:30:00.050Z"),
        ("2026-01-02T08:30:00.005Z", "2026-01-02T08:30:00.005Z"),
        ("2026-01-02T08:30:00.123+02:00", "2026-01-02T06:30:00.123Z"),
        ("2028-02-29T12:00:00Z", "2028-02-29T12:00:00.000Z"),
        ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
        ("2026-01-01T00:00:00.001Z", "2026-01-01T00:00:00.001Z"),
    ],
)
def test_offset_string_identifies_one_utc_instant(agent, at, scheduled_at):
    value = _create(agent, at)
    assert value["scheduledAt"] == scheduled_at
    assert value["state"] == "scheduled"


@pytest.mark.spec("SCH-023", "SCH-026")
@pytest.mark.parametrize(
    "at",
    [
        "2026-01-02T08:30:00",
        "2026-01-02 08:30:00Z",
        "2026-01-02t08:30:00Z",
        "2026-01-02T08:30:00z",
        "2026-01-02T08:30Z",
        "2026-01-02T08:30:00.1234Z",
        "2026-01-02T08:30:00.Z",
        "2026-01-02T08:30:00+0530",
        "2026-01-02T08:30:00+05",
        "2026-01-02T08:30:00Z\n",
        " 2026-01-02T08:30:00Z",
        "\uff12\uff10\uff12\uff16-01-02T08:30:00Z",
        "+02026-01-02T08:30:00Z",
        "26-01-02T08:30:00Z",
        "2026-1-2T08:30:00Z",
        "2026-01-02T08:30:00 UTC",
        "2026-01-02T08:30:00[Europe/Paris]",
        "tomorrow at 9",
        "",
    ],
)
def test_offset_free_or_malformed_strings_are_rejected(agent, at):
    assert _create(agent, at) == _rule(SHAPE)


@pytest.mark.spec("SCH-026", "SCH-027")
@pytest.mark.parametrize(
    "at",
    [
        "2026-02-30T09:00:00Z",
        "2027-02-29T09:00:00Z",
        "2026-04-31T09:00:00Z",
        "2026-13-01T09:00:00Z",
        "2026-00-10T09:00:00Z",
        "2026-01-00T09:00:00Z",
        "2026-01-32T09:00:00Z",
        "2026-01-02T24:00:00Z",
        "2026-01-02T23:60:00Z",
        "2026-06-30T23:59:60Z",
        "0000-01-01T00:00:00Z",
        "2026-02-30T01:00:00+25:00",
    ],
)
def test_normalised_calendar_values_are_rejected_not_rolled_over(agent, at):
    assert _create(agent, at) == _rule(UNREAL)


@pytest.mark.spec("SCH-026")
@pytest.mark.parametrize(
    "at", ["2026-01-02T08:30:00-00:00", "2026-01-02T08:30:00+24:00", "2026-01-02T08:30:00+05:60"]
)
def test_invalid_numeric_offsets_are_rejected(agent, at):
    assert _create(agent, at) == _rule(OFFSET)


@pytest.mark.spec("SCH-026", "SCH-039")
@pytest.mark.parametrize(
    "at",
    ["2026-01-01T00:00:00Z", "2026-01-01T01:00:00+01:00", "2025-12-31T23:59:59.999Z",
     "2000-01-01T00:00:00Z", "1500-01-01T00:00:00Z"],
)
def test_non_future_targets_are_rejected(agent, at):
    assert _create(agent, at) == {"code": "not_future", "message": NOT_FUTURE}


@pytest.mark.spec("SCH-039")
@pytest.mark.parametrize(
    "at",
    ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59.999-00:01", "9999-12-31T23:30:00-23:59"],
)
def test_offsets_that_leave_the_four_digit_years_are_out_of_range(agent, at):
    assert _create(agent, at) == {"code": "time_out_of_range", "message": OUT_OF_RANGE}


# -- the local object --------------------------------------------------------------------


@pytest.mark.spec("SCH-023", "SCH-025", "SCH-027")
@pytest.mark.parametrize(
    ("at", "scheduled_at"),
    [
        (_local("2026-01-02", "09:30:00.5", "Europe/Berlin"), "2026-01-02T08:30:00.500Z"),
        (_local("2026-01-02", "09:30:00.05", "Europe/Berlin"), "2026-01-02T08:30:00.050Z"),
        (_local("2026-01-02", "09:30:00.005", "Europe/Berlin"), "2026-01-02T08:30:00.005Z"),
        (_local("2026-03-08", "02:30:00", "UTC"), "2026-03-08T02:30:00.000Z"),
        (_local("2026-06-01", "12:00:00", "Asia/Kathmandu"), "2026-06-01T06:15:00.000Z"),
        (_local("2026-01-02", "00:00:00", "Etc/GMT-14"), "2026-01-01T10:00:00.000Z"),
        (_local("2026-07-01", "12:00:00", "US/Eastern"), "2026-07-01T16:00:00.000Z"),
        (_local("2026-07-01", "12:00:00", "Etc/UTC"), "2026-07-01T12:00:00.000Z"),
        (_local("2026-07-01", "12:00:00", "Asia/Calcutta"), "2026-07-01T06:30:00.000Z"),
        (_local("2026-07-01", "12:00:00", "America/Argentina/Buenos_Aires"),
         "2026-07-01T15:00:00.000Z"),
        (_local("9999-12-31", "23:59:59", "Asia/Tokyo"), "9999-12-31T14:59:59.000Z"),
    ],
)
def test_local_object_resolves_in_its_explicit_zone(agent, at, scheduled_at):
    assert _create(agent, at)["scheduledAt"] == scheduled_at


@pytest.mark.spec("SCH-026")
@pytest.mark.parametrize(
    ("at", "expected"),
    [
        pytest.param({"date": "2026-01-02", "time": "09:00:00"}, _rule(LOCAL_KEYS),
                     id="missing-time-zone"),
        pytest.param({"date": "2026-01-02", "time_zone": "UTC"}, _rule(LOCAL_KEYS),
                     id="missing-time"),
        pytest.param({}, _rule(LOCAL_KEYS), id="empty-object"),
        pytest.param({**_local("2026-01-02", "09:00:00"), "offset": "+01:00"}, _rule(LOCAL_KEYS),
                     id="extra-key"),
        pytest.param({"date": "2026-01-02", "time": "09:00:00", "timeZone": "UTC"},
                     _rule(LOCAL_KEYS), id="camel-case-zone-key"),
        pytest.param(_local(20260102, "09:00:00"), _rule(LOCAL_TYPES), id="date-not-string"),
        pytest.param(_local("2026-01-02", None), _rule(LOCAL_TYPES), id="time-not-string"),
        pytest.param(_local("2026-01-02", "09:00:00", None),
                     {"code": "invalid_time_zone", "message": ZONE_TYPE}, id="zone-null"),
        pytest.param(_local("2026-01-02", "09:00:00", 1),
                     {"code": "invalid_time_zone", "message": ZONE_TYPE}, id="zone-number"),
        pytest.param(None, _rule(AT_TYPE), id="null"),
        pytest.param(1767312000, _rule(AT_TYPE), id="number"),
        pytest.param(["2026-01-02", "09:00:00", "UTC"], _rule(AT_TYPE), id="array"),
        pytest.param(True, _rule(AT_TYPE), id="bool"),
    ],
)
def test_malformed_local_objects_are_closed_schedule_errors(agent, at, expected):
    result = agent.call_tool("schedule_create", {"prompt": "x", "at": at})
    assert result.is_error is False
    assert result.value == expected


@pytest.mark.spec("SCH-023", "SCH-026")
@pytest.mark.parametrize(
    ("date", "time", "message"),
    [
        ("2026-1-02", "09:00:00", LOCAL_SHAPE),
        ("2026-01-02", "9:00:00", LOCAL_SHAPE),
        ("2026-01-02", "09:00", LOCAL_SHAPE),
        ("2026-01-02", "09:00:00.1234", LOCAL_SHAPE),
        ("2026-01-02", "09:00:00Z", LOCAL_SHAPE),
        ("2026-01-02", "09:00:00+01:00", LOCAL_SHAPE),
        ("2026-01-02T09:00:00", "09:00:00", LOCAL_SHAPE),
        ("2026-01-02", "24:00:00", LOCAL_UNREAL),
        ("2026-01-02", "12:60:00", LOCAL_UNREAL),
        ("2026-01-02", "12:00:60", LOCAL_UNREAL),
        ("0000-01-02", "12:00:00", LOCAL_UNREAL),
        ("2026-02-30", "12:00:00", UNREAL),
        ("2026-13-01", "12:00:00", UNREAL),
        ("2027-02-29", "12:00:00", UNREAL),
    ],
)
def test_malformed_or_normalised_local_fields_are_rejected(agent, date, time, message):
    assert _create(agent, _local(date, time, "Europe/Paris")) == _rule(message)


@pytest.mark.spec("SCH-025", "SCH-026")
@pytest.mark.parametrize(
    "zone",
    ["utc", "GMT", "EST", "EST5EDT", "Z", "UTC ", " UTC", "", "+01:00",
     "america/new_york", "AMERICA/NEW_YORK", "Europe/london", "Foo/Bar", "Mars/Olympus",
     "Etc/GMT+14", "Europe//London", "/Europe", "Europe/London/", "posix/America/New_York",
     "1Europe/London", "Local", "localtime"],
)
def test_zone_must_be_utc_or_an_exact_iana_area_location_key(agent, zone):
    assert _create(agent, _local("2026-07-01", "12:00:00", zone)) == {
        "code": "invalid_time_zone", "message": ZONE}


@pytest.mark.spec("SCH-026")
def test_a_bad_date_is_reported_before_a_bad_zone(agent):
    assert _create(agent, _local("2026-02-30", "12:00:00", "Mars/Olympus")) == _rule(UNREAL)


@pytest.mark.spec("SCH-026", "SCH-039")
def test_local_time_equal_to_now_is_not_future(agent):
    at = _local("2026-01-01", "09:00:00", "Asia/Tokyo")  # 2026-01-01T00:00:00.000Z
    assert _create(agent, at) == {"code": "not_future", "message": NOT_FUTURE}


@pytest.mark.spec("SCH-039")
@pytest.mark.parametrize(
    "at",
    [_local("0001-01-01", "00:00:00", "Asia/Tokyo"),
     _local("9999-12-31", "23:59:59", "America/New_York")],
)
def test_local_times_outside_the_four_digit_years_are_out_of_range(dsh_host_factory, at):
    host = dsh_host_factory(start_ms=Y1400_MS)
    host.load_plugin("schedule")
    agent = host.create_agent()
    assert _create(agent, at) == {"code": "time_out_of_range", "message": OUT_OF_RANGE}


@pytest.mark.spec("SCH-027")
def test_calendar_is_proleptic_gregorian_for_early_local_dates(dsh_host_factory):
    host = dsh_host_factory(start_ms=Y1400_MS)
    host.load_plugin("schedule")
    agent = host.create_agent()
    assert _create(agent, _local("1500-01-01", "00:00:00"))["scheduledAt"] == (
        "1500-01-01T00:00:00.000Z")
    assert _create(agent, _local("1582-10-10", "12:00:00"))["scheduledAt"] == (
        "1582-10-10T12:00:00.000Z")
    assert _create(agent, "1500-03-01T00:00:00Z")["scheduledAt"] == "1500-03-01T00:00:00.000Z"


@pytest.mark.spec("SCH-026", "SCH-027")
def test_early_local_date_before_now_is_not_future(dsh_host_factory):
    host = dsh_host_factory(start_ms=Y1900_MS)
    host.load_plugin("schedule")
    agent = host.create_agent()
    assert _create(agent, _local("1500-01-01", "00:00:00")) == {
        "code": "not_future", "message": NOT_FUTURE}


@pytest.mark.spec("SCH-027")
def test_local_mean_time_offsets_with_seconds_are_honoured(dsh_host_factory):
    host = dsh_host_factory(start_ms=Y1700_MS)
    host.load_plugin("schedule")
    agent = host.create_agent()
    value = _create(agent, _local("1800-01-01", "00:00:00", "America/New_York"))
    assert value["scheduledAt"] == "1800-01-01T04:56:02.000Z"


# -- daylight-saving gaps and overlaps -------------------------------------------------

GAPS = [
    ("America/New_York", "2026-03-08", "02:30:00"),
    ("America/New_York", "2026-03-08", "02:00:00"),
    ("America/New_York", "2026-03-08", "02:59:59.999"),
    ("Europe/London", "2026-03-29", "01:30:00"),
    ("Europe/Dublin", "2026-03-29", "01:30:00"),
    ("Australia/Lord_Howe", "2026-10-04", "02:15:00"),
    ("America/Santiago", "2026-09-06", "00:30:00"),
    ("Antarctica/Troll", "2026-03-29", "02:00:00"),
    ("Pacific/Apia", "2011-12-30", "00:00:00"),
    ("Pacific/Apia", "2011-12-30", "12:00:00"),
    ("Pacific/Apia", "2011-12-30", "23:59:59.999"),
    ("Asia/Kathmandu", "1986-01-01", "00:07:30"),
    ("Europe/Moscow", "2011-03-27", "02:30:00"),
]

RESOLVED = [
    # overlaps: the first, earlier instant
    ("America/New_York", "2026-11-01", "01:30:00", "2026-11-01T05:30:00.000Z"),
    ("America/New_York", "2026-11-01", "01:00:00", "2026-11-01T05:00:00.000Z"),
    ("America/New_York", "2026-11-01", "01:59:59.999", "2026-11-01T05:59:59.999Z"),
    ("Europe/London", "2026-10-25", "01:30:00", "2026-10-25T00:30:00.000Z"),
    ("Europe/Dublin", "2026-10-25", "01:30:00", "2026-10-25T00:30:00.000Z"),
    ("Australia/Lord_Howe", "2026-04-05", "01:45:00", "2026-04-04T14:45:00.000Z"),
    ("America/Santiago", "2026-04-04", "23:30:00", "2026-04-05T02:30:00.000Z"),
    ("Antarctica/Troll", "2026-10-25", "02:00:00", "2026-10-25T00:00:00.000Z"),
    ("Europe/Moscow", "2014-10-26", "01:30:00", "2014-10-25T21:30:00.000Z"),
    # the edges of gaps and overlaps
    ("America/New_York", "2026-03-08", "01:59:59.999", "2026-03-08T06:59:59.999Z"),
    ("America/New_York", "2026-03-08", "03:00:00", "2026-03-08T07:00:00.000Z"),
    ("America/New_York", "2026-11-01", "00:59:59.999", "2026-11-01T04:59:59.999Z"),
    ("America/New_York", "2026-11-01", "02:00:00", "2026-11-01T07:00:00.000Z"),
    ("Australia/Lord_Howe", "2026-04-05", "02:00:00", "2026-04-04T15:30:00.000Z"),
    ("Australia/Lord_Howe", "2026-10-04", "01:59:59.999", "2026-10-03T15:29:59.999Z"),
    ("Australia/Lord_Howe", "2026-10-04", "02:30:00", "2026-10-03T15:30:00.000Z"),
    ("America/Santiago", "2026-09-05", "23:59:59.999", "2026-09-06T03:59:59.999Z"),
    ("America/Santiago", "2026-09-06", "01:00:00", "2026-09-06T04:00:00.000Z"),
    ("America/Santiago", "2026-04-05", "00:00:00", "2026-04-05T04:00:00.000Z"),
    ("Antarctica/Troll", "2026-03-29", "00:59:59.999", "2026-03-29T00:59:59.999Z"),
    ("Antarctica/Troll", "2026-03-29", "03:00:00", "2026-03-29T01:00:00.000Z"),
    ("Antarctica/Troll", "2026-10-25", "03:00:00", "2026-10-25T03:00:00.000Z"),
    ("Pacific/Apia", "2011-12-29", "23:59:59", "2011-12-30T09:59:59.000Z"),
    ("Pacific/Apia", "2011-12-31", "00:00:00", "2011-12-30T10:00:00.000Z"),
    ("Asia/Kathmandu", "1985-12-31", "23:59:59.999", "1985-12-31T18:29:59.999Z"),
    ("Asia/Kathmandu", "1986-01-01", "00:15:00", "1985-12-31T18:30:00.000Z"),
    ("Europe/Dublin", "2026-01-15", "12:00:00", "2026-01-15T12:00:00.000Z"),
    ("Europe/Dublin", "2026-07-15", "12:00:00", "2026-07-15T11:00:00.000Z"),
    ("Europe/Moscow", "2011-10-30", "02:30:00", "2011-10-29T22:30:00.000Z"),
    ("UTC", "2026-03-08", "02:30:00", "2026-03-08T02:30:00.000Z"),
    ("UTC", "2026-10-25", "01:30:00", "2026-10-25T01:30:00.000Z"),
]


@pytest.fixture
def early_agent(dsh_host_factory):
    """An agent on a host whose wall clock is 1900-01-01, before every DST case."""
    host = dsh_host_factory(start_ms=Y1900_MS)
    host.load_plugin("schedule")
    return host.create_agent()


@pytest.mark.spec("SCH-026", "SCH-028")
@pytest.mark.parametrize(("zone", "date", "time"), GAPS)
def test_local_time_inside_a_dst_gap_is_rejected(early_agent, zone, date, time):
    assert _create(early_agent, _local(date, time, zone)) == _rule(GAP)


@pytest.mark.spec("SCH-027", "SCH-029")
@pytest.mark.parametrize(("zone", "date", "time", "scheduled_at"), RESOLVED)
def test_local_time_resolves_to_the_first_matching_instant(
    early_agent, zone, date, time, scheduled_at
):
    assert _create(early_agent, _local(date, time, zone))["scheduledAt"] == scheduled_at


@pytest.mark.spec("SCH-028")
def test_a_past_local_time_inside_a_gap_is_still_a_gap(agent):
    assert _create(agent, _local("2025-03-09", "02:30:00", "America/New_York")) == _rule(GAP)


@pytest.mark.spec("SCH-016", "SCH-030")
def test_at_record_retains_only_the_canonical_utc_instant(agent):
    _create(agent, _local("2026-11-01", "01:30:00", "America/New_York"))
    _create(agent, "2026-11-01T01:30:00.25-04:00")
    records = [change["schedule"] for change in changes(agent.events())]
    assert records == [
        {"id": "schedule-1", "kind": "at", "prompt": "Reminder",
         "scheduledAt": "2026-11-01T05:30:00.000Z"},
        {"id": "schedule-2", "kind": "at", "prompt": "Reminder",
         "scheduledAt": "2026-11-01T05:30:00.250Z"},
    ]
    text = str(agent.events())
    for leftover in ("America/New_York", "-04:00", "01:30:00", "time_zone", "timeZone"):
        assert leftover not in text


# -- shape checks come before the queue (they need neither a flush nor "now") ---------


@pytest.mark.spec("SCH-026", "SCH-034")
@pytest.mark.parametrize(
    ("at", "expected"),
    [
        pytest.param("2026-01-02T08:30:00", _rule(SHAPE), id="grammar"),
        pytest.param("2026-02-30T08:30:00Z", _rule(UNREAL), id="calendar"),
        pytest.param("2026-01-02T08:30:00-00:00", _rule(OFFSET), id="offset"),
        pytest.param(_local("2026-01-02", "08:30:00", "Mars/Olympus"),
                     {"code": "invalid_time_zone", "message": ZONE}, id="zone"),
        pytest.param(_local("2026-03-08", "02:30:00", "America/New_York"), _rule(GAP), id="gap"),
        pytest.param({"date": "2026-01-02", "time": "08:30:00"}, _rule(LOCAL_KEYS),
                     id="local-keys"),
        pytest.param(None, _rule(AT_TYPE), id="type"),
    ],
)
def test_invalid_at_is_reported_without_any_flush_even_when_persistence_is_broken(
    host, agent, at, expected
):
    host.faults.fail_flushes("falsy", count=None)
    seen = len(flushes_of(host, agent.session_id))
    assert _create(agent, at) == expected
    assert len(flushes_of(host, agent.session_id)) == seen
    assert changes(agent.events()) == []


# -- properties ---------------------------------------------------------------------------

REUSE_AGENT = settings(
    max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.mark.spec("SCH-023", "SCH-024", "SCH-027")
@REUSE_AGENT
@given(case=offset_at_strings(after_ms=START_MS, until_ms=START_MS + 20 * 365 * DAY_MS))
def test_any_offset_string_is_stored_as_its_utc_instant(agent, case):
    assert _create(agent, case.at)["scheduledAt"] == case.scheduled_at


@pytest.mark.spec("SCH-026")
@REUSE_AGENT
@given(case=malformed_at_strings())
def test_any_malformed_offset_string_is_rejected_with_its_rule(agent, case):
    assert _create(agent, case.at) == case.expected_error


@pytest.mark.spec("SCH-028", "SCH-029")
@REUSE_AGENT
@given(case=local_at_near_transitions())
def test_any_local_time_near_a_transition_resolves_or_is_a_gap(early_agent, case):
    value = _create(early_agent, case.at)
    if case.scheduled_at is None:
        assert value == case.expected_error
    else:
        assert value["scheduledAt"] == case.scheduled_at

"""Timestamp and duration rendering (notes §3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_reference.time_context.core import format_duration, format_offset, format_timestamp
from pytest_dsh.contract.tzdb import pinned_zone, pinned_zone_keys

BASE = 1_783_987_200_000  # 2026-07-14T00:00:00.000Z


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (0, "+00:00"),
        (28_800, "+08:00"),
        (-14_400, "-04:00"),
        (-9_000, "-02:30"),
        (20_700, "+05:45"),
        (45_900, "+12:45"),
        (50_400, "+14:00"),
        (29_143, "+08:05:43"),
        (-17_762, "-04:56:02"),
    ],
)
def test_offsets_render_hours_minutes_and_seconds_only_when_present(seconds, expected):
    assert format_offset(seconds) == expected


@pytest.mark.parametrize(
    ("epoch_ms", "zone", "expected"),
    [
        (BASE, "Asia/Shanghai", "2026-07-14T08:00:00+08:00[Asia/Shanghai]"),
        (BASE, "UTC", "2026-07-14T00:00:00+00:00[UTC]"),
        (BASE, "America/New_York", "2026-07-13T20:00:00-04:00[America/New_York]"),
        (BASE, "Europe/London", "2026-07-14T01:00:00+01:00[Europe/London]"),
        (BASE + 90_061_000, "Asia/Shanghai", "2026-07-15T09:01:01+08:00[Asia/Shanghai]"),
        (BASE, "Asia/Kathmandu", "2026-07-14T05:45:00+05:45[Asia/Kathmandu]"),
        (BASE, "America/St_Johns", "2026-07-13T21:30:00-02:30[America/St_Johns]"),
        (BASE, "Pacific/Chatham", "2026-07-14T12:45:00+12:45[Pacific/Chatham]"),
        (-2_208_988_800_000, "Asia/Shanghai", "1900-01-01T08:05:43+08:05:43[Asia/Shanghai]"),
        (1_767_225_600_000, "Europe/Dublin", "2026-01-01T00:00:00+00:00[Europe/Dublin]"),
    ],
)
def test_timestamps_show_local_wall_time_offset_and_zone(epoch_ms, zone, expected):
    assert format_timestamp(epoch_ms, pinned_zone(zone), zone) == expected


@pytest.mark.parametrize(
    ("epoch_ms", "expected"),
    [
        (BASE + 999, "2026-07-14T00:00:00+00:00[UTC]"),
        (BASE + 59_999, "2026-07-14T00:00:59+00:00[UTC]"),
        (BASE - 1, "2026-07-13T23:59:59+00:00[UTC]"),
        (-1, "1969-12-31T23:59:59+00:00[UTC]"),
        (-999, "1969-12-31T23:59:59+00:00[UTC]"),
        (-1000, "1969-12-31T23:59:59+00:00[UTC]"),
        (-1001, "1969-12-31T23:59:58+00:00[UTC]"),
    ],
)
def test_sub_second_precision_is_floored_away(epoch_ms, expected):
    assert format_timestamp(epoch_ms, pinned_zone("UTC"), "UTC") == expected


def test_the_label_is_printed_as_given():
    assert format_timestamp(BASE, pinned_zone("UTC"), "Etc/UTC").endswith("+00:00[Etc/UTC]")


def test_years_before_1000_are_not_padded():
    # 0999-06-01T00:00:00Z
    assert format_timestamp(-30_628_713_600_000, pinned_zone("UTC"), "UTC") == (
        "999-06-01T00:00:00+00:00[UTC]"
    )


@pytest.mark.parametrize(
    ("epoch_ms", "zone", "expected"),
    [
        (253_402_300_800_000, "UTC", "10000-01-01T00:00:00+00:00[UTC]"),
        (8_640_000_000_000_000, "UTC", "275760-09-13T00:00:00+00:00[UTC]"),
        # 10000-07-01T12:00Z: the zone's recurring rule still applies (EDT)
        (253_418_025_600_000 + 12 * 3_600_000, "America/New_York",
         "10000-07-01T08:00:00-04:00[America/New_York]"),
    ],
)
def test_instants_past_year_9999_print_their_full_year(epoch_ms, zone, expected):
    # JS time runs to +275760; the reading must name the real instant.
    assert format_timestamp(epoch_ms, pinned_zone(zone), zone) == expected


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MIN_MS = int((datetime(1000, 1, 2, tzinfo=UTC) - _EPOCH).total_seconds() * 1000)
_MAX_MS = int((datetime(9999, 12, 30, tzinfo=UTC) - _EPOCH).total_seconds() * 1000)


@given(
    epoch_ms=st.integers(min_value=_MIN_MS, max_value=_MAX_MS),
    key=st.sampled_from(sorted(pinned_zone_keys())),
)
def test_timestamps_agree_with_an_independent_isoformat_rendering(epoch_ms, key):
    zone = pinned_zone(key)
    local = (_EPOCH + timedelta(milliseconds=epoch_ms)).astimezone(zone)
    expected = local.replace(microsecond=0).isoformat() + f"[{key}]"
    assert format_timestamp(epoch_ms, zone, key) == expected


@pytest.mark.parametrize(
    ("elapsed_ms", "expected"),
    [
        (0, "0s"),
        (-1, "0s"),
        (-86_400_000, "0s"),
        (999, "0s"),
        (59_000, "59s"),
        (59_999, "59s"),
        (60_000, "1m 0s"),
        (61_000, "1m 1s"),
        (3_599_000, "59m 59s"),
        (3_600_000, "1h 0s"),
        (3_660_000, "1h 1m 0s"),
        (86_400_000, "1d 0s"),
        (86_401_000, "1d 1s"),
        (86_460_000, "1d 1m 0s"),
        (90_000_000, "1d 1h 0s"),
        (90_061_000, "1d 1h 1m 1s"),
        (172_800_000, "2d 0s"),
        (400 * 86_400_000, "400d 0s"),
    ],
)
def test_durations_use_compact_whole_second_units(elapsed_ms, expected):
    assert format_duration(elapsed_ms) == expected


@given(st.integers(min_value=-(10**12), max_value=10**15))
def test_durations_add_up_to_the_floored_whole_seconds(elapsed_ms):
    text = format_duration(elapsed_ms)
    sizes = {"d": 86_400, "h": 3_600, "m": 60, "s": 1}
    parts = text.split(" ")
    assert [part[-1] for part in parts] == [u for u in "dhms" if u in {p[-1] for p in parts}]
    assert parts[-1].endswith("s")
    assert all(int(part[:-1]) > 0 for part in parts[:-1])
    assert all(int(part[:-1]) < 60 for part in parts if part[-1] in "ms")
    assert all(int(part[:-1]) < 24 for part in parts if part[-1] == "h")
    assert sum(int(part[:-1]) * sizes[part[-1]] for part in parts) == max(elapsed_ms, 0) // 1000

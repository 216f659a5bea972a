"""Load-time configuration: validation order, messages and zone resolution (notes §1)."""

from __future__ import annotations

import pytest

from dsh_reference.time_context.core import (
    TimeContextConfigError,
    TimeContextSettings,
    canonical_zone_key,
    parse_config,
    resolve_process_zone_key,
)

INTERVAL_PREFIX = "time-context: refreshIntervalMs must be a non-negative safe integer, got "


def _never() -> str:
    raise AssertionError("the process zone must not be resolved")


@pytest.mark.parametrize(
    ("value", "rendered"),
    [
        (-1, "-1"),
        (0.5, "0.5"),
        (2**53, "9007199254740992"),
        (float("inf"), "Infinity"),
        (float("nan"), "NaN"),
        (float("-inf"), "-Infinity"),
        (-0.5, "-0.5"),
        (True, "true"),
        (False, "false"),
        ("60000", "60000"),
        ([], ""),
        ({}, "[object Object]"),
    ],
)
def test_invalid_refresh_intervals_are_refused_with_the_js_rendering(value, rendered):
    with pytest.raises(TimeContextConfigError) as caught:
        parse_config({"refreshIntervalMs": value, "timeZone": "UTC"}, process_zone=_never)
    assert str(caught.value) == INTERVAL_PREFIX + rendered


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({}, 0),
        ({"refreshIntervalMs": None}, 0),
        ({"refreshIntervalMs": 0}, 0),
        ({"refreshIntervalMs": -0.0}, 0),
        ({"refreshIntervalMs": 60000}, 60000),
        ({"refreshIntervalMs": 60000.0}, 60000),
        ({"refreshIntervalMs": 2**53 - 1}, 2**53 - 1),
    ],
)
def test_valid_refresh_intervals_are_accepted(config, expected):
    settings = parse_config({**config, "timeZone": "UTC"}, process_zone=_never)
    assert settings == TimeContextSettings(zone_key="UTC", refresh_interval_ms=expected)
    assert type(settings.refresh_interval_ms) is int


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("Not/A_Real_Zone", 'time-context: invalid IANA timeZone "Not/A_Real_Zone"'),
        ("", 'time-context: invalid IANA timeZone ""'),
        ("+05:00", 'time-context: invalid IANA timeZone "+05:00"'),
        ("Asia/Shanghai ", 'time-context: invalid IANA timeZone "Asia/Shanghai "'),
        ("Asia/Shang\u0127ai", 'time-context: invalid IANA timeZone "Asia/Shang\u0127ai"'),
        (5, "time-context: invalid IANA timeZone 5"),
        (True, "time-context: invalid IANA timeZone true"),
    ],
)
def test_invalid_time_zones_are_refused(value, message):
    with pytest.raises(TimeContextConfigError) as caught:
        parse_config({"timeZone": value}, process_zone=_never)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("value", "label"),
    [
        ("Asia/Shanghai", "Asia/Shanghai"),
        ("asia/shanghai", "Asia/Shanghai"),
        ("ASIA/SHANGHAI", "Asia/Shanghai"),
        ("utc", "UTC"),
        ("Etc/UTC", "Etc/UTC"),
        ("Asia/Kolkata", "Asia/Kolkata"),
        ("US/Eastern", "US/Eastern"),
        ("Etc/GMT+5", "Etc/GMT+5"),
        ("america/st_johns", "America/St_Johns"),
    ],
)
def test_time_zones_match_case_insensitively_and_keep_the_canonical_spelling(value, label):
    assert parse_config({"timeZone": value}, process_zone=_never).zone_key == label


def test_the_interval_is_checked_before_the_zone():
    with pytest.raises(TimeContextConfigError, match="refreshIntervalMs"):
        parse_config({"refreshIntervalMs": -1, "timeZone": "Bogus/Zone"}, process_zone=_never)


def test_the_interval_is_checked_before_the_process_zone_is_resolved():
    def failing() -> str:
        raise TimeContextConfigError("time-context: failed to resolve the system time zone")

    with pytest.raises(TimeContextConfigError, match="refreshIntervalMs"):
        parse_config({"refreshIntervalMs": 0.5}, process_zone=failing)
    with pytest.raises(TimeContextConfigError, match="system time zone"):
        parse_config({"refreshIntervalMs": 5}, process_zone=failing)


@pytest.mark.parametrize("config", [{}, {"timeZone": None}])
def test_an_absent_zone_uses_the_process_zone(config):
    assert parse_config(config, process_zone=lambda: "Asia/Tokyo").zone_key == "Asia/Tokyo"


def test_unknown_keys_are_ignored():
    settings = parse_config({"timeZone": "UTC", "other": 1}, process_zone=_never)
    assert settings.zone_key == "UTC"


@pytest.mark.parametrize(
    ("tz", "target", "expected"),
    [
        ("Asia/Shanghai", None, "Asia/Shanghai"),
        ("Asia/Shanghai", "/usr/share/zoneinfo/Europe/Berlin", "Asia/Shanghai"),
        (":Asia/Tokyo", None, "Asia/Tokyo"),
        ("america/new_york", None, "America/New_York"),
        ("", "/usr/share/zoneinfo/Europe/Berlin", "UTC"),
        (":", None, "UTC"),
        (None, "/usr/share/zoneinfo/Europe/Berlin", "Europe/Berlin"),
        (None, "../usr/share/zoneinfo/posix/Europe/Paris", "Europe/Paris"),
        (None, "/usr/share/zoneinfo/right/Asia/Tokyo", "Asia/Tokyo"),
        (None, "/usr/share/zoneinfo/Etc/UTC", "Etc/UTC"),
        (None, "/usr/share/zoneinfo/Not/A_Zone", "UTC"),
        (None, "/somewhere/else", "UTC"),
        (None, None, "UTC"),
    ],
)
def test_the_process_zone_comes_from_tz_then_localtime_then_utc(tz, target, expected):
    assert resolve_process_zone_key(tz, target) == expected


@pytest.mark.parametrize("tz", ["Not/A_Zone", "CST-8", "+08:00", "/etc/localtime"])
def test_an_invalid_tz_fails_to_resolve(tz):
    with pytest.raises(TimeContextConfigError) as caught:
        resolve_process_zone_key(tz, "/usr/share/zoneinfo/UTC")
    assert str(caught.value) == "time-context: failed to resolve the system time zone"


@pytest.mark.parametrize(("name", "key"), [("gmt", "GMT"), ("x/y", None), ("\u00e9", None)])
def test_canonical_zone_keys(name, key):
    assert canonical_zone_key(name) == key

"""Readings at wall clocks past year 9999 and at the ends of JavaScript time.

The README asks for a reading before every eligible attempt (TC-013) with an
ISO-like local timestamp (TC-034) and a whole-second duration. It sets no upper
year, and the plugin runs on Node, whose clock spans ±8.64e15 ms: a wall clock
past 9999-12-31 is still a time to report, so the attempt must neither fail nor
skip its reading, and the reading must name the real instant. (Step 1's
elapsed time is left out where the official build measures it from another
baseline, a deviation recorded elsewhere: class tc-prompt-not-a-baseline.) How a year past
9999 is printed (unpadded, as below 10000) is pinned (TC-YEAR-PAST-9999).
"""

from __future__ import annotations

import re

import pytest

from dsh_conformance.expect import pinned, readme, seconds_of
from dsh_conformance.time_context.readings import (
    expect_readings,
    parse_reading,
    reading_texts,
    run_turn,
)

pytestmark = [pytest.mark.dsh_requires("time-context")]

YEAR_10000_MS = 253_402_300_800_000  # 10000-01-01T00:00:00.000Z
JS_MAX_MS = 8_640_000_000_000_000  # +275760-09-13T00:00:00.000Z


def turn_ends(agent):
    return [e["data"]["reason"]["kind"] for e in agent.events() if e["type"] == "turn/end"]


CASES = pytest.mark.parametrize(
    ("wall_ms", "timestamp"),
    [
        (YEAR_10000_MS, "10000-01-01T08:00:00+08:00[Asia/Shanghai]"),
        (YEAR_10000_MS + 86_399_999, "10000-01-02T07:59:59+08:00[Asia/Shanghai]"),
        (JS_MAX_MS, "275760-09-13T08:00:00+08:00[Asia/Shanghai]"),
    ],
    ids=["year-10000", "year-10000-last-ms-of-day", "js-max"],
)
# What the README fixes of a timestamp whatever its year's width: the year, the rest of
# the local date-time to the second, the numeric offset and the IANA zone in any framing,
# after or before the date-time.
_LOCAL = (r"[+-]?0*(?P<year>\d+)-(?P<rest>\d{2}-\d{2}T\d{2}:\d{2}:\d{2})"
          r"(?P<offset>[+-]\d{2}:\d{2})")
_ZONE = r"(?P<zone>[A-Za-z][A-Za-z0-9_+\-/]*)"
_INSTANTS = (
    re.compile(_LOCAL + r"[\s\[(]*" + _ZONE + r"[\])]*"),
    re.compile(r"[\[(]*" + _ZONE + r"(?:[\])]+\s*|\s+)" + _LOCAL),
)


def instant_facts(timestamp: str) -> tuple[str, ...] | str:
    match = next(filter(None, (shape.fullmatch(timestamp) for shape in _INSTANTS)), None)
    if match is None:
        return f"no local date-time, numeric offset and IANA zone: {timestamp!r}"
    return (match["year"], match["rest"], match["offset"], match["zone"])


def one_reading(dsh_host, wall_ms: int) -> tuple[dict[str, str], list[str]]:
    dsh_host.load_plugin("time-context", {"timeZone": "Asia/Shanghai"})
    agent = dsh_host.create_agent()
    dsh_host.set_wall_clock(wall_ms)
    run_turn(dsh_host, agent)
    texts, ends = reading_texts(agent.events()), turn_ends(agent)
    # A missing reading is a failure to report, not a crash of the test.
    assert len(texts) == 1, readme(
        "TC-013", "exactly one reading for the turn's one step at this wall clock",
        {"readings": texts, "turn ends": ends})
    return parse_reading(texts[0]), ends


@pytest.mark.spec("TC-013", "TC-034", "TC-036")
@CASES
def test_a_wall_clock_past_year_9999_still_gets_a_true_reading(dsh_host, wall_ms, timestamp):
    reading, ends = one_reading(dsh_host, wall_ms)
    assert (reading["turn"], reading["step"]) == ("1", "1"), readme(
        "TC-013, TC-036", "a reading for turn 1, step 1", reading)
    assert instant_facts(reading["timestamp"]) == instant_facts(timestamp), readme(
        "TC-034", f"the local time, offset and zone of {timestamp} (year in any width)",
        reading["timestamp"])
    assert ends == ["completed"], readme(
        "TC-013", "the attempt to complete rather than fail or skip its reading", ends)


@pytest.mark.compat("TC-TIMESTAMP-TEXT", "TC-YEAR-PAST-9999")
@pytest.mark.spec("TC-034")
@CASES
def test_a_year_past_9999_is_printed_unpadded(dsh_host, wall_ms, timestamp):
    reading, _ = one_reading(dsh_host, wall_ms)
    assert reading["timestamp"] == timestamp, pinned(
        "TC-TIMESTAMP-TEXT, TC-YEAR-PAST-9999", f"the timestamp text {timestamp!r}",
        reading["timestamp"])


@pytest.mark.spec("TC-013", "TC-022", "TC-034", "TC-038", "TC-039")
def test_a_turn_crossing_into_year_10000_reads_both_sides_and_the_gap(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    dsh_host.set_wall_clock(YEAR_10000_MS - 1_000)
    run_turn(dsh_host, agent, 2_000)
    texts = expect_readings(agent.events(), 2, "TC-013", "for a two-step turn")
    first, second = (parse_reading(text) for text in texts)
    assert instant_facts(first["timestamp"]) == ("9999", "12-31T23:59:59", "+00:00", "UTC"), (
        readme("TC-034", "step 1 to read 9999-12-31T23:59:59 at offset +00:00 in UTC",
               first["timestamp"]))
    assert (second["step"], instant_facts(second["timestamp"])) == (
        "2", ("10000", "01-01T00:00:01", "+00:00", "UTC")), readme(
        "TC-022, TC-034", "step 2 to read 10000-01-01T00:00:01 at offset +00:00 in UTC",
        second)
    assert (second["baseline"], seconds_of(second["elapsed"])) == ("step context", 2), readme(
        "TC-038, TC-039", "step 2 to measure 2 s since the preceding step context", second)
    assert turn_ends(agent) == ["completed"], readme(
        "TC-013", "the turn crossing into year 10000 to complete", turn_ends(agent))


@pytest.mark.compat("TC-TIMESTAMP-TEXT", "TC-YEAR-PAST-9999", "TC-DURATION-TEXT")
@pytest.mark.spec("TC-034", "TC-039")
def test_a_turn_crossing_into_year_10000_spells_both_readings(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    dsh_host.set_wall_clock(YEAR_10000_MS - 1_000)
    run_turn(dsh_host, agent, 2_000)
    texts = expect_readings(agent.events(), 2, "TC-013", "for a two-step turn")
    first, second = (parse_reading(text) for text in texts)
    seen = (first["timestamp"], second["timestamp"], second["elapsed"])
    assert seen == ("9999-12-31T23:59:59+00:00[UTC]", "10000-01-01T00:00:01+00:00[UTC]", "2s"), (
        pinned("TC-TIMESTAMP-TEXT, TC-YEAR-PAST-9999, TC-DURATION-TEXT",
               "the texts 9999-12-31T23:59:59+00:00[UTC], 10000-01-01T00:00:01+00:00[UTC] "
               "and 2s", seen))

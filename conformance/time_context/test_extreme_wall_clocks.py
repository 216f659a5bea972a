"""Readings at wall clocks past year 9999 and at the ends of JavaScript time.

The README asks for a reading before every eligible attempt (TC-013) with an
ISO-like local timestamp (TC-034) and a whole-second duration. It sets no upper
year, and the plugin runs on Node, whose clock spans ±8.64e15 ms: a wall clock
past 9999-12-31 is still a time to report, so the attempt must neither fail nor
skip its reading, and the reading must name the real instant. (Step 1's
elapsed time is left out where the official build measures it from another
baseline, a deviation recorded elsewhere: class tc-prompt-not-a-baseline.) How a year past
9999 is printed (unpadded, as below 10000) follows the official build.
"""

from __future__ import annotations

import pytest

from dsh_conformance.time_context.readings import (
    parse_reading,
    reading_texts,
    run_turn,
    step_one_text,
)

pytestmark = [pytest.mark.dsh_requires("time-context")]

YEAR_10000_MS = 253_402_300_800_000  # 10000-01-01T00:00:00.000Z
JS_MAX_MS = 8_640_000_000_000_000  # +275760-09-13T00:00:00.000Z


def turn_ends(agent):
    return [e["data"]["reason"]["kind"] for e in agent.events() if e["type"] == "turn/end"]


@pytest.mark.spec("TC-013", "TC-034", "TC-036")
@pytest.mark.parametrize(
    ("wall_ms", "timestamp"),
    [
        (YEAR_10000_MS, "10000-01-01T08:00:00+08:00[Asia/Shanghai]"),
        (YEAR_10000_MS + 86_399_999, "10000-01-02T07:59:59+08:00[Asia/Shanghai]"),
        (JS_MAX_MS, "275760-09-13T08:00:00+08:00[Asia/Shanghai]"),
    ],
    ids=["year-10000", "year-10000-last-ms-of-day", "js-max"],
)
def test_a_wall_clock_past_year_9999_still_gets_a_true_reading(dsh_host, wall_ms, timestamp):
    dsh_host.load_plugin("time-context", {"timeZone": "Asia/Shanghai"})
    agent = dsh_host.create_agent()
    dsh_host.set_wall_clock(wall_ms)
    run_turn(dsh_host, agent)
    [reading] = [parse_reading(text) for text in reading_texts(agent.events())]
    assert (reading["turn"], reading["step"], reading["timestamp"]) == ("1", "1", timestamp)
    assert turn_ends(agent) == ["completed"]


@pytest.mark.spec("TC-013", "TC-022", "TC-034", "TC-038", "TC-039")
def test_a_turn_crossing_into_year_10000_reads_both_sides_and_the_gap(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    dsh_host.set_wall_clock(YEAR_10000_MS - 1_000)
    run_turn(dsh_host, agent, 2_000)
    first, second = (parse_reading(text) for text in reading_texts(agent.events()))
    assert first["timestamp"] == "9999-12-31T23:59:59+00:00[UTC]"
    assert (second["step"], second["timestamp"]) == ("2", "10000-01-01T00:00:01+00:00[UTC]")
    assert (second["baseline"], second["elapsed"]) == ("step context", "2s")
    assert turn_ends(agent) == ["completed"]


@pytest.mark.spec("TC-013", "TC-023")
def test_a_rollback_from_past_year_9999_clamps_the_elapsed_time(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    dsh_host.set_wall_clock(YEAR_10000_MS)
    run_turn(dsh_host, agent)
    dsh_host.set_wall_clock(1_767_225_600_000)
    run_turn(dsh_host, agent)
    texts = reading_texts(agent.events())
    assert texts[1] == step_one_text(2, "2026-01-01T00:00:00+00:00[UTC]", "0s")
    assert turn_ends(agent) == ["completed", "completed"]

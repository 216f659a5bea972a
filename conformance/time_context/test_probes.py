"""Time-context probes that observe one fact of a reading each.

The other readme tests compare whole readings, so a bug in one part (the
source, the offset's spelling, a baseline label, a zero duration) fails
every one of them. A probe must fail for its own behaviour only: these find
readings by the README's two-line template, whatever their source, and read
only the part they check.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from dsh_conformance.expect import reading_facts, readme, seconds_of
from dsh_conformance.time_context.readings import (
    READING_SOURCE,
    START_MS,
    run_turn,
    step_one_text,
    text_of,
)

pytestmark = [pytest.mark.dsh_requires("time-context")]

UTC_CONFIG = {"timeZone": "UTC"}

# The two template lines (TC-036..TC-039); every part is read apart.
_TEMPLATE = re.compile(
    r"Time sampled while preparing turn (?P<turn>\d+), step (?P<step>\d+): (?P<timestamp>.+)\n"
    r"Elapsed since the preceding (?P<baseline>[^:\n]+): (?P<elapsed>.+)\."
)
# TC-034: an ISO-shaped local time to the second, wherever the timestamp puts it.
_LOCAL_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")


Parts = dict[str, str]


def _readings(events: Sequence[Mapping[str, Any]]) -> list[tuple[Mapping[str, Any], Parts]]:
    """Every user/message whose text is the two-line reading, with its parts."""
    found = []
    for event in events:
        if event.get("type") == "user/message":
            match = _TEMPLATE.fullmatch(text_of(event))
            if match is not None:
                found.append((event, match.groupdict()))
    return found


def _texts(events: Sequence[Mapping[str, Any]]) -> list[str]:
    return [text_of(event) for event, _ in _readings(events)]


@pytest.mark.spec("TC-033", "TC-036", "TC-037")
@pytest.mark.dsh_probe(
    "first-step-reading-two-lines", "The first step's reading is the two documented lines"
)
def test_the_first_step_reading_names_its_turn_step_and_the_model_visible_baseline(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "Asia/Shanghai"})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    shown = [(p["turn"], p["step"], p["baseline"]) for _, p in _readings(agent.events())]
    assert shown == [("1", "1", "model-visible message")], readme(
        "TC-033, TC-036, TC-037", "one reading 'Time sampled while preparing turn 1, step 1: "
        "...' / 'Elapsed since the preceding model-visible message: ....'",
        _texts(agent.events()))


@pytest.mark.spec("TC-033", "TC-038", "TC-039")
@pytest.mark.dsh_probe(
    "later-step-reading-two-lines", "A later step's reading is the two documented lines"
)
def test_a_later_step_reading_names_its_step_and_the_step_context_baseline(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 61_000)
    shown = [(p["turn"], p["step"], p["baseline"]) for _, p in _readings(agent.events())][1:]
    assert shown == [("1", "2", "step context")], readme(
        "TC-033, TC-038, TC-039", "the step-2 reading 'Time sampled while preparing turn 1, "
        "step 2: ...' / 'Elapsed since the preceding step context: ....'",
        _texts(agent.events()))


@pytest.mark.spec("TC-016", "TC-033")
@pytest.mark.dsh_probe("reading-carries-the-plugin-source", "A reading carries the plugin's source")
def test_the_reading_carries_exactly_the_plugin_source_whatever_its_text(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    sources = [(event.get("data") or {}).get("source") for event, _ in _readings(agent.events())]
    assert sources == [dict(READING_SOURCE)], readme(
        "TC-016", "the one reading's source to be exactly {kind: 'plugin', plugin: "
        "'time-context'}; sources", sources)


@pytest.mark.spec("TC-021")
@pytest.mark.dsh_probe(
    "step-one-elapsed-from-the-prompt",
    "Step 1 measures elapsed time from the prompt that opened the turn",
)
def test_step_one_of_a_later_turn_measures_zero_from_its_own_prompt(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.advance(100)
    run_turn(dsh_host, agent)
    elapsed = [(p["turn"], p["elapsed"]) for _, p in _readings(agent.events())]
    seconds = [(turn, _seconds(text)) for turn, text in elapsed]
    assert seconds[1:] == [("2", 0)], readme(
        "TC-021", "step 1 of turn 2 to measure from its own prompt: 0 s, not the 100 s since "
        "turn 1", elapsed)


@pytest.mark.spec("TC-022", "TC-024")
@pytest.mark.dsh_probe(
    "later-step-elapsed-stays-in-the-turn",
    "A later step measures only from a reading of its own turn",
)
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_later_step_with_no_earlier_reading_in_its_turn_reads_unavailable(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": 60_000})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.advance(10)
    run_turn(dsh_host, agent, 60_000)  # step 1 of turn 2 is inside the interval: no reading
    elapsed = [(p["turn"], p["step"], p["elapsed"]) for _, p in _readings(agent.events())]
    assert elapsed[1:] == [("2", "2", "unavailable")], readme(
        "TC-024", "turn 2 step 2 (its step 1 suppressed) to read 'unavailable', not the time "
        "since turn 1's reading", elapsed)


@pytest.mark.spec("TC-043")
@pytest.mark.dsh_probe("timestamp-floors-to-the-second", "Timestamps drop sub-second precision")
def test_a_timestamp_shows_the_second_it_falls_in(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    dsh_host.set_wall_clock(START_MS + 999)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 1_999)  # step 2 at +2.998 s
    local = [_local_time(p["timestamp"]) for _, p in _readings(agent.events())]
    assert local == ["2026-01-01T00:00:00", "2026-01-01T00:00:02"], readme(
        "TC-043", "the readings at +0.999 s and +2.998 s to show 00:00:00 and 00:00:02 (no "
        "sub-second precision, not rounded)", _texts(agent.events()))


@pytest.mark.spec("TC-014")
@pytest.mark.parametrize(("delay_ms", "appended"), [(999, False), (1000, True)])
@pytest.mark.dsh_probe(
    "interval-reached-appends-a-reading",
    "A reading is appended once the refresh interval has passed",
)
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_reading_is_appended_once_the_interval_has_passed(dsh_host, delay_ms, appended):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": 1000})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.set_wall_clock(START_MS + delay_ms)
    run_turn(dsh_host, agent)
    observed = _texts(agent.events())
    assert len(observed) == (2 if appended else 1), readme(
        "TC-014", f"with refreshIntervalMs 1000, a second reading {delay_ms} ms after the "
        f"first {'to be' if appended else 'not to be'} appended", observed)


@pytest.mark.spec("TC-014")
@pytest.mark.dsh_probe(
    "interval-after-clock-rollback", "A wall clock moved backwards still gets a reading"
)
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_wall_clock_moved_backwards_inside_the_interval_still_gets_a_reading(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": 3_600_000})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.set_wall_clock(START_MS - 1)
    run_turn(dsh_host, agent)
    turns = [p["turn"] for _, p in _readings(agent.events())]
    assert turns == ["1", "2"], readme(
        "TC-014", "a reading in turn 2 although the wall clock moved back inside the interval",
        _texts(agent.events()))


def _seconds(duration: str) -> int | str | None:
    try:
        return seconds_of(duration)
    except ValueError:
        return duration


def _local_time(timestamp: str) -> str:
    found = _LOCAL_TIME.search(timestamp)
    return found.group(0) if found else timestamp


@pytest.mark.spec("TC-021", "TC-023")
@pytest.mark.dsh_probe(
    "step-one-baseline-is-model-visible",
    "Step one measures from the newest model-visible message",
)
@pytest.mark.dsh_requires("inject-into-the-step")
def test_step_one_measures_from_the_newest_model_visible_message_not_a_newer_step_end(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    message = {"content": [{"type": "text", "text": "earlier"}], "source": {"kind": "user"}}
    agent.append_event("user/message", message, envelope={"time": START_MS - 90_000})
    agent.append_event("step/end", {"turn": 1, "step": 1}, envelope={"time": START_MS - 30_000})
    agent.start_pre_step(1, 1).result()
    elapsed = [p["elapsed"] for _, p in _readings(agent.events())]
    assert [_seconds(text) for text in elapsed] == [90], readme(
        "TC-021, TC-023", "step 1 to measure from the user message stamped 90 s ago, not from "
        "the newer step/end stamped 30 s ago", elapsed)


@pytest.mark.spec("TC-034")
@pytest.mark.parametrize(("zone", "timestamp"), [
    ("UTC", "2026-01-01T00:00:00+00:00[UTC]"),
    ("America/St_Johns", "2025-12-31T20:30:00-03:30[America/St_Johns]"),
])
@pytest.mark.dsh_probe(
    "timestamp-local-offset-zone", "The timestamp is a local time with its offset and zone"
)
def test_the_timestamp_shows_the_local_time_its_offset_and_its_zone(dsh_host, zone, timestamp):
    dsh_host.load_plugin("time-context", {"timeZone": zone})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    # Only the timestamp part is read: its facts, inside an otherwise fixed reading.
    shown = [_stamp(p["timestamp"]) for _, p in _readings(agent.events())]
    assert shown == [_stamp(timestamp)], readme(
        "TC-034", f"an ISO-shaped local time with numeric offset and IANA zone: {timestamp}",
        _texts(agent.events()))


def _stamp(timestamp: str) -> tuple[str, str, str] | str:
    facts = reading_facts(step_one_text(1, timestamp, "0s"))
    return facts if isinstance(facts, str) else (facts.local_time, facts.offset, facts.zone)

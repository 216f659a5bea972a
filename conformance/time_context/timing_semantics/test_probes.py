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

from dsh_conformance.expect import readme, seconds_of
from dsh_conformance.time_context.readings import (
    READING_SOURCE,
    START_MS,
    run_turn,
    text_of,
)

pytestmark = [pytest.mark.dsh_requires("time-context")]

UTC_CONFIG = {"timeZone": "UTC"}

# The two template lines (TC-036..TC-039); every part is read apart.
_TEMPLATE = re.compile(
    r"Time sampled while preparing turn (?P<turn>\d+), step (?P<step>\d+): (?P<timestamp>.+)\n"
    r"Elapsed since the preceding (?P<baseline>[^:\n]+): (?P<elapsed>.+)\."
)


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


def _seconds(duration: str) -> int | str | None:
    try:
        return seconds_of(duration)
    except ValueError:
        return duration


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

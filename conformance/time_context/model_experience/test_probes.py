"""README section "Model experience": probes, each isolating one basic behaviour
(``dsh_probe``).

The helpers these tests share with ``time_context/timing_semantics/test_probes.py`` are
defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import reading_facts, readme
from dsh_conformance.time_context.readings import run_turn, step_one_text
from dsh_conformance.time_context.timing_semantics.test_probes import UTC_CONFIG, _readings, _texts

pytestmark = [pytest.mark.dsh_requires("time-context")]


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

"""README section "Configuration": readings at wall clocks past year 9999 and at the ends
of JavaScript time.

The helpers these tests share with
``time_context/model_experience/test_extreme_wall_clocks.py`` are defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import ReadingFacts, reading_facts, readme
from dsh_conformance.time_context.model_experience.test_extreme_wall_clocks import (
    YEAR_10000_MS,
    turn_ends,
)
from dsh_conformance.time_context.readings import expect_readings, run_turn

pytestmark = [pytest.mark.dsh_requires("time-context")]


@pytest.mark.spec("TC-013", "TC-023")
def test_a_rollback_from_past_year_9999_clamps_the_elapsed_time(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    dsh_host.set_wall_clock(YEAR_10000_MS)
    run_turn(dsh_host, agent)
    dsh_host.set_wall_clock(1_767_225_600_000)
    run_turn(dsh_host, agent)
    texts = expect_readings(agent.events(), 2, "TC-013", "for two one-step turns")
    facts = reading_facts(texts[1])
    assert facts == ReadingFacts(
        2, 1, "model-visible message", "2026-01-01T00:00:00", "+00:00", "UTC", 0), readme(
        "TC-023", "turn 2 to read 2026-01-01T00:00:00 in UTC with the backward elapsed time "
        "clamped to 0 s", texts[1])
    assert turn_ends(agent) == ["completed", "completed"], readme(
        "TC-013", "both turns to complete", turn_ends(agent))

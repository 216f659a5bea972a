"""README section "Timing semantics": readings at wall clocks past year 9999 and at the
ends of JavaScript time.

The helpers these tests share with
``time_context/model_experience/test_extreme_wall_clocks.py`` are defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned
from dsh_conformance.time_context.model_experience.test_extreme_wall_clocks import YEAR_10000_MS
from dsh_conformance.time_context.readings import expect_readings, run_turn, step_one_text

pytestmark = [pytest.mark.dsh_requires("time-context")]


@pytest.mark.compat("TC-TIMESTAMP-TEXT", "TC-DURATION-TEXT")
@pytest.mark.spec("TC-023", "TC-034")
def test_a_rollback_from_past_year_9999_spells_the_clamped_reading(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    dsh_host.set_wall_clock(YEAR_10000_MS)
    run_turn(dsh_host, agent)
    dsh_host.set_wall_clock(1_767_225_600_000)
    run_turn(dsh_host, agent)
    texts = expect_readings(agent.events(), 2, "TC-013", "for two one-step turns")
    expected = step_one_text(2, "2026-01-01T00:00:00+00:00[UTC]", "0s")
    assert texts[1] == expected, pinned(
        "TC-TIMESTAMP-TEXT, TC-DURATION-TEXT", f"turn 2's reading to be {expected!r}", texts[1])

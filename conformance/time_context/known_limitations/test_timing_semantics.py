"""README section "Known limitations and deferred work": its tests that also exercise the
section "Timing semantics".

The helpers these tests share with
``time_context/timing_semantics/test_timing_semantics.py`` are defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import all_facts, readme
from dsh_conformance.time_context.readings import (
    START_MS,
    later_step_text,
    reading_texts,
    run_turn,
    step_one_text,
)
from dsh_conformance.time_context.timing_semantics.test_timing_semantics import UTC_CONFIG

pytestmark = [pytest.mark.dsh_requires("time-context")]


@pytest.mark.spec("TC-023", "TC-043", "TC-044")
def test_elapsed_time_uses_millisecond_event_times(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    dsh_host.set_wall_clock(START_MS + 900)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 200)
    observed = reading_texts(agent.events())
    expected = [
        step_one_text(1, "2026-01-01T00:00:00+00:00[UTC]", "0s"),
        later_step_text(1, 2, "2026-01-01T00:00:01+00:00[UTC]", "0s"),
    ]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-023, TC-043, TC-044", "elapsed from millisecond event times (.900 to 1.100 is "
        "0 s, although the whole-second timestamps differ by 1 s)", observed)

"""README section "Configuration": its tests that also exercise the section "Timing
semantics".

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
    step_one_text,
)
from dsh_conformance.time_context.timing_semantics.test_timing_semantics import UTC_CONFIG
from pytest_dsh import reply_text, reply_tools

pytestmark = [pytest.mark.dsh_requires("time-context")]


@pytest.mark.parametrize(
    "config", [UTC_CONFIG, {"timeZone": "UTC", "refreshIntervalMs": 3_600_000}]
)
@pytest.mark.spec("TC-014", "TC-023")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_backward_wall_clock_clamps_the_elapsed_time_to_zero(dsh_host, config):
    dsh_host.load_plugin("time-context", config)
    agent = dsh_host.create_agent()
    agent.script(reply_tools(("lookup", {}), thinking_s=10), reply_text("done"))
    agent.prompt("hello")
    dsh_host.set_wall_clock(START_MS - 60_000)
    dsh_host.advance(10)
    observed = reading_texts(agent.events())
    expected = [
        step_one_text(1, "2026-01-01T00:00:00+00:00[UTC]", "0s"),
        later_step_text(1, 2, "2025-12-31T23:59:10+00:00[UTC]", "0s"),
    ]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-014, TC-023", "a reading after the wall clock moved back 50 s, its elapsed time "
        "clamped to 0 s", observed)

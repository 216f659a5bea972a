"""README section "Model experience": behaviours mutation runs of the reference showed the
suite did not yet pin.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned
from dsh_conformance.time_context.readings import expect_readings, parse_reading, run_turn


# Pins an official detail (README leaves it open, TC-034 only says "numeric
# offset"): an offset with seconds, such as local mean time, keeps its seconds.
@pytest.mark.dsh_requires("time-context")
@pytest.mark.compat("TC-TIMESTAMP-TEXT")
@pytest.mark.spec("TC-034")
def test_an_offset_with_seconds_is_printed_with_its_seconds(dsh_host_factory):
    host = dsh_host_factory(start_ms=-2_208_988_800_000)  # 1900-01-01T00:00:00Z
    host.load_plugin("time-context", {"timeZone": "Asia/Shanghai"})
    agent = host.create_agent()
    run_turn(host, agent)
    [text] = expect_readings(agent.events(), 1, "TC-013", "for a one-step turn")
    timestamp = parse_reading(text)["timestamp"]
    assert timestamp == "1900-01-01T08:05:43+08:05:43[Asia/Shanghai]", pinned(
        "TC-TIMESTAMP-TEXT", "Shanghai local mean time in 1900 to print its offset with "
        "seconds, 1900-01-01T08:05:43+08:05:43[Asia/Shanghai]", timestamp)

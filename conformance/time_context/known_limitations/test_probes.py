"""README section "Known limitations and deferred work": probes, each isolating one basic
behaviour (``dsh_probe``).

The helpers these tests share with ``time_context/timing_semantics/test_probes.py`` are
defined there.
"""

from __future__ import annotations

import re

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.time_context.readings import START_MS, run_turn
from dsh_conformance.time_context.timing_semantics.test_probes import UTC_CONFIG, _readings, _texts

pytestmark = [pytest.mark.dsh_requires("time-context")]


# TC-034: an ISO-shaped local time to the second, wherever the timestamp puts it.
_LOCAL_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")


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


def _local_time(timestamp: str) -> str:
    found = _LOCAL_TIME.search(timestamp)
    return found.group(0) if found else timestamp

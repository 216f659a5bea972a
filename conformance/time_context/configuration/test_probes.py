"""README section "Configuration": probes, each isolating one basic behaviour
(``dsh_probe``).

The helpers these tests share with ``time_context/timing_semantics/test_probes.py`` are
defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.time_context.readings import START_MS, run_turn
from dsh_conformance.time_context.timing_semantics.test_probes import _readings, _texts

pytestmark = [pytest.mark.dsh_requires("time-context")]


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

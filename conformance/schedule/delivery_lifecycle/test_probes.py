"""README section "Delivery lifecycle": probes, each isolating one basic behaviour
(``dsh_probe``).
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.session_logs import START_MS
from dsh_conformance.schedule.written_logs import create, transition_events, transitions

pytestmark = [pytest.mark.dsh_requires("schedule")]


DAY_MS = 86_400_000


@pytest.mark.spec("SCH-043")
@pytest.mark.dsh_probe(
    "rollback-never-fires-early", "A wall clock stepped back never fires a reminder early"
)
def test_a_wall_clock_stepped_back_delays_the_reminder_until_it_reaches_the_target(host, agent):
    record = create(agent, {"prompt": "Roll", "after_seconds": 3600})
    host.set_wall_clock(START_MS - DAY_MS)
    host.advance(3600)  # the timer elapses, but the wall clock says a day early
    early = transitions(agent.events(), [record])
    host.advance(86_400)
    assert (early, transitions(agent.events(), [record])) == ([], [record.id]), readme(
        "SCH-043", "no dispatch when the timer elapses with the wall clock rolled back, one "
        "once the wall clock reaches the target", transition_events(agent.events(), [record]))

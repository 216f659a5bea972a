"""README section "Management tools": probes of the live owner's runtime (``dsh_probe``).

The helpers these tests share with
``schedule/delivery_lifecycle/test_runtime_probes.py`` are defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.delivery_lifecycle.test_runtime_probes import HOUR, UNKNOWN, delivered
from dsh_conformance.schedule.written_logs import create, transition_events

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.spec("SCH-037", "SCH-085")
@pytest.mark.dsh_probe(
    "rejected-idle-wait-recovers", "After a rejected idle wait the next preflight delivers"
)
def test_a_rejected_idle_wait_is_recovered_by_the_next_preflight(host, agent):
    record = create(agent, HOUR)
    hold = agent.hold_maintenance()
    host.advance(3600)
    agent.reject_when_idle()
    hold.release()
    agent.call_tool("schedule_delete", {"id": UNKNOWN})
    assert delivered(agent, record) == ([record.id], 1), readme(
        "SCH-037, SCH-085", "the delete's successful preflight to make the owner recompute and "
        "deliver the reminder once after its idle wait was rejected",
        transition_events(agent.events(), [record]))

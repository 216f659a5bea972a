"""README section "Known Limitations and Deferred Work": probes of the live owner's runtime
(``dsh_probe``).

The helpers these tests share with
``schedule/delivery_lifecycle/test_runtime_probes.py`` are defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.delivery_lifecycle.test_runtime_probes import HOUR, delivered
from dsh_conformance.schedule.written_logs import create, transition_events

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.spec("SCH-084")
@pytest.mark.dsh_probe(
    "resume-delivers-overdue-once", "A record due while the session was cold fires once at resume"
)
def test_a_record_due_while_cold_is_delivered_once_at_resume(host, agent):
    record = create(agent, HOUR)
    host.crash()
    host.advance(7200)
    resumed = host.resume(agent.session_id)
    assert delivered(resumed, record) == ([record.id], 1), readme(
        "SCH-084", "the overdue record to be processed at resume: one dispatch, one reminder",
        transition_events(resumed.events(), [record]))

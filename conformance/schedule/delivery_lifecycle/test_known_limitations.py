"""README section "Delivery lifecycle": its tests that also exercise the section "Known
Limitations and Deferred Work".
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned
from dsh_conformance.schedule.session_logs import START_MS, dispatches

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.compat("SCH-PAYLOAD-LAYOUT")
@pytest.mark.spec("SCH-050", "SCH-087")
def test_every_dispatch_accepted_at_is_the_decision_time(dsh_host_factory):
    host = dsh_host_factory(start_ms=START_MS + 7_123)
    host.load_plugin("schedule")
    agent = host.create_agent()
    agent.call_tool("schedule_create", {"prompt": "Tick", "every_seconds": 420})
    for _ in range(4):
        host.advance(420)
    accepted = [d["acceptedAt"] for d in dispatches(agent.events())]
    assert accepted == ["2026-01-01T00:07:07.123Z", "2026-01-01T00:14:07.123Z",
                        "2026-01-01T00:21:07.123Z", "2026-01-01T00:28:07.123Z"], pinned(
        "SCH-PAYLOAD-LAYOUT", "each Every dispatch's acceptedAt to be its decision time",
        accepted)

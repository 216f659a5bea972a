"""README section "Known Limitations and Deferred Work": behaviours mutation runs of the
reference showed the suite did not yet pin.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned, readme
from dsh_conformance.layout_free import closed_codes_in
from dsh_conformance.schedule.session_logs import flushes_of

pytestmark = [pytest.mark.dsh_requires("schedule")]


# The owner rechecks on an idle transition only when the log holds a
# schedule/change event; a session that never used Schedule is left alone.
@pytest.mark.compat("SCH-IDLE-TRIGGER")
@pytest.mark.spec("SCH-085", "SCH-034")
def test_an_idle_transition_flushes_only_a_log_that_holds_a_schedule_change(host, agent):
    host.run_until_idle()
    before = len(flushes_of(host, agent.session_id))
    agent.prompt("hello")
    host.run_until_idle()
    flushes = flushes_of(host, agent.session_id)[before:]
    assert flushes == [], pinned(
        "SCH-IDLE-TRIGGER", "no flush when an agent whose log holds no schedule/change "
        "event goes idle", flushes)
    created = agent.call_tool("schedule_create", {"prompt": "Later", "after_seconds": 86_400})
    assert isinstance(created.value, dict) and not closed_codes_in(created.value), readme(
        "SCH-034", "a reminder a day ahead to be created", created)
    host.run_until_idle()
    before = len(flushes_of(host, agent.session_id))
    agent.prompt("hello again")
    host.run_until_idle()
    flushes = flushes_of(host, agent.session_id)[before:]
    assert len(flushes) == 1, pinned(
        "SCH-IDLE-TRIGGER", "one recompute flush when the agent goes idle once its log holds "
        "a schedule/change event", flushes)

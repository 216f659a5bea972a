"""README section "Composition": the live owner under host faults that strike outside any
tool call.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned
from dsh_conformance.schedule.session_logs import flushes_of

pytestmark = [pytest.mark.dsh_requires("schedule")]


TOOLS = ["schedule_create", "schedule_list", "schedule_delete"]


@pytest.mark.compat("SCH-OWNER-START-FAILURE")
@pytest.mark.spec("SCH-006")
def test_an_owner_that_could_not_start_is_a_warning_not_a_veto(host):
    warned = len(host.warnings)
    host.faults.fail_background_starts()
    agent = host.create_agent()
    assert (agent.is_live, agent.tool_names()) == (True, TOOLS), pinned(
        "SCH-OWNER-START-FAILURE", "the agent published with its three tools although its "
        "owner could not start", (agent.is_live, agent.tool_names()))
    assert flushes_of(host, agent.session_id) == [], pinned(
        "SCH-OWNER-START-FAILURE", "no preflight flush from an owner that never started",
        flushes_of(host, agent.session_id))
    new = host.warnings[warned:]
    assert len(new) == 1 and agent.id in new[0], pinned(
        "SCH-OWNER-START-FAILURE", f"one host warning naming the agent {agent.id!r}", new)
    assert host.errors == [], pinned(
        "SCH-OWNER-START-FAILURE", "a warning, not a host error", host.errors)

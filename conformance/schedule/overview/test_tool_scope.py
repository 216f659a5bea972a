"""README sections "Management tools" and the preamble: the three tools belong to
one live root agent's session, and the generated catalog owns their output
schemas.

README sentences: dsh-schedule gives live root agents Session-scoped tools
(SCH-001), so a call that reaches one agent's tool on behalf of another agent
writes nothing into the other agent's session; the catalog owns each tool's
output schema (SCH-031), which the live agent exposes while the tool is
registered. ``call_tool_as`` makes the call's agent another one;
``tool_output_schemas`` is the live agent's view (docs/fake-host.md).
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.layout_free import schedule_changes

pytestmark = [pytest.mark.dsh_requires("schedule")]

AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}


@pytest.mark.spec("SCH-001", "SCH-003")
@pytest.mark.parametrize(("tool", "arguments"), [
    ("schedule_create", AFTER_60),
    ("schedule_delete", {"id": "schedule-1"}),
], ids=["create", "delete"])
def test_a_call_on_behalf_of_another_agent_writes_nothing_into_its_session(
    host, agent, tool, arguments
):
    other = host.create_agent()
    agent.call_tool_as(other, tool, arguments)
    host.advance(120)
    assert schedule_changes(other.events()) == [], readme(
        "SCH-001", f"{tool} of one root's session to write nothing into another agent's "
        "session", schedule_changes(other.events()))

"""README section "Management tools": which agents the three tools belong to.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme

pytestmark = [pytest.mark.dsh_requires("schedule")]


TOOLS = ["schedule_create", "schedule_list", "schedule_delete"]


@pytest.mark.spec("SCH-031")
def test_the_live_agent_exposes_an_output_schema_for_each_tool(host, agent):
    schemas = agent.tool_output_schemas()
    assert sorted(name for name in schemas if name in TOOLS) == sorted(TOOLS), readme(
        "SCH-031", "the three tools to be registered on the live agent", schemas)
    missing = [name for name in TOOLS if not schemas[name]]
    assert missing == [], readme(
        "SCH-031", "the generated catalog to declare an output schema for every tool", schemas)
    registered = {r.name: r.output_schema for r in host.tool_registrations(agent.session_id)
                  if r.name in TOOLS and r.state == "active"}
    assert registered == {name: schemas[name] for name in TOOLS}, readme(
        "SCH-031", "the live output schemas to be the ones the catalog registered",
        (registered, schemas))

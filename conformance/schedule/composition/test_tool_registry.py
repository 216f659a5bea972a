"""README section "Composition": the plugin registers its tools through the
exact ``agent.ctx``. The host's registry is read through
``host.tool_registrations(session_id)`` (every registration, refused and
removed ones included); ``host.preregister_tool(name)`` makes a tool name
already taken on later agents, so a registration of the plugin collides."""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned, readme
from pytest_dsh import AgentVetoedError

pytestmark = [pytest.mark.dsh_requires("schedule")]

TOOLS = ["schedule_create", "schedule_list", "schedule_delete"]


def plugin_registrations(host, session_id: str) -> list[tuple[str, str]]:
    return [
        (r.name, r.state) for r in host.tool_registrations(session_id) if not r.host_tool
    ]


@pytest.mark.spec("SCH-006", "SCH-031")
def test_a_root_registers_each_tool_once_with_its_output_schema(host):
    agent = host.create_agent()
    registrations = [r for r in host.tool_registrations(agent.session_id) if not r.host_tool]
    assert sorted(r.name for r in registrations) == sorted(TOOLS), readme(
        "SCH-006", "one registration of each of the three tools on the root", registrations)
    assert all(r.state == "active" for r in registrations), readme(
        "SCH-006", "the three registrations to be live while the agent is", registrations)
    assert all(r.output_schema for r in registrations), readme(
        "SCH-031", "the catalog to declare an output schema for every tool",
        [(r.name, r.output_schema) for r in registrations])


@pytest.mark.spec("SCH-006")
def test_a_collision_on_one_agent_leaves_other_agents_tools_alone(host):
    before = host.create_agent(session_id="before")
    host.preregister_tool("schedule_list")
    with pytest.raises(AgentVetoedError):
        host.create_agent(session_id="collides")
    # The README names the three tools but not their registration order (SCH-TOOL-ORDER).
    assert sorted(plugin_registrations(host, "before")) == sorted(
        (name, "active") for name in TOOLS
    ), readme(
        "SCH-006", "tools registered through one agent's context to stay registered when "
        "another agent's registration fails", plugin_registrations(host, "before"))
    assert before.call_tool("schedule_list", {}).value == [], readme(
        "SCH-006", "the earlier agent's tools to keep working", before.tool_names())


@pytest.mark.spec("SCH-006")
@pytest.mark.compat("SCH-REGISTRATION-ROLLBACK")
@pytest.mark.parametrize("taken", TOOLS)
def test_a_colliding_registration_rolls_back_the_tools_already_registered(host, taken):
    host.preregister_tool(taken)
    with pytest.raises(AgentVetoedError):
        host.create_agent(session_id="s")
    observed = plugin_registrations(host, "s")
    index = TOOLS.index(taken)
    expected = [(name, "disposed") for name in TOOLS[:index]] + [(taken, "refused")]
    assert observed == expected, pinned(
        "SCH-REGISTRATION-ROLLBACK",
        f"a registration refused because {taken!r} is taken to dispose the tools registered "
        f"before it, register nothing after it, and veto the agent: {expected}",
        observed,
    )


@pytest.mark.spec("SCH-006", "SCH-058")
@pytest.mark.compat("SCH-REGISTRATION-ROLLBACK")
@pytest.mark.parametrize("how", ["agent", "plugin"])
def test_disposal_unregisters_every_tool_through_its_disposer(host, how):
    agent = host.create_agent(session_id="s")
    if how == "agent":
        agent.dispose()
    else:
        host.unload_plugin("schedule")
    observed = plugin_registrations(host, "s")
    assert observed == [(name, "disposed") for name in TOOLS], pinned(
        "SCH-REGISTRATION-ROLLBACK",
        f"{how} disposal to call the disposer of each of the three registrations", observed)

"""What the schedule package shows beyond its tools' schemas: the module a
Cordis loader imports, and what the tool registry holds of each tool besides
its schemas (how a pending call is presented, and whether it may run beside
its siblings). These express the official build's runtime tests PG-01 and
TL-01 (docs/official-runtime-tests.md).

README: load this function plugin after ctx.sessions, ctx.agents, ctx.tools,
ctx.sessionPersistence (SCH-004); static injection makes a missing
persistence service a composition error (SCH-005). The exact exports and the
pending-call cards are pinned to the official build (SCH-EXPORT-SHAPE,
SCH-TOOL-PRESENTATION).
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned, readme
from pytest_dsh.driving.seams import require_seam
from pytest_dsh.driving.tool_outcomes import ToolCallDescription

pytestmark = [pytest.mark.dsh_requires("schedule")]

README_SERVICES = {"sessions", "agents", "tools", "sessionPersistence"}


# -- PG-01: the module's export shape ------------------------------------------------------


@pytest.mark.spec("SCH-004", "SCH-005")
def test_the_package_is_a_function_plugin_injecting_the_readme_services(dsh_host):
    require_seam(dsh_host, "export-shape")
    shape = dsh_host.export_shape("schedule")
    assert shape.form in ("named-apply", "default-object"), readme(
        "SCH-004", "the package main to export a Cordis function plugin (an object with "
        "apply), not a class", shape)
    assert set(shape.inject) >= README_SERVICES, readme(
        "SCH-005", f"static injection of {sorted(README_SERVICES)}", shape.inject)


@pytest.mark.compat("SCH-EXPORT-SHAPE")
@pytest.mark.spec("SCH-004")
def test_the_package_exports_match_the_official_build(dsh_host):
    require_seam(dsh_host, "export-shape")
    main = dsh_host.export_shape("schedule")
    assert (main.form, main.name, main.inject, main.has_config) == (
        "named-apply", "schedule", ("agents", "sessions", "tools", "sessionPersistence"), False
    ), pinned("SCH-EXPORT-SHAPE", "named apply, name and inject, no Config", main)
    assert "default" not in main.exports, pinned(
        "SCH-EXPORT-SHAPE", "no default export", main.exports)
    companion = dsh_host.export_shape("schedule-invariant")
    assert (companion.form, companion.name, companion.inject) == (
        "named-apply", "tool-schedule-invariant", ("invariants",)
    ), pinned("SCH-EXPORT-SHAPE", "the ./invariant companion's apply, name and inject",
              companion)


# -- TL-01: what the registry holds of each tool -------------------------------------------


CALLS = {
    "schedule_create": (
        {"prompt": "  Call Bob ", "after_seconds": 60},
        {"card": "generic", "title": "Create reminder", "kind": "other", "rawInput": "  Call Bob "},
    ),
    "schedule_list": ({}, {"card": "generic", "title": "List reminders", "kind": "read"}),
    "schedule_delete": (
        {"id": "schedule-7"},
        {"card": "generic", "title": "Delete reminder", "kind": "other", "rawInput": "schedule-7"},
    ),
}


@pytest.mark.compat("SCH-TOOL-PRESENTATION")
@pytest.mark.spec("SCH-006")
@pytest.mark.parametrize("tool", list(CALLS))
def test_each_tool_runs_exclusive_and_presents_its_pending_call(dsh_host, tool):
    dsh_host.load_plugin("schedule")
    agent = dsh_host.create_agent()
    arguments, card = CALLS[tool]
    described = agent.describe_tool_call(tool, arguments)
    assert described == ToolCallDescription("exclusive", card), pinned(
        "SCH-TOOL-PRESENTATION", f"{tool} to run exclusive and present {card}", described)
    assert agent.events() == [] or all(
        event["type"] != "schedule/change" for event in agent.events()
    ), pinned("SCH-TOOL-PRESENTATION", "describing a call runs nothing", agent.events())

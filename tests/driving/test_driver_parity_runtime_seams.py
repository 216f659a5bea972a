"""The seams the official build's runtime tests need, on both hosts (every test
runs twice, see ``conftest.py``):

* ``act_inside`` actions that dispose the agent (``DisposeAgent``) or start a
  fault window (``PlanFault``) inside a claim, a refused claim or a follow-up;
* an agent held busy with no task running (``hold_busy``);
* what the registry makes of a pending call (``describe_tool_call``);
* the plugin module's export shape (``export_shape``, bridge only);
* tool arguments JSON cannot carry unchanged (``-0.0``, ``NaN``), refused alike;
* a held follow-up, seen the same way on both hosts (``queued_followups``).

These pin the kit's own driver contract (docs/fake-host.md), not a README.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from pytest_dsh.contract import MaintenanceRejectedError
from pytest_dsh.driving.agent_actions import DisposeAgent, PlanFault
from pytest_dsh.driving.api import AgentDriver, HostDriver
from pytest_dsh.driving.replies import reply_text
from pytest_dsh.driving.tool_outcomes import ToolCallDescription

AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}
NOT_LOSSLESS = "tool execution arguments must be losslessly JSON-serializable"
#: The host's own event types (the official host logs its inbox and request
#: events); a parity check compares the rest.
HOST_OWN_PREFIXES = ("agent/", "request/", "assistant/chunk")


def schedule_agent(host: HostDriver) -> AgentDriver:
    host.load_plugin("schedule")
    return host.create_agent()


def dispatches(agent: AgentDriver) -> list[Any]:
    return [
        e["data"]["id"] for e in agent.events()
        if e["type"] == "schedule/change" and e["data"].get("operation") == "dispatch"
    ]


def types(agent: AgentDriver) -> list[str]:
    return [e["type"] for e in agent.events()]


def common_events(agent: AgentDriver) -> list[tuple[str, Any]]:
    return [
        (e["type"], e["data"]) for e in agent.events()
        if not e["type"].startswith(HOST_OWN_PREFIXES) and e["type"] != "user/message"
    ]


# -- DisposeAgent -------------------------------------------------------------------------


def test_a_disposal_started_inside_the_claim_ends_once_the_task_settles(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    agent.act_inside("claim", DisposeAgent())
    host.advance(60)
    disposal = agent.start_dispose()  # the disposal the action started
    assert disposal.done is True and agent.is_live is False
    assert dispatches(agent) == ["schedule-1"]  # the task in progress ran to its end
    assert "turn/start" not in types(agent)  # a disposing agent opens no turn
    assert agent.counters().pending_followups == 1


def test_a_disposal_started_inside_a_refused_claim_waits_for_the_holder(host):
    agent = host.create_agent()
    hold = agent.hold_maintenance()
    agent.act_inside("refused-claim", DisposeAgent())
    with pytest.raises(MaintenanceRejectedError):
        agent.hold_maintenance()
    disposal = agent.start_dispose()
    assert disposal.done is False and agent.is_live is True
    hold.release()
    assert disposal.done is True and agent.is_live is False


def test_a_follow_up_parked_behind_the_claim_opens_no_turn_once_disposal_began(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    agent.act_inside("followup", DisposeAgent())  # the owner's own follow-up
    host.advance(60)
    assert agent.start_dispose().done is True and agent.is_live is False
    assert dispatches(agent) == ["schedule-1"]
    assert "turn/start" not in types(agent)
    assert agent.queued_followups() == [] or agent.counters().pending_followups == 1


def test_a_follow_up_to_an_idle_agent_being_disposed_still_opens_its_turn(host):
    agent = host.create_agent()
    agent.act_inside("followup", DisposeAgent())
    agent.prompt("hello")
    assert agent.start_dispose().done is True and agent.is_live is False
    ends = [e["data"]["reason"]["kind"] for e in agent.events() if e["type"] == "turn/end"]
    assert ends == ["completed"]  # woken after the disposal began: not aborted


def test_a_disposal_aborts_a_running_turn_and_waits_for_it_to_end(host):
    agent = host.create_agent()
    agent.script(reply_text("a long answer", thinking_s=600))
    agent.prompt("go")
    disposal = agent.start_dispose()
    assert disposal.done is False and agent.is_live is True
    host.advance(600)
    assert disposal.done is True and agent.is_live is False
    ends = [e["data"]["reason"]["kind"] for e in agent.events() if e["type"] == "turn/end"]
    assert ends == ["aborted"]
    assert "assistant/message" not in types(agent)


# -- PlanFault ------------------------------------------------------------------------------


def test_a_planned_fault_counts_nothing_until_its_action_runs(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    agent.act_inside("claim", PlanFault("events", count=None))
    (window,) = host.faults.snapshot()
    assert (window["kind"], window["dormant"], window["seen"]) == ("events", True, 0)
    listed = agent.call_tool("schedule_list", {}).value  # reads the log: not faulted yet
    assert [record["id"] for record in listed] == ["schedule-1"]
    host.advance(60)
    (window,) = host.faults.snapshot()
    assert window["dormant"] is False and window["seen"] >= 1
    assert dispatches(agent) == []  # the claim's refold could not read the log


def test_a_flush_fault_planned_inside_the_claim_hits_the_barrier(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    agent.act_inside("claim", PlanFault("flush", outcome="falsy"))
    before = len(host.flushes)
    host.advance(60)
    outcomes = [record.outcome for record in host.flushes[before:]]
    assert outcomes[:2] == ["durable", "falsy"]  # the preflight, then the barrier
    assert dispatches(agent) == ["schedule-1"]


def test_a_plan_fault_names_a_known_kind():
    with pytest.raises(ValueError, match="unknown fault kind"):
        from pytest_dsh.driving.faults import FaultPlan

        FaultPlan().plan_dormant(PlanFault("disk"))  # type: ignore[arg-type]


# -- an agent busy with no task ------------------------------------------------------------


def test_a_busy_agent_refuses_claims_as_busy(host):
    agent = host.create_agent()
    host.start_trace()
    busy = agent.hold_busy()
    with pytest.raises(MaintenanceRejectedError):
        agent.hold_maintenance()
    assert agent.counters().maintenance_refusals == 1
    assert [(e.kind, e.detail) for e in host.trace() if e.kind.startswith("claim")] == [
        ("claim-refused", "busy")
    ]
    busy.release()
    agent.hold_maintenance().release()
    assert agent.counters().maintenance_claims == 1


def test_a_busy_agent_opens_no_turn_until_released(host):
    agent = host.create_agent()
    busy = agent.hold_busy()
    agent.prompt("hello")
    assert "turn/start" not in types(agent)
    assert agent.queued_followups() == ["hello"]
    busy.release()
    assert busy.released is True
    assert types(agent).count("turn/start") == 1


def test_the_owner_waits_for_a_busy_agent_and_drives_once_released(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    busy = agent.hold_busy()
    host.advance(60)
    assert dispatches(agent) == [] and agent.counters().when_idle_calls == 1
    busy.release()
    assert dispatches(agent) == ["schedule-1"]


def test_disposing_a_busy_agent_waits_for_no_task(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    agent.hold_busy()
    host.advance(60)  # the owner waits for idle
    disposal = agent.start_dispose()
    assert disposal.done is True and agent.is_live is False
    assert dispatches(agent) == []


# -- what the registry makes of a pending call ----------------------------------------------


def test_each_schedule_tool_describes_its_pending_call(host):
    agent = schedule_agent(host)
    assert agent.describe_tool_call("schedule_create", {"prompt": " Tea ", "after_seconds": 5}) == (
        ToolCallDescription(
            "exclusive",
            {"card": "generic", "title": "Create reminder", "kind": "other", "rawInput": " Tea "},
        )
    )
    assert agent.describe_tool_call("schedule_list", {}) == ToolCallDescription(
        "exclusive", {"card": "generic", "title": "List reminders", "kind": "read"}
    )
    assert agent.describe_tool_call("schedule_delete", {"id": "schedule-9"}).card == {
        "card": "generic", "title": "Delete reminder", "kind": "other", "rawInput": "schedule-9"
    }


def test_describing_an_unregistered_tool_is_a_key_error(host):
    agent = host.create_agent()
    with pytest.raises(KeyError):
        agent.describe_tool_call("schedule_list", {})


# -- the module's export shape --------------------------------------------------------------


def test_the_export_shape_seam_is_the_bridges(host):
    if host.supports("export-shape"):
        shape = host.export_shape("schedule")
        assert (shape.form, shape.name) == ("named-apply", "schedule")
        assert "apply" in shape.exports
    else:
        assert "PluginFactory" in host.unsupported_reason("export-shape")
        with pytest.raises(NotImplementedError):
            host.export_shape("schedule")


# -- arguments JSON cannot carry unchanged ---------------------------------------------------


@pytest.mark.parametrize("value", [-0.0, math.nan, math.inf], ids=["negative-zero", "nan", "inf"])
def test_arguments_that_are_not_lossless_json_are_refused_by_the_host(host, value):
    agent = schedule_agent(host)
    other = host.create_agent()
    for outcome in (
        agent.call_tool("schedule_list", {"nested": [{"x": value}]}),
        agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": value}),
        agent.call_tool("schedule_list", {"x": value}, aborted=True),
        agent.call_tool_as(other, "schedule_list", {"x": value}),
    ):
        assert (outcome.is_error, outcome.error) == (True, NOT_LOSSLESS)
    assert agent.call_tool("schedule_list", {"x": 0.0}).is_error is False


# -- a held follow-up ------------------------------------------------------------------------


def test_a_held_follow_up_is_seen_alike_while_it_is_held(host):
    agent = host.create_agent()
    agent.hold_turns()
    agent.prompt("hello")
    assert agent.queued_followups() == ["hello"]
    assert agent.history() == [] and common_events(agent) == []
    assert agent.counters().pending_followups == 1
    agent.release_turns()
    assert agent.queued_followups() == []
    assert [e["type"] for e in agent.history()] == ["user/message", "assistant/message"]

"""The fault plan's ``planned`` flag: hosts skip their fault checks while it is
false, so it must follow the plan exactly, and a fault planned after a session,
a clock or an agent exists must still strike them."""

from __future__ import annotations

from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from pytest_dsh.driving.agent_actions import PlanFault
from pytest_dsh.driving.faults import FaultPlan

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z
AFTER_60 = {"prompt": "p", "after_seconds": 60}


def test_the_flag_follows_planning_clearing_and_forgetting() -> None:
    plan = FaultPlan()
    assert not plan.planned
    first = plan.fail_flushes("falsy")
    second = plan.fail_clock_reads()
    assert plan.planned
    first.clear()
    assert plan.planned, "one fault is still planned"
    second.clear()
    assert not plan.planned
    plan.fail_appends()
    plan.clear()
    assert not plan.planned


def test_a_dormant_fault_counts_as_planned() -> None:
    plan = FaultPlan()
    plan.plan_dormant(PlanFault("flush", outcome="falsy"))
    assert plan.planned


def test_faults_planned_after_the_agent_exists_still_strike_it() -> None:
    host = REFERENCE.open_host(start_ms=START_MS)
    try:
        host.load_plugin("schedule")
        agent = host.create_agent()
        assert agent.call_tool("schedule_create", AFTER_60).value["id"] == "schedule-1"
        assert not host.faults.planned
        host.faults.fail_event_reads()
        value = agent.call_tool("schedule_create", AFTER_60).value
        assert value["code"] == "internal_error", value
        host.faults.fail_clock_reads()
        assert agent.call_tool("schedule_create", AFTER_60).value["code"] == "internal_error"
        host.faults.fail_flushes("falsy")
        value = agent.call_tool("schedule_create", AFTER_60).value
        assert value["code"] == "persistence_uncertain", value
        before = len(agent.events())
        host.faults.fail_appends(event_type="schedule/change")
        assert agent.call_tool("schedule_create", AFTER_60).value["code"] == "internal_error"
        assert all(e["type"] != "schedule/change" for e in agent.events()[before:])
        host.faults.clear()
        assert not host.faults.planned
        assert agent.call_tool("schedule_create", AFTER_60).value["id"] == "schedule-2"
    finally:
        host.close()

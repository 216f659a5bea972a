"""Seams for the moments a plugin cannot be reached by an ordinary driver call,
on both hosts (every test runs twice, see ``conftest.py``):

* test actions run inside a granted claim, a refused claim and ``followup``;
* a pending ``when_idle()`` rejected; an idle report while the agent is busy;
* plugin clock reads that return a chosen value; one planned fault cleared;
* follow-ups held back from opening a turn; a tool called with another agent;
* refused claims and ``when_idle`` calls in the counters and the trace.

These pin the kit's own driver contract (docs/fake-host.md), not a README.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_dsh.contract import MaintenanceRejectedError
from pytest_dsh.driving.agent_actions import AppendEvent, Prompt, SetWallClock
from pytest_dsh.driving.api import AgentDriver, HostDriver

START_MS = 1_767_225_600_000
AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}


def types(agent: AgentDriver) -> list[str]:
    return [event["type"] for event in agent.events()]


def notes(agent: AgentDriver) -> list[Any]:
    return [e["data"] for e in agent.events() if e["type"] == "note/test"]


def schedule_agent(host: HostDriver) -> AgentDriver:
    host.load_plugin("schedule")
    return host.create_agent()


def kinds(host: HostDriver, *wanted: str) -> list[tuple[str, str]]:
    return [(e.kind, e.detail) for e in host.trace() if e.kind in wanted]


# -- refused claims and when_idle in the counters and the trace -------------------------


def test_a_busy_refusal_is_counted_and_traced(host):
    agent = host.create_agent()
    host.start_trace()
    hold = agent.hold_maintenance()
    with pytest.raises(MaintenanceRejectedError):
        agent.hold_maintenance()
    hold.release()
    counters = agent.counters()
    assert (counters.maintenance_claims, counters.maintenance_refusals) == (1, 1)
    assert kinds(host, "claim", "claim-refused", "release") == [
        ("claim", ""), ("claim-refused", "busy"), ("release", "")
    ]


def test_a_planned_refusal_is_counted_and_traced(host):
    agent = host.create_agent()
    host.start_trace()
    host.faults.fail_maintenance()
    agent.hold_maintenance()
    assert agent.counters().maintenance_refusals == 1
    assert kinds(host, "claim", "claim-refused") == [("claim-refused", "fault")]


def test_the_owner_waits_for_idle_after_a_busy_refusal(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    hold = agent.hold_maintenance()
    host.start_trace()
    host.advance(60)
    entries = [e.kind for e in host.trace() if e.kind in ("claim-refused", "when-idle")]
    assert entries == ["claim-refused", "when-idle"]
    counters = agent.counters()
    assert counters.maintenance_refusals == 1 and counters.when_idle_calls >= 1
    hold.release()


# -- rejecting a pending when_idle --------------------------------------------------------


def test_a_pending_when_idle_is_rejected_once(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    hold = agent.hold_maintenance()
    host.advance(60)  # the owner, refused, waits for idle
    assert agent.reject_when_idle() == 1
    assert agent.reject_when_idle() == 0
    hold.release()
    assert agent.is_live is True


def test_rejecting_with_no_pending_wait_rejects_nothing(host):
    agent = host.create_agent()
    assert agent.reject_when_idle("nobody waits") == 0


# -- an idle report while busy ---------------------------------------------------------------


def test_an_idle_report_while_a_claim_is_held_wakes_the_owner(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)  # the owner waits on its timer
    hold = agent.hold_maintenance()
    host.start_trace()
    agent.emit_idle_status()  # the agent is still busy: a stale report
    assert agent.status == "idle"  # a held claim is idle in status, as ever
    # The owner acted on the report (a drive starts with its preflight flush)
    # and, nothing being due, armed its timer again.
    assert kinds(host, "flush", "timer-arm")[:1] == [("flush", "durable")]
    assert "timer-arm" in [e.kind for e in host.trace()]
    hold.release()


def test_an_idle_report_with_no_listener_changes_nothing(host):
    agent = host.create_agent()
    agent.emit_idle_status()
    assert agent.events() == [] and agent.status == "idle"


# -- actions inside a claim, a refused claim and a follow-up ------------------------------


def test_a_prompt_inside_the_owners_claim_waits_for_its_release(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    agent.act_inside("claim", Prompt("inside"), AppendEvent("note/test", {"at": "claim"}))
    host.start_trace()
    host.advance(60)
    entries = [
        (e.kind, e.detail) for e in host.trace()
        if e.kind in ("claim", "followup", "release", "dispatch")
        or (e.kind == "append" and e.detail == "note/test")
    ]
    assert entries[:4] == [
        ("claim", ""), ("followup", ""), ("append", "note/test"), ("followup", "")
    ]
    assert ("release", "") in entries
    assert notes(agent) == [{"at": "claim"}]
    assert types(agent).count("turn/start") == 2  # the prompt's and the reminder's


def test_actions_inside_a_refused_claim_run_before_the_refusal(host):
    agent = host.create_agent()
    hold = agent.hold_maintenance()
    agent.act_inside("refused-claim", AppendEvent("note/test", {"at": "refused"}))
    with pytest.raises(MaintenanceRejectedError):
        agent.hold_maintenance()
    assert notes(agent) == [{"at": "refused"}]
    hold.release()
    with pytest.raises(MaintenanceRejectedError):
        hold2 = agent.hold_maintenance()
        agent.hold_maintenance()  # nothing armed any more
    hold2.release()
    assert notes(agent) == [{"at": "refused"}]


def test_a_wall_clock_step_inside_a_follow_up_stamps_what_follows(host):
    agent = host.create_agent()
    agent.act_inside("followup", SetWallClock(START_MS + 5_000))
    agent.prompt("hello")
    assert host.now_ms == START_MS + 5_000
    later = agent.append_event("note/test", {})
    assert later["time"] == START_MS + 5_000


def test_an_unknown_action_point_is_refused(host):
    agent = host.create_agent()
    with pytest.raises(ValueError, match="unknown action point"):
        agent.act_inside("dispatch", Prompt("x"))  # type: ignore[arg-type]


# -- chosen clock readings and clearing one fault ------------------------------------------------


def test_a_faked_clock_reading_is_what_the_plugin_sees(host):
    agent = schedule_agent(host)
    host.faults.fake_clock_reads(START_MS + 3_600_000, count=None)
    value = agent.call_tool("schedule_create", AFTER_60).value
    assert value["scheduledAt"] == "2026-01-01T01:01:00.000Z"
    assert host.now_ms == START_MS  # the host's clock never moved
    event = agent.append_event("note/test", {})
    assert event["time"] == START_MS


def test_a_failing_clock_window_wins_over_a_faked_reading(host):
    agent = schedule_agent(host)
    host.faults.fake_clock_reads(START_MS + 3_600_000, count=None)
    host.faults.fail_clock_reads(count=None)
    assert agent.call_tool("schedule_create", AFTER_60).value["code"] == "internal_error"


def test_clearing_one_fault_keeps_the_others(host):
    agent = schedule_agent(host)
    clock = host.faults.fail_clock_reads(count=None)
    host.faults.fail_appends(event_type="note/test", count=None)
    assert agent.call_tool("schedule_create", AFTER_60).value["code"] == "internal_error"
    assert clock.seen >= 1
    clock.clear()
    assert agent.call_tool("schedule_create", AFTER_60).value["id"] == "schedule-1"
    with pytest.raises(Exception, match="rejected by the fault plan"):
        agent.append_event("note/test", {})


# -- follow-ups that open no turn ------------------------------------------------------------------


def test_a_held_follow_up_stays_queued_and_the_agent_idle(host):
    agent = host.create_agent()
    agent.hold_turns()
    agent.prompt("hello")
    assert "turn/start" not in types(agent)
    assert agent.counters().pending_followups == 1
    assert agent.status == "idle"
    agent.release_turns()
    assert types(agent).count("turn/start") == 1
    assert agent.counters().pending_followups == 0


def test_a_reminder_delivered_while_turns_are_held_never_opens_a_turn(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    agent.hold_turns()
    host.advance(120)
    dispatched = [
        e for e in agent.events()
        if e["type"] == "schedule/change" and e["data"].get("operation") == "dispatch"
    ]
    assert len(dispatched) == 1
    assert "turn/start" not in types(agent)
    assert agent.counters().pending_followups == 1


# -- a tool called with another agent ------------------------------------------------------------


def test_a_schedule_tool_called_for_another_agent_changes_nothing(host):
    owner = schedule_agent(host)
    other = host.create_agent()
    outcome = owner.call_tool_as(other, "schedule_create", AFTER_60)
    assert outcome.is_error is False
    assert outcome.value == {"code": "internal_error", "message": "The schedule operation failed."}
    assert [e for e in owner.events() if e["type"] == "schedule/change"] == []
    assert [e for e in other.events() if e["type"] == "schedule/change"] == []


def test_a_tool_called_as_itself_works_as_a_direct_call(host):
    owner = schedule_agent(host)
    assert owner.call_tool_as(owner, "schedule_create", AFTER_60).value["id"] == "schedule-1"

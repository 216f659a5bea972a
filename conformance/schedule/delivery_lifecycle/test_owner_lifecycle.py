"""The live owner around a due reminder: a busy agent, the dispatch checkpoint, disposal.

README sentences: a refused idle-phase claim leaves the record active and the
owner retries after ``whenIdle()`` (SCH-047), so a reminder refused while a
maintenance task (not a turn) owns the agent is delivered once that task ends,
with no status change to announce it. After the maintenance task releases the
phase the owner checkpoints the dispatch (SCH-052) inside its due transaction,
which the agent's queue keeps whole from preflight through that barrier
(SCH-033): a create waiting in the queue checkpoints only after it (SCH-034).
A barrier rejection leaves the dispatch pending for a later
ordinary preflight (SCH-057), such as that waiting create's.
Disposal cancels the owner's timers and stops new work (SCH-058).
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.layout_free import closed_codes_in
from dsh_conformance.schedule.session_logs import reminder_messages
from dsh_conformance.schedule.written_logs import create, transition_events, transitions

pytestmark = [pytest.mark.dsh_requires("schedule")]

AFTER_60 = {"prompt": "Due", "after_seconds": 60}
CHANGE = "schedule/change"


def confirmed_id(value: object) -> str | None:
    """The id of a create value that confirms a record, else None."""
    schedule_id = value.get("id") if isinstance(value, dict) else None
    return schedule_id if isinstance(schedule_id, str) and not closed_codes_in(value) else None


# -- a busy agent ---------------------------------------------------------------------------


@pytest.mark.spec("SCH-047")
def test_a_reminder_refused_during_a_maintenance_task_is_delivered_after_when_idle(host, agent):
    record = create(agent, AFTER_60)
    hold = agent.hold_maintenance()  # busy in the idle phase: no turn, status stays idle
    waits_before = agent.counters().when_idle_calls
    host.advance(60)
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-047", "a reminder due while a maintenance task owns the agent to stay active",
        transition_events(agent.events(), [record]))
    assert agent.counters().when_idle_calls > waits_before, readme(
        "SCH-047", "the refused owner to wait through whenIdle()", agent.counters())
    hold.release()
    assert transitions(agent.events(), [record]) == [record.id], readme(
        "SCH-047", "the owner to retry once whenIdle() resolves and dispatch the reminder",
        transition_events(agent.events(), [record]))
    assert len(reminder_messages(agent.events())) == 1, readme(
        "SCH-047", "the retried reminder to reach the agent as one message",
        reminder_messages(agent.events()))


# -- the dispatch checkpoint ------------------------------------------------------------------


@pytest.mark.spec("SCH-033", "SCH-052", "SCH-057")
def test_a_create_queued_behind_a_due_transaction_survives_its_rejected_barrier(host, agent):
    due = create(agent, AFTER_60)
    host.faults.fail_flushes("hang")
    host.advance(60)  # the due preflight hangs, holding the queue
    waiting = agent.start_tool("schedule_create", {"prompt": "Next", "after_seconds": 3600})
    assert waiting.done is False, readme(
        "SCH-033", "a create started during the due preflight to wait in the queue", waiting.done)
    host.faults.reject_nth_flush(1)  # the next flush: the owner's dispatch checkpoint
    host.faults.release_hung_flush()
    sent = transitions(agent.events(), [due])
    assert sent[:1] == [due.id], readme(
        "SCH-052", "the released due transaction to dispatch the reminder",
        transition_events(agent.events(), [due]))
    value = waiting.result().value
    assert confirmed_id(value) is not None, readme(
        "SCH-033, SCH-057", "the rejected flush to be the due transaction's own barrier, so the "
        "queued create's preflight succeeds and it confirms", value)
    durable = transitions(host.durable_events(agent.session_id), [due])[:1]
    assert durable == [due.id], readme(
        "SCH-057", "the pending dispatch to become durable through the create's ordinary "
        "preflight", durable)


# -- disposal -------------------------------------------------------------------------------


@pytest.mark.spec("SCH-058")
@pytest.mark.parametrize("disposal", ["agent", "plugin"])
@pytest.mark.dsh_probe("disposal-cancels-the-timer", "Disposing an agent cancels its armed timer")
def test_disposal_cancels_the_armed_timer_and_arms_no_other(host, agent, disposal):
    host.start_trace()
    agent.call_tool("schedule_create", {"prompt": "Later", "after_seconds": 3600})
    armed = [t for t in host.trace() if t.kind == "timer-arm"]
    assert armed, readme(
        "SCH-058", "a pending reminder to keep a timer armed", host.trace())
    host.start_trace()
    if disposal == "agent":
        agent.dispose()
    else:
        host.unload_plugin("schedule")
    timers = [t.kind for t in host.trace() if t.kind.startswith("timer-")]
    assert "timer-cancel" in timers, readme(
        "SCH-058", f"{disposal} disposal to cancel the armed timer", timers)
    host.start_trace()
    host.advance(7200)
    timers = [t.kind for t in host.trace() if t.kind.startswith("timer-")]
    assert timers == [], readme(
        "SCH-058", f"no timer to be armed once the {disposal} is disposed", timers)
    assert len([e for e in agent.events() if e["type"] == CHANGE]) == 1, readme(
        "SCH-058", "a disposed owner to dispatch nothing (the create is the only change)",
        [e for e in agent.events() if e["type"] == CHANGE])

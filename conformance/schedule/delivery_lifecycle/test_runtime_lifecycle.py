"""The live owner's runtime at the moments no ordinary call reaches: inside its
claim, around a rejected idle wait, disposal during a long turn, the drive after
a dispatch, barriers that fail, and calls aborted in the queue.

README sentences (section "Delivery lifecycle" unless said): a successful
maintenance task refolds and samples one decision time (SCH-048), so what it
decides is what the log and the wall clock say inside the claim, not what the
preflight saw; the owner derives the earliest target from the fold (SCH-042)
and after release checkpoints the dispatch (SCH-052), so a later reminder is
delivered at its own target even while the first one's follow-up waits (one
later turn each, SCH-044). A rejected idle wait is a contained failure: a later
successful preflight makes the owner recompute (SCH-037, SCH-085). Disposal
awaits in-flight idle waits and so ends them (SCH-058), also while a turn owns
the agent. A failed post-append barrier is recovered by a later preflight,
never by a Schedule-specific retry timer (SCH-038, SCH-057, SCH-085). Aborted
calls are pinned (SCH-ABORT-ANSWER): no README sentence mentions them.

The moments inside a claim are reached with ``act_inside``; follow-ups that
open no turn with ``hold_turns``; a rejected ``when_idle()`` with
``reject_when_idle`` and a stale idle report with ``emit_idle_status``
(docs/fake-host.md, "Moments a test acts in").
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.layout_free import instant_ms
from dsh_conformance.schedule.session_logs import (
    START_MS,
    flushes_of,
    reminder_framings,
    reminder_messages,
    replace_scalar,
)
from dsh_conformance.schedule.tool_values import delete_succeeded
from dsh_conformance.schedule.written_logs import create, transition_events, transitions
from pytest_dsh import HostStuckError, reply_text
from pytest_dsh.driving.agent_actions import AppendEvent, SetWallClock

pytestmark = [pytest.mark.dsh_requires("schedule")]

AFTER_60 = {"prompt": "Due", "after_seconds": 60}
CHANGE = "schedule/change"
_OCCURRENCE = re.compile(r'(?:^occurrence_at: |"occurrence_at":")([^\n"]*)', re.M)


def occurrences(events: list[Any]) -> list[int | None]:
    """Every ``occurrence_at`` of every reminder framing, as epoch ms."""
    return [instant_ms(at) for text in reminder_framings(events)
            for at in _OCCURRENCE.findall(text)]


def delete_written_by_twin(host: Any, schedule_id: str) -> Any:
    """The payload a delete of ``schedule_id`` has in this implementation's own
    layout: another root agent creates and deletes a record, and its delete is
    made about ``schedule_id`` (the README's delete carries only the id)."""
    twin = host.create_agent()
    record = create(twin, {"prompt": "Twin", "after_seconds": 7200})
    value = twin.call_tool("schedule_delete", {"id": record.id}).value
    assert delete_succeeded(value), readme(
        "SCH-036", "the twin's delete of its active record to succeed", value)
    (deleted,) = [e["data"] for e in transition_events(twin.events(), [record])]
    return replace_scalar(deleted, record.id, schedule_id)


def session_flushes(host: Any, agent: Any) -> int:
    return len(flushes_of(host, agent.session_id))


# -- inside the claim: a fresh fold and a fresh clock sample (SCH-048) ----------------------


@pytest.mark.spec("SCH-048", "SCH-049")
def test_a_record_deleted_inside_the_claim_is_not_delivered(host, agent):
    record = create(agent, AFTER_60)
    deleted = delete_written_by_twin(host, record.id)
    agent.act_inside("claim", AppendEvent(CHANGE, deleted))
    host.advance(60)  # the due preflight saw the record; the claim's fold no longer has it
    assert reminder_messages(agent.events()) == [], readme(
        "SCH-048", "the maintenance task to refold and so deliver nothing for a record deleted "
        "after its preflight", reminder_messages(agent.events()))
    assert transitions(agent.events(), [record]) == [record.id], readme(
        "SCH-048, SCH-049", "no dispatch after the delete appended inside the claim",
        transition_events(agent.events(), [record]))
    host.advance(3600)
    assert reminder_messages(agent.events()) == [], readme(
        "SCH-048", "the deleted record never to be delivered later",
        reminder_messages(agent.events()))


@pytest.mark.spec("SCH-048", "SCH-043")
def test_a_clock_stepped_back_inside_the_claim_delivers_nothing_early(host, agent):
    record = create(agent, AFTER_60)
    agent.act_inside("claim", SetWallClock(START_MS + 30_000))
    host.advance(60)  # due at the preflight's sample, 30 s early at the claim's
    assert reminder_messages(agent.events()) == [], readme(
        "SCH-048, SCH-043", "the maintenance task to decide at its own clock sample, 30 s "
        "before the target, and deliver nothing", reminder_messages(agent.events()))
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-048", "no dispatch at a decision time before the target",
        transition_events(agent.events(), [record]))
    agent.call_tool("schedule_list", {})  # a successful preflight: the owner recomputes
    host.advance(30)
    assert transitions(agent.events(), [record]) == [record.id], readme(
        "SCH-042, SCH-048", "the record to be delivered once its target is reached",
        transition_events(agent.events(), [record]))
    assert [e["time"] for e in transition_events(agent.events(), [record])] == [
        START_MS + 60_000], readme(
        "SCH-043", "the dispatch at the target's wall time, not before",
        transition_events(agent.events(), [record]))


@pytest.mark.spec("SCH-048", "SCH-050")
def test_an_every_batch_takes_its_occurrence_at_the_claims_clock_sample(host, agent):
    record = create(agent, {"prompt": "Tick", "every_seconds": 600})
    first = instant_ms(record.value.get("scheduledAt"))
    assert first == START_MS + 600_000, readme(
        "SCH-050", "the first target one interval after creation", record.value)
    # The preflight decides at 00:10:00; the claim samples 00:40:01, where the latest
    # due occurrence is 00:40:00.
    agent.act_inside("claim", SetWallClock(START_MS + 2_401_000))
    host.advance(600)
    assert occurrences(agent.events()) == [START_MS + 2_400_000], readme(
        "SCH-048, SCH-050", "the batch's occurrence to be the latest due at the claim's "
        "decision time (00:40:00), not at the preflight's (00:10:00)",
        reminder_framings(agent.events()))


@pytest.mark.spec("SCH-043", "SCH-048")
def test_a_wake_decides_at_the_wall_clock_the_plugin_reads(host, agent):
    record = create(agent, AFTER_60)
    # Every wall-clock read of the plugin answers 00:00:30 (its clock stepped back).
    stuck = host.faults.fake_clock_reads(START_MS + 30_000, count=None)
    host.advance(120)
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-043, SCH-048", "the owner to reread the wall clock at every wake and, reading "
        "30 s before the target, deliver nothing", transition_events(agent.events(), [record]))
    stuck.clear()
    host.advance(60)  # the reads are true again: the next wake finds the record overdue
    assert transitions(agent.events(), [record]) == [record.id], readme(
        "SCH-043", "the record to be delivered at a wake that reads a time past its target",
        transition_events(agent.events(), [record]))


# -- the drive after a dispatch (SCH-042, SCH-044, SCH-052) -------------------------------


@pytest.mark.spec("SCH-042", "SCH-044", "SCH-052")
@pytest.mark.dsh_probe(
    "next-target-armed-after-dispatch", "After a dispatch the owner arms the next target itself"
)
def test_a_later_reminder_fires_while_the_first_follow_up_waits(host, agent):
    # Both targets hours away, both records created before any delivery: a probe.
    first = create(agent, {"prompt": "First", "after_seconds": 3600})
    second = create(agent, {"prompt": "Later", "after_seconds": 7200})
    records = [first, second]
    agent.hold_turns()  # the follow-up opens no turn: its turn's end cannot re-drive the owner
    host.advance(3600)
    assert transitions(agent.events(), records) == [first.id], readme(
        "SCH-044", "the first reminder to be dispatched at its target",
        transition_events(agent.events(), records))
    host.advance(3600)
    assert transitions(agent.events(), records) == [first.id, second.id], readme(
        "SCH-042, SCH-052", "the owner, after checkpointing the first dispatch, to derive the "
        "next target from the fold and deliver it at its own target with no other trigger",
        transition_events(agent.events(), records))
    agent.release_turns()
    starts = [e for e in agent.events() if e["type"] == "turn/start"]
    assert len(starts) == 2 and len(reminder_messages(agent.events())) == 2, readme(
        "SCH-044, SCH-053", "each reminder to open its own later turn once turns run",
        (starts, reminder_messages(agent.events())))


# -- a rejected idle wait (SCH-037, SCH-085) ---------------------------------------------


def _refused_and_rejected(host: Any, agent: Any) -> Any:
    record = create(agent, AFTER_60)
    hold = agent.hold_maintenance()
    host.advance(60)  # the claim is refused: the owner waits for idle
    assert agent.reject_when_idle() >= 1, readme(
        "SCH-047", "the owner refused while busy to wait through whenIdle()", agent.counters())
    hold.release()
    return record


@pytest.mark.spec("SCH-047", "SCH-085")
def test_after_a_rejected_idle_wait_a_busy_refusal_waits_for_idle_again(host, agent):
    record = _refused_and_rejected(host, agent)
    hold = agent.hold_maintenance()
    agent.call_tool("schedule_list", {})  # recompute: due, refused again, waits again
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-047", "no dispatch while the agent is busy",
        transition_events(agent.events(), [record]))
    hold.release()
    assert transitions(agent.events(), [record]) == [record.id], readme(
        "SCH-047, SCH-085", "the second refusal to wait through whenIdle() and deliver once "
        "idle", transition_events(agent.events(), [record]))


# -- disposal during a long turn (SCH-058) ---------------------------------------------------


# Plugin disposal: the host's own agent disposal may wait for the running turn (the
# official host does), which would hide whether the owner ended its idle wait.
@pytest.mark.spec("SCH-058")
def test_plugin_disposal_ends_an_idle_wait_while_a_long_turn_runs(host, agent):
    record = create(agent, AFTER_60)
    agent.script(reply_text("long answer", thinking_s=3600))
    agent.prompt("work")  # the turn runs for an hour
    host.advance(60)  # due: the claim is refused, the owner waits for idle
    assert agent.status == "running", readme(
        "SCH-058", "the scenario's turn to still run", agent.status)
    try:
        host.unload_plugin("schedule")
        ended = True
    except HostStuckError:
        ended = False
    assert ended, readme(
        "SCH-058", "plugin disposal to end the pending idle wait and finish while the turn "
        "still runs, not wait for the agent to become idle", agent.status)
    host.advance(3600)
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-058", "the ended idle wait to deliver nothing",
        transition_events(agent.events(), [record]))
    assert reminder_messages(agent.events()) == [], readme(
        "SCH-058", "no reminder after disposal", reminder_messages(agent.events()))


# -- failed post-append barriers start no retry timer (SCH-038, SCH-057, SCH-085) -----------


@pytest.mark.spec("SCH-057", "SCH-085")
def test_a_failed_dispatch_barrier_starts_no_retry_timer(host, agent):
    record = create(agent, AFTER_60)
    agent.hold_turns()  # no follow-up turn: its end would be activity
    host.faults.fail_flushes("rejected", first=2)  # the due preflight passes, the barrier fails
    host.advance(60)
    assert transitions(agent.events(), [record]) == [record.id], readme(
        "SCH-057", "the dispatch to stay in the log when its barrier is rejected",
        transition_events(agent.events(), [record]))
    seen = session_flushes(host, agent)
    host.advance(24 * 3600)
    assert session_flushes(host, agent) == seen, readme(
        "SCH-057, SCH-085", "no private retry after the rejected dispatch barrier: no flush "
        "while nothing triggers the owner", flushes_of(host, agent.session_id)[seen:])
    agent.call_tool("schedule_list", {})
    durable = transitions(host.durable_events(agent.session_id), [record])
    assert durable == [record.id], readme(
        "SCH-057", "the pending dispatch to become durable through a later ordinary preflight",
        durable)

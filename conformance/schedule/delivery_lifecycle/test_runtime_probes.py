"""Probes of the live owner's runtime: it starts, claims, waits for idle, ends its
wait at disposal, recovers a failed dispatch barrier and delivers at resume.

Each isolates one behaviour of README section "Delivery lifecycle" so that a
runtime bug opens the report under its own name. Every target is an hour or
more away and no assertion reads a dispatch time, so a reminder that fires a
little early or late fails none of these; each reads only whether the reminder
was delivered, and once.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.session_logs import START_MS, flushes_of, reminder_messages
from dsh_conformance.schedule.written_logs import (
    create,
    log_written_by,
    transition_events,
    transitions,
)
from pytest_dsh import HostStuckError, reply_text
from pytest_dsh.driving.agent_actions import SetWallClock

pytestmark = [pytest.mark.dsh_requires("schedule")]

HOUR = {"prompt": "Hour", "after_seconds": 3600}
#: A delete of an id never issued: a successful preflight that changes nothing.
UNKNOWN = "never-issued"


def delivered(agent, record) -> tuple[list[str], int]:
    """(the record's dispatches, how many reminder messages the agent got)."""
    return transitions(agent.events(), [record]), len(reminder_messages(agent.events()))


@pytest.mark.spec("SCH-042")
@pytest.mark.dsh_probe(
    "owner-starts-with-the-agent", "A new root's owner delivers a seeded record unprompted"
)
def test_a_new_roots_owner_delivers_a_record_of_its_seeded_log(dsh_host_factory):
    # Written an hour before this host starts: due an hour after it starts.
    seed = log_written_by(dsh_host_factory, [{"prompt": "Seeded", "after_seconds": 7200}],
                          start_ms=START_MS - 3_600_000)
    host = dsh_host_factory()
    host.load_plugin("schedule")
    agent = host.create_agent(seed=seed)
    host.advance(7200)  # no tool call, no turn: only the owner started with the agent
    messages = reminder_messages(agent.events())
    assert len(messages) == 1, readme(
        "SCH-042", "the owner of a root created over a log holding a record to derive its "
        "target from the fold and deliver it once, with no other activity", messages)


@pytest.mark.spec("SCH-048")
@pytest.mark.dsh_probe(
    "claim-decides-at-its-own-clock", "The claimed task decides at its own wall-clock sample"
)
def test_the_claimed_task_decides_at_its_own_clock_sample(host, agent):
    record = create(agent, HOUR)
    agent.act_inside("claim", SetWallClock(START_MS + 1_800_000))  # half an hour early
    host.advance(3600)
    assert delivered(agent, record) == ([], 0), readme(
        "SCH-048", "the maintenance task to sample its own decision time, half an hour before "
        "the target, and deliver nothing", transition_events(agent.events(), [record]))


@pytest.mark.spec("SCH-047")
@pytest.mark.dsh_probe(
    "busy-owner-retries-when-idle", "A reminder refused while busy fires once the agent is idle"
)
def test_a_reminder_refused_while_busy_is_delivered_once_idle(host, agent):
    record = create(agent, HOUR)
    hold = agent.hold_maintenance()
    host.advance(3600)
    busy = delivered(agent, record)
    hold.release()
    assert (busy, delivered(agent, record)) == (([], 0), ([record.id], 1)), readme(
        "SCH-047", "no delivery while a maintenance task owns the agent, one once whenIdle() "
        "resolves", transition_events(agent.events(), [record]))


@pytest.mark.spec("SCH-058")
@pytest.mark.dsh_probe(
    "disposal-ends-an-idle-wait", "Plugin disposal ends a pending idle wait during a turn"
)
def test_plugin_disposal_ends_a_pending_idle_wait_during_a_turn(host, agent):
    record = create(agent, HOUR)
    agent.script(reply_text("long answer", thinking_s=7200))
    agent.prompt("work")
    host.advance(3600)  # due while the turn runs: the owner waits for idle
    try:
        host.unload_plugin("schedule")
        ended = True
    except HostStuckError:
        ended = False
    host.advance(3600)
    assert (ended, delivered(agent, record)) == (True, ([], 0)), readme(
        "SCH-058", "plugin disposal to end the idle wait while the turn runs and deliver nothing",
        (ended, transition_events(agent.events(), [record])))


@pytest.mark.spec("SCH-057", "SCH-085")
@pytest.mark.dsh_probe(
    "failed-dispatch-barrier-recovered", "A failed dispatch barrier waits for the next preflight"
)
def test_a_failed_dispatch_barrier_is_recovered_by_the_next_preflight_alone(host, agent):
    record = create(agent, HOUR)
    agent.hold_turns()  # no follow-up turn, whose end would be activity
    host.faults.fail_flushes("rejected", first=2)  # the due preflight passes, the barrier fails
    host.advance(3600)
    seen = len(flushes_of(host, agent.session_id))
    host.advance(3600)
    idle_flushes = len(flushes_of(host, agent.session_id)) - seen
    agent.call_tool("schedule_delete", {"id": UNKNOWN})
    durable = transitions(host.durable_events(agent.session_id), [record])
    agent.release_turns()  # the held follow-up's message enters the log with its turn
    assert (idle_flushes, durable, delivered(agent, record)) == (
        0, [record.id], ([record.id], 1)), readme(
        "SCH-057, SCH-085", "no retry flush while nothing triggers the owner, then the pending "
        "dispatch made durable by the delete's preflight, delivered once",
        (idle_flushes, durable, transition_events(agent.events(), [record])))

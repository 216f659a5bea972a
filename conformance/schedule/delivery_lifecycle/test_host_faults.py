"""The live owner under host faults that strike outside any tool call: its run
cannot be started, or its follow-up message cannot be built.

README: every successful management preflight asks the live owner to
recompute (SCH-037); framing or synchronous follow-up failure writes no
dispatch (SCH-056); a contained framing/enqueue failure leaves the record
active and starts no private retry timer, and later agent activity or a
successful Schedule preflight triggers recomputation (SCH-085). What the host
sees when the owner cannot start at all is left open and pinned to the
official build (SCH-OWNER-START-FAILURE).
"""

from __future__ import annotations

import json

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.session_logs import (
    one_shot_framing,
    reminder_framings,
)
from dsh_conformance.schedule.written_logs import Written, transition_events, transitions
from dsh_conformance.schedule.written_logs import create as create_record

pytestmark = [pytest.mark.dsh_requires("schedule")]

DAY_S = 24 * 3600


def reminder(schedule_id, occurrence_at, prompt):
    return one_shot_framing(json.dumps(schedule_id), occurrence_at, json.dumps(prompt))


def create(agent, prompt, after_seconds=60) -> Written:
    """Create a one-shot through schedule_create (the README does not fix the id's spelling)."""
    return create_record(agent, {"prompt": prompt, "after_seconds": after_seconds})


def states(agent) -> object:
    """``(id, state)`` of each listed record, or the list answer when it is no list."""
    listed = agent.call_tool("schedule_list", {}).value
    if not isinstance(listed, list):
        return listed
    return [(view.get("id"), view.get("state")) for view in listed]


# -- the follow-up message cannot be built -------------------------------------------------


@pytest.mark.spec("SCH-056", "SCH-085")
def test_a_follow_up_that_cannot_be_built_writes_no_dispatch_until_a_later_preflight(
    host, agent
):
    record = create(agent, "Stretch")
    schedule_id = record.id
    host.faults.fail_followup_messages()
    host.advance(60)
    host.advance(DAY_S)
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-056", "no dispatch when the reminder's follow-up message cannot be built",
        transition_events(agent.events(), [record]))
    assert reminder_framings(agent.events()) == [], readme(
        "SCH-056", "no reminder message when it cannot be built", reminder_framings(agent.events()))
    listed = states(agent)
    assert listed == [(schedule_id, "overdue")], readme(
        "SCH-085", "the record to stay active (listed overdue) after the framing failure",
        listed)
    expected = [reminder(schedule_id, "2026-01-01T00:01:00.000Z", "Stretch")]
    assert reminder_framings(agent.events()) == expected, readme(
        "SCH-085", "the successful list preflight to trigger recomputation and deliver the "
        "reminder once", reminder_framings(agent.events()))
    assert transitions(agent.events(), [record]) == [schedule_id], readme(
        "SCH-085", "one dispatch after the recomputation",
        transition_events(agent.events(), [record]))


@pytest.mark.spec("SCH-056", "SCH-057")
def test_a_follow_up_that_cannot_be_built_does_not_fault_the_owner(host, agent):
    first = create(agent, "First").id
    host.faults.fail_followup_messages()
    host.advance(60)
    agent.call_tool("schedule_delete", {"id": first})
    second = create(agent, "Second").id
    host.advance(60)
    expected = [reminder(second, "2026-01-01T00:02:00.000Z", "Second")]
    assert reminder_framings(agent.events()) == expected, readme(
        "SCH-056, SCH-057", "the owner to keep delivering later reminders on time after a "
        "framing failure (only an append failure faults it)", reminder_framings(agent.events()))

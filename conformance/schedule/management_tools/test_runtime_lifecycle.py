"""README section "Management tools": the live owner's runtime at the moments no ordinary
call reaches.

The helpers these tests share with
``schedule/delivery_lifecycle/test_runtime_lifecycle.py`` are defined there.
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.expect import pinned, readme
from dsh_conformance.layout_free import closed_codes_in, mentions, schedule_changes
from dsh_conformance.schedule.delivery_lifecycle.test_runtime_lifecycle import (
    AFTER_60,
    _refused_and_rejected,
    session_flushes,
)
from dsh_conformance.schedule.session_logs import flushes_of, reminder_messages
from dsh_conformance.schedule.written_logs import create, transition_events, transitions

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.spec("SCH-037", "SCH-085")
def test_a_rejected_idle_wait_leaves_the_owner_working_for_the_next_preflight(host, agent):
    record = _refused_and_rejected(host, agent)
    listed = agent.call_tool("schedule_list", {}).value
    assert [view.get("id") for view in listed] == [record.id], readme(
        "SCH-085", "the record to stay active after the rejected idle wait", listed)
    assert transitions(agent.events(), [record]) == [record.id], readme(
        "SCH-037, SCH-085", "the list's successful preflight to make the owner recompute and "
        "deliver the reminder", transition_events(agent.events(), [record]))
    later = create(agent, {"prompt": "Next", "after_seconds": 600})
    host.advance(600)
    assert transitions(agent.events(), [record, later]) == [record.id, later.id], readme(
        "SCH-037, SCH-085", "a reminder created after the rejected idle wait to be delivered "
        "at its target", transition_events(agent.events(), [record, later]))


@pytest.mark.spec("SCH-037", "SCH-085")
def test_a_stale_idle_report_during_a_claim_delivers_once(host, agent):
    record = create(agent, AFTER_60)
    hold = agent.hold_maintenance()
    host.advance(60)
    agent.emit_idle_status()  # reported idle while the held task still owns the agent
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-047", "no dispatch while the maintenance task owns the agent",
        transition_events(agent.events(), [record]))
    hold.release()
    host.advance(600)
    assert transitions(agent.events(), [record]) == [record.id], readme(
        "SCH-047, SCH-049", "one dispatch once the agent is idle",
        transition_events(agent.events(), [record]))
    assert len(reminder_messages(agent.events())) == 1, readme(
        "SCH-047", "the reminder to reach the agent once", reminder_messages(agent.events()))


@pytest.mark.spec("SCH-038", "SCH-085")
@pytest.mark.parametrize("tool", ["schedule_create", "schedule_delete"])
def test_a_failed_management_barrier_starts_no_retry_timer(host, agent, tool):
    kept = create(agent, {"prompt": "Kept", "after_seconds": 7200})
    host.faults.fail_flushes("rejected", first=2)  # the preflight passes, the barrier fails
    if tool == "schedule_create":
        value = agent.call_tool(tool, {"prompt": "Late", "after_seconds": 7200}).value
    else:
        value = agent.call_tool(tool, {"id": kept.id}).value
    assert closed_codes_in(value) == {"persistence_uncertain"}, readme(
        "SCH-013", "the failed barrier to answer persistence_uncertain", value)
    seen = session_flushes(host, agent)
    host.advance(3600)  # no target is reached: nothing triggers the owner
    assert session_flushes(host, agent) == seen, readme(
        "SCH-038, SCH-085", "no Schedule-specific persistence-retry timer after the failed "
        f"{tool} barrier: no flush while nothing triggers the owner",
        flushes_of(host, agent.session_id)[seen:])
    agent.call_tool("schedule_list", {})
    durable = schedule_changes(host.durable_events(agent.session_id))
    assert durable == schedule_changes(agent.events()), readme(
        "SCH-038", "a later ordinary preflight to make the retained change durable",
        (durable, schedule_changes(agent.events())))


@pytest.mark.spec("SCH-033")
def test_a_create_queued_behind_a_hung_preflight_starts_no_flush(host, agent):
    host.faults.fail_flushes("hang")  # the first create's preflight hangs
    first = agent.start_tool("schedule_create", {"prompt": "First", "after_seconds": 3600})
    second = agent.start_tool("schedule_create", {"prompt": "Second", "after_seconds": 3600})
    assert host.faults.hung_flushes == 1, readme(
        "SCH-033", "the queued create to start no flush while the first one's preflight hangs",
        host.faults.hung_flushes)
    host.faults.release_hung_flushes()
    assert (first.done, second.done) == (True, True), readme(
        "SCH-033", "both creates to finish once the preflight is released",
        (first.done, second.done))


@pytest.mark.compat("SCH-ABORT-ANSWER")
@pytest.mark.spec("SCH-033", "SCH-036")
def test_a_delete_aborted_during_its_preflight_appends_nothing(host, agent):
    record = create(agent, AFTER_60 | {"after_seconds": 3600})
    host.faults.fail_flushes("hang")
    call = agent.start_tool("schedule_delete", {"id": record.id})
    call.abort()
    host.faults.release_hung_flush()
    outcome = call.result()
    assert outcome.is_error is True or closed_codes_in(outcome.value), pinned(
        "SCH-ABORT-ANSWER", "a delete aborted during its preflight not to confirm the delete",
        outcome.value)
    assert transitions(agent.events(), [record]) == [], pinned(
        "SCH-ABORT-ANSWER", "a delete aborted during its preflight to append nothing",
        transition_events(agent.events(), [record]))
    listed = [view.get("id") for view in agent.call_tool("schedule_list", {}).value]
    assert listed == [record.id], pinned(
        "SCH-ABORT-ANSWER", "the record to stay active after the aborted delete", listed)


def _behind_a_hung_barrier(host: Any, agent: Any, *, queued: bool) -> tuple[Any, int]:
    """A create held on its barrier and, when ``queued``, a second create waiting
    behind it in the queue, aborted there: the second create's outcome (None when
    not started) and how many flushes the session saw once all settled."""
    host.faults.fail_flushes("hang", first=2)  # the first create's barrier hangs
    agent.start_tool("schedule_create", {"prompt": "First", "after_seconds": 3600})
    waiting = None
    if queued:
        waiting = agent.start_tool("schedule_create", {"prompt": "Queued", "after_seconds": 3600})
        waiting.abort()
    host.faults.release_hung_flush()
    return (waiting.result() if waiting else None), session_flushes(host, agent)


@pytest.mark.compat("SCH-ABORT-ANSWER")
@pytest.mark.spec("SCH-033", "SCH-034")
def test_a_create_aborted_while_it_waits_in_the_queue_neither_flushes_nor_appends(
    dsh_host_factory,
):
    flushes = {}
    for queued in (False, True):
        host = dsh_host_factory()
        host.load_plugin("schedule")
        agent = host.create_agent()
        outcome, flushes[queued] = _behind_a_hung_barrier(host, agent, queued=queued)
    assert outcome.is_error is True or closed_codes_in(outcome.value), pinned(
        "SCH-ABORT-ANSWER", "a create aborted while it waits in the queue not to confirm",
        outcome.value)
    appended = [c for c in schedule_changes(agent.events()) if mentions(c, "Queued")]
    assert appended == [], pinned(
        "SCH-ABORT-ANSWER", "a create aborted while it waits in the queue to append nothing",
        appended)
    assert flushes[True] == flushes[False], pinned(
        "SCH-ABORT-ANSWER", "a create aborted while it waits in the queue not to flush: the "
        "session's flushes with the aborted call equal to those without it",
        {"without": flushes[False], "with the aborted call": flushes[True]})

"""README section "Delivery lifecycle": management transactions and the live owner in
flight.

The helpers these tests share with ``schedule/management_tools/test_transactions.py``
are defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.management_tools.test_transactions import AFTER_60, changes
from dsh_conformance.schedule.session_logs import reminder_messages
from dsh_conformance.schedule.written_logs import create, transition_events, transitions
from pytest_dsh import HostStuckError

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.spec("SCH-057")
@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
def test_later_reminders_are_delivered_after_a_rejected_dispatch_barrier(host, agent, outcome):
    first = create(agent, {"prompt": "A", "after_seconds": 60})
    second = create(agent, {"prompt": "B", "after_seconds": 120})
    records = [first, second]
    host.faults.fail_flushes(outcome, first=2)  # A's due preflight ok, its barrier fails
    host.advance(60)
    sent = transitions(agent.events(), records)
    assert sent == [first.id], readme(
        "SCH-057", f"the first reminder's dispatch to stay appended when its barrier is {outcome}",
        transition_events(agent.events(), records))
    host.advance(60)
    sent = transitions(agent.events(), records)
    assert sent == [first.id, second.id], readme(
        "SCH-057", "a later reminder to be dispatched after a failed dispatch barrier",
        transition_events(agent.events(), records))
    messages = reminder_messages(agent.events())
    assert len(messages) == 2, readme(
        "SCH-057", "both reminders to reach the agent as messages", messages)
    durable = transitions(host.durable_events(agent.session_id), records)
    assert durable == [first.id, second.id], readme(
        "SCH-057", "the later ordinary preflight to make both dispatches durable", durable)


@pytest.mark.spec("SCH-058")
def test_agent_disposal_awaits_an_in_flight_due_preflight_then_writes_nothing(host, agent):
    record = create(agent, AFTER_60)
    durable = host.durable_events(agent.session_id)
    host.faults.fail_flushes("hang")
    host.advance(60)  # the due preflight hangs
    disposal = agent.start_dispose()
    assert disposal.done is False, readme(
        "SCH-058", "disposal to await the in-flight due preflight", disposal.done)
    assert agent.is_live is True, readme(
        "SCH-058", "the agent to stay live while disposal awaits the preflight", agent.is_live)
    host.faults.release_hung_flush()
    assert disposal.done is True, readme(
        "SCH-058", "disposal to finish once the preflight settles", disposal.done)
    assert agent.is_live is False, readme(
        "SCH-058", "the agent to be disposed once disposal finishes", agent.is_live)
    host.advance(600)
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-058", "a disposed agent's owner to dispatch nothing",
        transition_events(agent.events(), [record]))
    assert reminder_messages(agent.events()) == [], readme(
        "SCH-058", "a disposed agent to receive no reminder", reminder_messages(agent.events()))
    now_durable = host.durable_events(agent.session_id)
    assert now_durable[: len(durable)] == durable, readme(
        "SCH-058", "disposal not to delete or rewrite durable records", now_durable)
    assert transitions(now_durable, [record]) == [], readme(
        "SCH-058", "no dispatch to become durable after disposal",
        transition_events(now_durable, [record]))


# The host's agent disposal waits for the held task first (and the official host's for a
# running turn), so by the time it finishes the agent is idle and the wait would have ended
# anyway: this test sees that nothing is delivered. That disposal itself ends a pending
# idle wait is seen through plugin disposal during a long turn
# (test_runtime_lifecycle.py::test_plugin_disposal_ends_an_idle_wait_while_a_long_turn_runs).
@pytest.mark.spec("SCH-058")
def test_agent_disposal_ends_an_idle_wait_without_delivering(host, agent):
    record = create(agent, AFTER_60)
    hold = agent.hold_maintenance()  # the agent is busy: the due owner waits for idle
    host.advance(60)
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-047", "a due reminder to wait while the agent is busy",
        transition_events(agent.events(), [record]))
    disposal = agent.start_dispose()
    assert disposal.done is False, readme(
        "SCH-058", "agent disposal to await the held maintenance task", disposal.done)
    hold.release()
    assert disposal.done is True, readme(
        "SCH-058", "disposal to finish once the held task settled, the idle wait ended",
        disposal.done)
    assert agent.is_live is False, readme(
        "SCH-058", "the agent to be disposed", agent.is_live)
    host.advance(600)
    assert changes(agent) == [record.event["data"]], readme(
        "SCH-058", "disposal to keep the create and append no other change (no dispatch from "
        "the ended idle wait)", changes(agent))


@pytest.mark.spec("SCH-058")
def test_plugin_unload_awaits_an_in_flight_due_preflight_then_finishes(host, agent):
    record = create(agent, AFTER_60)
    host.faults.fail_flushes("hang")
    host.advance(60)
    with pytest.raises(HostStuckError):
        host.unload_plugin("schedule")
    host.faults.release_hung_flush()
    host.advance(600)
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-058", "an unloaded plugin's owner to dispatch nothing",
        transition_events(agent.events(), [record]))
    listing = agent.call_tool("schedule_list", {})
    assert listing.is_error is True, readme(  # the tools are gone
        "SCH-058", "the tools to be gone once the plugin is unloaded", listing.value)

"""Management transactions and the live owner in flight: calls started without
waiting, racing on one agent, aborted, or held on a flush; disposal while work
is in flight; dispatch barrier failures followed by later reminders.

README sentences: one agent-scoped queue serialises every transaction from
preflight through its barrier (SCH-033); create and delete confirm only after
their barrier (SCH-013, SCH-034); a barrier rejection leaves dispatch pending
for a later ordinary preflight (SCH-057); disposal awaits in-flight preflights
and idle waits without deleting records (SCH-058). What an aborted call
answers is left open by the README; those tests follow the official build.
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.schedule.session_logs import (
    dispatches,
    flushes_of,
    reminder_messages,
)
from pytest_dsh import HostStuckError

pytestmark = [pytest.mark.dsh_requires("schedule")]

AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}
INTERNAL_ERROR = {"code": "internal_error", "message": "The schedule operation failed."}


def changes(agent) -> list[dict[str, Any]]:
    return [e["data"] for e in agent.events() if e["type"] == "schedule/change"]


def operations(agent) -> list[str]:
    return [change["operation"] for change in changes(agent)]


# -- racing calls ---------------------------------------------------------------------


@pytest.mark.spec("SCH-033")
def test_a_racing_call_waits_for_the_whole_earlier_transaction(host, agent):
    seen = len(flushes_of(host, agent.session_id))
    host.faults.fail_flushes("hang", first=2)  # the first create's barrier hangs
    first = agent.start_tool("schedule_create", {"prompt": "A", "after_seconds": 60})
    second = agent.start_tool("schedule_create", {"prompt": "B", "after_seconds": 60})
    assert (first.done, second.done) == (False, False)
    # preflight and barrier of the first; the second has not even flushed
    assert [r.outcome for r in flushes_of(host, agent.session_id)[seen:]] == ["durable", "hang"]
    assert operations(agent) == ["create"]
    host.faults.release_hung_flush()
    assert first.result().value["id"] == "schedule-1"
    assert second.result().value["id"] == "schedule-2"
    assert [c["schedule"]["prompt"] for c in changes(agent)] == ["A", "B"]


@pytest.mark.spec("SCH-033", "SCH-036")
def test_a_delete_racing_a_create_sees_the_create(host, agent):
    host.faults.fail_flushes("hang")
    create = agent.start_tool("schedule_create", AFTER_60)
    delete = agent.start_tool("schedule_delete", {"id": "schedule-1"})
    host.faults.release_hung_flush()
    assert create.result().value["id"] == "schedule-1"
    assert delete.result().value == {"id": "schedule-1", "deleted": True}
    assert operations(agent) == ["create", "delete"]


@pytest.mark.spec("SCH-033")
def test_a_call_started_during_the_due_transaction_runs_after_its_barrier(host, agent):
    agent.call_tool("schedule_create", {"prompt": "Due", "after_seconds": 60})
    host.faults.fail_flushes("hang", first=2)  # the dispatch barrier hangs
    host.advance(60)
    assert len(dispatches(agent.events())) == 1
    seen = len(flushes_of(host, agent.session_id))
    listing = agent.start_tool("schedule_list", {})
    assert listing.done is False
    assert len(flushes_of(host, agent.session_id)) == seen
    host.faults.release_hung_flush()
    assert listing.result().value == []
    assert len(flushes_of(host, agent.session_id)) > seen


@pytest.mark.spec("SCH-013", "SCH-034")
def test_a_create_held_on_its_barrier_completes_once_the_flush_is_released(host, agent):
    host.faults.fail_flushes("hang", first=2)
    call = agent.start_tool("schedule_create", AFTER_60)
    assert call.done is False
    with pytest.raises(HostStuckError):
        call.result()
    host.faults.release_hung_flush()
    value = call.result().value
    assert (value["id"], value["state"]) == ("schedule-1", "scheduled")
    assert [c["operation"] for c in changes(agent)] == ["create"]
    assert "schedule/change" in [e["type"] for e in host.durable_events(agent.session_id)]


@pytest.mark.spec("SCH-013", "SCH-034")
@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
def test_a_held_barrier_released_as_a_failure_reports_the_kept_create(host, agent, outcome):
    host.faults.fail_flushes("hang", first=2)
    call = agent.start_tool("schedule_create", AFTER_60)
    host.faults.release_hung_flush(outcome)
    value = call.result().value
    assert value["code"] == "persistence_uncertain"
    assert value["id"] == "schedule-1"
    assert operations(agent) == ["create"]


# -- aborts (the README leaves the answer open; these follow the official build) ------------


@pytest.mark.spec("SCH-033", "SCH-034")
def test_a_call_aborted_before_it_starts_flushes_nothing_and_appends_nothing(host, agent):
    seen = len(flushes_of(host, agent.session_id))
    value = agent.start_tool("schedule_create", AFTER_60, aborted=True).result().value
    assert value == INTERNAL_ERROR
    assert len(flushes_of(host, agent.session_id)) == seen
    assert changes(agent) == []


@pytest.mark.spec("SCH-033", "SCH-034")
def test_a_create_aborted_during_its_preflight_appends_nothing(host, agent):
    host.faults.fail_flushes("hang")
    call = agent.start_tool("schedule_create", AFTER_60)
    call.abort()
    host.faults.release_hung_flush()
    assert call.result().is_error is True
    assert changes(agent) == []
    # the queue moved on: the next call runs normally
    assert agent.call_tool("schedule_create", AFTER_60).value["id"] == "schedule-1"


@pytest.mark.spec("SCH-033", "SCH-034")
def test_a_create_aborted_after_its_append_keeps_the_record(host, agent):
    host.faults.fail_flushes("hang", first=2)  # abort while the barrier hangs
    call = agent.start_tool("schedule_create", AFTER_60)
    call.abort()
    host.faults.release_hung_flush()
    call.result()
    assert operations(agent) == ["create"]
    [record] = agent.call_tool("schedule_list", {}).value
    assert record["id"] == "schedule-1"


# -- dispatch barrier failure, later reminders ----------------------------------------------


@pytest.mark.spec("SCH-057")
@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
def test_later_reminders_are_delivered_after_a_rejected_dispatch_barrier(host, agent, outcome):
    agent.call_tool("schedule_create", {"prompt": "A", "after_seconds": 60})
    agent.call_tool("schedule_create", {"prompt": "B", "after_seconds": 120})
    host.faults.fail_flushes(outcome, first=2)  # A's due preflight ok, its barrier fails
    host.advance(60)
    assert [d["id"] for d in dispatches(agent.events())] == ["schedule-1"]
    host.advance(60)
    assert [d["id"] for d in dispatches(agent.events())] == ["schedule-1", "schedule-2"]
    assert len(reminder_messages(agent.events())) == 2
    assert [d["id"] for d in dispatches(host.durable_events(agent.session_id))] == [
        "schedule-1",
        "schedule-2",
    ]


# -- disposal while work is in flight -----------------------------------------------------


@pytest.mark.spec("SCH-058")
def test_agent_disposal_awaits_an_in_flight_due_preflight_then_writes_nothing(host, agent):
    agent.call_tool("schedule_create", AFTER_60)
    durable = host.durable_events(agent.session_id)
    host.faults.fail_flushes("hang")
    host.advance(60)  # the due preflight hangs
    disposal = agent.start_dispose()
    assert disposal.done is False
    assert agent.is_live is True
    host.faults.release_hung_flush()
    assert disposal.done is True
    assert agent.is_live is False
    host.advance(600)
    assert dispatches(agent.events()) == []
    assert reminder_messages(agent.events()) == []
    assert host.durable_events(agent.session_id)[: len(durable)] == durable
    assert dispatches(host.durable_events(agent.session_id)) == []


@pytest.mark.spec("SCH-058")
def test_agent_disposal_ends_an_idle_wait_without_delivering(host, agent):
    agent.call_tool("schedule_create", AFTER_60)
    hold = agent.hold_maintenance()  # the agent is busy: the due owner waits for idle
    host.advance(60)
    assert dispatches(agent.events()) == []
    disposal = agent.start_dispose()
    hold.release()
    assert disposal.done is True
    assert agent.is_live is False
    host.advance(600)
    assert dispatches(agent.events()) == []
    assert changes(agent) == [changes(agent)[0]]
    assert [c["operation"] for c in changes(agent)] == ["create"]


@pytest.mark.spec("SCH-058")
def test_plugin_unload_awaits_an_in_flight_due_preflight_then_finishes(host, agent):
    agent.call_tool("schedule_create", AFTER_60)
    host.faults.fail_flushes("hang")
    host.advance(60)
    with pytest.raises(HostStuckError):
        host.unload_plugin("schedule")
    host.faults.release_hung_flush()
    host.advance(600)
    assert dispatches(agent.events()) == []
    assert agent.call_tool("schedule_list", {}).is_error is True  # the tools are gone

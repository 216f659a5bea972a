"""Management transactions and the live owner in flight: calls started without
waiting, racing on one agent, aborted, or held on a flush; disposal while work
is in flight; dispatch barrier failures followed by later reminders.

README sentences: one agent-scoped queue serialises every transaction from
preflight through its barrier (SCH-033); create and delete confirm only after
their barrier (SCH-013, SCH-034); a barrier rejection leaves dispatch pending
for a later ordinary preflight (SCH-057); disposal awaits in-flight preflights
and idle waits without deleting records (SCH-058). What an aborted call
answers is left open by the README beyond a closed code (SCH-039); the exact
answer is pinned (SCH-ABORT-ANSWER).
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.expect import code_of, pinned, readme
from dsh_conformance.schedule.session_logs import (
    dispatches,
    flushes_of,
    reminder_messages,
)
from pytest_dsh import HostStuckError

pytestmark = [pytest.mark.dsh_requires("schedule")]

AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}
INTERNAL_ERROR = {"code": "internal_error", "message": "The schedule operation failed."}
ERROR_CODES = {
    "invalid_prompt", "invalid_selector", "invalid_rule", "invalid_time_zone", "not_future",
    "time_out_of_range", "frequency_too_high", "corrupt_schedule_log", "persistence_uncertain",
    "internal_error",
}


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
    assert (first.done, second.done) == (False, False), readme(
        "SCH-033", "both creates to stay pending while the first one's barrier hangs",
        (first.done, second.done))
    # preflight and barrier of the first; the second has not even flushed
    flushed = [r.outcome for r in flushes_of(host, agent.session_id)[seen:]]
    assert flushed == ["durable", "hang"], readme(
        "SCH-033", "only the first create's preflight and hung barrier to flush before the "
        "second create starts", flushed)
    assert operations(agent) == ["create"], readme(
        "SCH-033", "only the first create to be appended while its barrier hangs",
        operations(agent))
    host.faults.release_hung_flush()
    ids = (first.result().value["id"], second.result().value["id"])
    logged = tuple(c["schedule"]["id"] for c in changes(agent))
    assert ids == logged and len(set(ids)) == 2, readme(
        "SCH-033", "the racing creates to get distinct ids in call order (those of the log's "
        f"creates {logged}) once released", ids)
    prompts = [c["schedule"]["prompt"] for c in changes(agent)]
    assert prompts == ["A", "B"], readme(
        "SCH-033", "the creates to be appended in call order", prompts)


# The racing delete must name the id before the create answers: only the pinned format
# lets a caller know it in advance.
@pytest.mark.compat("SCH-ID-FORMAT")
@pytest.mark.spec("SCH-033", "SCH-036")
def test_a_delete_racing_a_create_sees_the_create(host, agent):
    host.faults.fail_flushes("hang")
    create = agent.start_tool("schedule_create", AFTER_60)
    delete = agent.start_tool("schedule_delete", {"id": "schedule-1"})
    host.faults.release_hung_flush()
    created = create.result().value
    assert created["id"] == "schedule-1", pinned(
        "SCH-ID-FORMAT", "the earlier create to complete first and create schedule-1", created)
    deleted = delete.result().value
    assert deleted == {"id": "schedule-1", "deleted": True}, pinned(
        "SCH-ID-FORMAT", "the racing delete to see the earlier create and delete it", deleted)
    assert operations(agent) == ["create", "delete"], pinned(
        "SCH-ID-FORMAT", "the create to be appended before the delete", operations(agent))


@pytest.mark.spec("SCH-033")
def test_a_call_started_during_the_due_transaction_runs_after_its_barrier(host, agent):
    agent.call_tool("schedule_create", {"prompt": "Due", "after_seconds": 60})
    host.faults.fail_flushes("hang", first=2)  # the dispatch barrier hangs
    host.advance(60)
    assert len(dispatches(agent.events())) == 1, readme(
        "SCH-033", "the due transaction to append its dispatch before its barrier",
        dispatches(agent.events()))
    seen = len(flushes_of(host, agent.session_id))
    listing = agent.start_tool("schedule_list", {})
    assert listing.done is False, readme(
        "SCH-033", "a list started during the due barrier to wait for it", listing.done)
    assert len(flushes_of(host, agent.session_id)) == seen, readme(
        "SCH-033", "the waiting list not to flush before the due barrier ends",
        flushes_of(host, agent.session_id)[seen:])
    host.faults.release_hung_flush()
    listed = listing.result().value
    assert listed == [], readme(
        "SCH-033", "the list to run after the dispatch and see no active record", listed)
    assert len(flushes_of(host, agent.session_id)) > seen, readme(
        "SCH-033", "the list to run its own preflight once the barrier is released",
        len(flushes_of(host, agent.session_id)) - seen)


@pytest.mark.spec("SCH-013", "SCH-034")
def test_a_create_held_on_its_barrier_completes_once_the_flush_is_released(host, agent):
    host.faults.fail_flushes("hang", first=2)
    call = agent.start_tool("schedule_create", AFTER_60)
    assert call.done is False, readme(
        "SCH-013, SCH-034", "a create not to confirm before its barrier", call.done)
    with pytest.raises(HostStuckError):
        call.result()
    host.faults.release_hung_flush()
    value = call.result().value
    logged = [c["schedule"]["id"] for c in changes(agent)]
    assert [(value.get("id"), value.get("state"))] == [(i, "scheduled") for i in logged], readme(
        "SCH-013, SCH-034", "the released create to confirm the scheduled record", value)
    assert operations(agent) == ["create"], readme(
        "SCH-034", "exactly one create to be appended", operations(agent))
    durable = [e["type"] for e in host.durable_events(agent.session_id)]
    assert "schedule/change" in durable, readme(
        "SCH-013", "the confirmed create to be durable", durable)


@pytest.mark.spec("SCH-013", "SCH-034")
@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
def test_a_held_barrier_released_as_a_failure_reports_the_kept_create(host, agent, outcome):
    host.faults.fail_flushes("hang", first=2)
    call = agent.start_tool("schedule_create", AFTER_60)
    host.faults.release_hung_flush(outcome)
    value = call.result().value
    assert code_of(value) == "persistence_uncertain", readme(
        "SCH-013, SCH-034", f"a barrier released as {outcome} to answer persistence_uncertain",
        value)
    logged = [c["schedule"]["id"] for c in changes(agent)]
    assert [value.get("id")] == logged, readme(
        "SCH-034", "the uncertain answer to name the appended record's id", value)
    assert operations(agent) == ["create"], readme(
        "SCH-013", "the appended create to stay in the log", operations(agent))


# -- aborts (the README leaves the answer open; the exact answer is pinned) ---------------


@pytest.mark.spec("SCH-033", "SCH-034", "SCH-039")
def test_a_call_aborted_before_it_starts_flushes_nothing_and_appends_nothing(host, agent):
    seen = len(flushes_of(host, agent.session_id))
    value = agent.start_tool("schedule_create", AFTER_60, aborted=True).result().value
    assert code_of(value) in ERROR_CODES, readme(
        "SCH-039", "an aborted call to answer one of the closed error codes", value)
    assert len(flushes_of(host, agent.session_id)) == seen, readme(
        "SCH-033", "a call aborted before its turn in the queue not to flush",
        flushes_of(host, agent.session_id)[seen:])
    assert changes(agent) == [], readme(
        "SCH-034", "a call aborted before it starts to append nothing", changes(agent))


@pytest.mark.compat("SCH-ABORT-ANSWER")
@pytest.mark.spec("SCH-033", "SCH-039")
def test_a_call_aborted_before_it_starts_answers_internal_error(host, agent):
    value = agent.start_tool("schedule_create", AFTER_60, aborted=True).result().value
    assert value == INTERNAL_ERROR, pinned(
        "SCH-ABORT-ANSWER", f"a call aborted before it starts to answer {INTERNAL_ERROR}", value)


@pytest.mark.spec("SCH-033", "SCH-034")
def test_a_create_aborted_during_its_preflight_appends_nothing(host, agent):
    host.faults.fail_flushes("hang")
    call = agent.start_tool("schedule_create", AFTER_60)
    call.abort()
    host.faults.release_hung_flush()
    outcome = call.result()
    assert outcome.is_error is True, readme(
        "SCH-034", "a create aborted during its preflight not to confirm a record",
        outcome.value)
    assert changes(agent) == [], readme(
        "SCH-034", "a create aborted during its preflight to append nothing", changes(agent))
    # the queue moved on: the next call runs normally
    value = agent.call_tool("schedule_create", AFTER_60).value
    logged = [c["schedule"]["id"] for c in changes(agent)]
    assert value.get("state") == "scheduled" and [value.get("id")] == logged, readme(
        "SCH-033", "the queue to move on after the aborted call and run the next create", value)


@pytest.mark.spec("SCH-033", "SCH-034")
def test_a_create_aborted_after_its_append_keeps_the_record(host, agent):
    host.faults.fail_flushes("hang", first=2)  # abort while the barrier hangs
    call = agent.start_tool("schedule_create", AFTER_60)
    call.abort()
    host.faults.release_hung_flush()
    call.result()
    assert operations(agent) == ["create"], readme(
        "SCH-034", "a create aborted after its append to keep the appended create",
        operations(agent))
    listed = agent.call_tool("schedule_list", {}).value
    logged = [c["schedule"]["id"] for c in changes(agent) if c["operation"] == "create"]
    assert [record["id"] for record in listed] == logged, readme(
        "SCH-035", "the kept record to be listed as active", listed)


# -- dispatch barrier failure, later reminders ----------------------------------------------


@pytest.mark.spec("SCH-057")
@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
def test_later_reminders_are_delivered_after_a_rejected_dispatch_barrier(host, agent, outcome):
    first = agent.call_tool("schedule_create", {"prompt": "A", "after_seconds": 60}).value["id"]
    second = agent.call_tool("schedule_create", {"prompt": "B", "after_seconds": 120}).value["id"]
    host.faults.fail_flushes(outcome, first=2)  # A's due preflight ok, its barrier fails
    host.advance(60)
    sent = [d["id"] for d in dispatches(agent.events())]
    assert sent == [first], readme(
        "SCH-057", f"the first reminder's dispatch to stay appended when its barrier is {outcome}",
        sent)
    host.advance(60)
    sent = [d["id"] for d in dispatches(agent.events())]
    assert sent == [first, second], readme(
        "SCH-057", "a later reminder to be dispatched after a failed dispatch barrier", sent)
    messages = reminder_messages(agent.events())
    assert len(messages) == 2, readme(
        "SCH-057", "both reminders to reach the agent as messages", messages)
    durable = [d["id"] for d in dispatches(host.durable_events(agent.session_id))]
    assert durable == [first, second], readme(
        "SCH-057", "the later ordinary preflight to make both dispatches durable", durable)


# -- disposal while work is in flight -----------------------------------------------------


@pytest.mark.spec("SCH-058")
def test_agent_disposal_awaits_an_in_flight_due_preflight_then_writes_nothing(host, agent):
    agent.call_tool("schedule_create", AFTER_60)
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
    assert dispatches(agent.events()) == [], readme(
        "SCH-058", "a disposed agent's owner to dispatch nothing", dispatches(agent.events()))
    assert reminder_messages(agent.events()) == [], readme(
        "SCH-058", "a disposed agent to receive no reminder", reminder_messages(agent.events()))
    now_durable = host.durable_events(agent.session_id)
    assert now_durable[: len(durable)] == durable, readme(
        "SCH-058", "disposal not to delete or rewrite durable records", now_durable)
    assert dispatches(now_durable) == [], readme(
        "SCH-058", "no dispatch to become durable after disposal", dispatches(now_durable))


@pytest.mark.spec("SCH-058")
def test_agent_disposal_ends_an_idle_wait_without_delivering(host, agent):
    agent.call_tool("schedule_create", AFTER_60)
    hold = agent.hold_maintenance()  # the agent is busy: the due owner waits for idle
    host.advance(60)
    assert dispatches(agent.events()) == [], readme(
        "SCH-058", "a due reminder to wait while the agent is busy", dispatches(agent.events()))
    disposal = agent.start_dispose()
    hold.release()
    assert disposal.done is True, readme(
        "SCH-058", "disposal to end the idle wait and finish", disposal.done)
    assert agent.is_live is False, readme(
        "SCH-058", "the agent to be disposed", agent.is_live)
    host.advance(600)
    assert dispatches(agent.events()) == [], readme(
        "SCH-058", "the ended idle wait to deliver nothing", dispatches(agent.events()))
    assert operations(agent) == ["create"], readme(
        "SCH-058", "disposal to keep the create and append no other change", changes(agent))


@pytest.mark.spec("SCH-058")
def test_plugin_unload_awaits_an_in_flight_due_preflight_then_finishes(host, agent):
    agent.call_tool("schedule_create", AFTER_60)
    host.faults.fail_flushes("hang")
    host.advance(60)
    with pytest.raises(HostStuckError):
        host.unload_plugin("schedule")
    host.faults.release_hung_flush()
    host.advance(600)
    assert dispatches(agent.events()) == [], readme(
        "SCH-058", "an unloaded plugin's owner to dispatch nothing", dispatches(agent.events()))
    listing = agent.call_tool("schedule_list", {})
    assert listing.is_error is True, readme(  # the tools are gone
        "SCH-058", "the tools to be gone once the plugin is unloaded", listing.value)

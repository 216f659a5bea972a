"""Management transactions and the live owner in flight: calls started without
waiting, racing on one agent, aborted, or held on a flush; disposal while work
is in flight; dispatch barrier failures followed by later reminders.

README sentences: one agent-scoped queue serialises every transaction from
preflight through its barrier (SCH-033); create and delete confirm only after
their barrier (SCH-013, SCH-034); a barrier rejection leaves dispatch pending
for a later ordinary preflight (SCH-057); disposal awaits in-flight preflights
and idle waits without deleting records (SCH-058). No README sentence mentions
aborted calls: what they answer and write is pinned (SCH-ABORT-ANSWER).
Logs are read without their layout (``written_logs``).
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.expect import pinned, readme
from dsh_conformance.layout_free import closed_codes_in, mentions, schedule_changes
from dsh_conformance.schedule.session_logs import flushes_of
from dsh_conformance.schedule.tool_values import delete_succeeded
from dsh_conformance.schedule.written_logs import create, transition_events, transitions

pytestmark = [pytest.mark.dsh_requires("schedule")]

AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}
INTERNAL_ERROR = {"code": "internal_error", "message": "The schedule operation failed."}


def changes(agent: Any) -> list[Any]:
    """The data of the agent's ``schedule/change`` events, layout untouched."""
    return schedule_changes(agent.events())


def operations(agent: Any) -> list[str]:
    """The ``operation`` of each change (pinned detail SCH-PAYLOAD-LAYOUT)."""
    return [change["operation"] for change in changes(agent)]


def created_id(value: Any, sentences: str, what: str) -> str:
    """The id a successful create answered; fails naming ``what`` otherwise."""
    schedule_id = value.get("id") if isinstance(value, dict) else None
    assert isinstance(schedule_id, str) and not closed_codes_in(value), readme(
        sentences, f"{what} to confirm the created record with its id", value)
    return schedule_id


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
    pending = changes(agent)
    assert len(pending) == 1 and mentions(pending[0], "A"), readme(
        "SCH-033", "only the first create to be appended while its barrier hangs", pending)
    host.faults.release_hung_flush()
    ids = [created_id(call.result().value, "SCH-033", "each racing create")
           for call in (first, second)]
    logged = changes(agent)
    in_order = len(logged) == 2 and all(
        mentions(change, schedule_id) and mentions(change, prompt)
        for change, schedule_id, prompt in zip(logged, ids, ["A", "B"], strict=False))
    assert in_order and len(set(ids)) == 2, readme(
        "SCH-033", f"the racing creates to get distinct ids {ids} and be appended in call "
        "order once released", logged)


# The racing delete must name the id before the create answers: only the pinned format
# lets a caller know it in advance.
@pytest.mark.compat("SCH-ID-FORMAT")
@pytest.mark.spec("SCH-033", "SCH-036")
def test_a_delete_racing_a_create_sees_the_create(host, agent):
    host.faults.fail_flushes("hang")
    create_call = agent.start_tool("schedule_create", AFTER_60)
    delete = agent.start_tool("schedule_delete", {"id": "schedule-1"})
    host.faults.release_hung_flush()
    created = create_call.result().value
    assert created["id"] == "schedule-1", pinned(
        "SCH-ID-FORMAT", "the earlier create to complete first and create schedule-1", created)
    deleted = delete.result().value
    assert delete_succeeded(deleted), pinned(
        "SCH-ID-FORMAT", "the racing delete to see the earlier create and delete it", deleted)
    assert operations(agent) == ["create", "delete"], pinned(
        "SCH-ID-FORMAT", "the create to be appended before the delete", operations(agent))


@pytest.mark.spec("SCH-033")
def test_a_call_started_during_the_due_transaction_runs_after_its_barrier(host, agent):
    record = create(agent, {"prompt": "Due", "after_seconds": 60})
    host.faults.fail_flushes("hang", first=2)  # the dispatch barrier hangs
    host.advance(60)
    assert transitions(agent.events(), [record]) == [record.id], readme(
        "SCH-033, SCH-049", "the due transaction to append its dispatch before its barrier",
        transition_events(agent.events(), [record]))
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


# -- aborts (no README sentence mentions them; pinned) ----------------------------------------


@pytest.mark.compat("SCH-ABORT-ANSWER")
@pytest.mark.spec("SCH-033", "SCH-034", "SCH-039")
def test_a_call_aborted_before_it_starts_flushes_nothing_and_appends_nothing(host, agent):
    seen = len(flushes_of(host, agent.session_id))
    value = agent.start_tool("schedule_create", AFTER_60, aborted=True).result().value
    assert closed_codes_in(value), pinned(
        "SCH-ABORT-ANSWER", "an aborted call to answer a closed error code", value)
    assert len(flushes_of(host, agent.session_id)) == seen, pinned(
        "SCH-ABORT-ANSWER", "a call aborted before its turn in the queue not to flush",
        flushes_of(host, agent.session_id)[seen:])
    assert changes(agent) == [], pinned(
        "SCH-ABORT-ANSWER", "a call aborted before it starts to append nothing", changes(agent))


@pytest.mark.compat("SCH-ABORT-ANSWER")
@pytest.mark.spec("SCH-033", "SCH-039")
def test_a_call_aborted_before_it_starts_answers_internal_error(host, agent):
    value = agent.start_tool("schedule_create", AFTER_60, aborted=True).result().value
    assert value == INTERNAL_ERROR, pinned(
        "SCH-ABORT-ANSWER", f"a call aborted before it starts to answer {INTERNAL_ERROR}", value)


@pytest.mark.compat("SCH-ABORT-ANSWER")
@pytest.mark.spec("SCH-033", "SCH-034")
def test_a_create_aborted_during_its_preflight_appends_nothing(host, agent):
    host.faults.fail_flushes("hang")
    call = agent.start_tool("schedule_create", AFTER_60)
    call.abort()
    host.faults.release_hung_flush()
    outcome = call.result()
    assert outcome.is_error is True, pinned(
        "SCH-ABORT-ANSWER", "a create aborted during its preflight not to confirm a record",
        outcome.value)
    assert changes(agent) == [], pinned(
        "SCH-ABORT-ANSWER", "a create aborted during its preflight to append nothing",
        changes(agent))
    # the queue moved on: the next call runs normally
    record = create(agent, AFTER_60)
    assert [record.event["data"]] == changes(agent), pinned(
        "SCH-ABORT-ANSWER", "the queue to move on after the aborted call and run the next "
        "create", changes(agent))


@pytest.mark.compat("SCH-ABORT-ANSWER")
@pytest.mark.spec("SCH-033", "SCH-034")
def test_a_create_aborted_after_its_append_keeps_the_record(host, agent):
    host.faults.fail_flushes("hang", first=2)  # abort while the barrier hangs
    call = agent.start_tool("schedule_create", AFTER_60)
    call.abort()
    host.faults.release_hung_flush()
    call.result()
    assert operations(agent) == ["create"], pinned(
        "SCH-ABORT-ANSWER", "a create aborted after its append to keep the appended create",
        operations(agent))
    listed = agent.call_tool("schedule_list", {}).value
    logged = [c["schedule"]["id"] for c in changes(agent) if c["operation"] == "create"]
    assert [record["id"] for record in listed] == logged, pinned(
        "SCH-ABORT-ANSWER", "the kept record to be listed as active", listed)

"""The ``./invariant`` companion (README "Durable state"): the replay policy
applied to existing logs and to every candidate ``schedule/change`` event."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from dsh_conformance.expect import readme
from dsh_conformance.schedule.session_logs import (
    after_create,
    at_create,
    changes,
    delete_change,
    dispatch_change,
    every_create,
    reminder_messages,
    seed_log,
)
from pytest_dsh import AgentVetoedError, PluginLoadError
from pytest_dsh.contract import AppendRejectedError
from pytest_dsh.strategies.schedule import corrupt_schedule_logs

pytestmark = [pytest.mark.dsh_requires("schedule", "schedule-invariant")]

FAR = "2026-06-01T00:00:00.000Z"
A1 = after_create("schedule-1", "A", 60, FAR)
E2 = every_create("schedule-2", "E", 300, FAR)

BAD_CANDIDATES: dict[str, Any] = {
    "reused-id": at_create("schedule-1", "again", FAR),
    "delete-unknown": delete_change("schedule-9"),
    "dispatch-unknown": dispatch_change("schedule-9"),
    "unknown-version": {**delete_change("schedule-1"), "version": 2},
    "extra-field": {**delete_change("schedule-1"), "reason": "x"},
    "one-shot-dispatch-with-accepted-at": dispatch_change("schedule-1", FAR),
    "every-dispatch-without-accepted-at": dispatch_change("schedule-2"),
    "every-dispatch-before-target": dispatch_change("schedule-2", "2026-05-01T00:00:00.000Z"),
    "bad-record": after_create("schedule-3", " untrimmed", 60, FAR),
    "not-an-object": "create",
}


def _create(agent: Any, arguments: dict[str, Any]) -> str:
    """Create a reminder and return the id the implementation allocated (its format is
    pinned detail SCH-ID-FORMAT, so readme-level checks never spell it)."""
    return str(agent.call_tool("schedule_create", arguments).value["id"])


@pytest.fixture
def guarded(dsh_host):
    """A host with ``schedule`` and ``schedule-invariant`` loaded."""
    dsh_host.load_plugin("schedule")
    dsh_host.load_plugin("schedule-invariant")
    return dsh_host


@pytest.mark.spec("SCH-022", "SCH-019")
@pytest.mark.parametrize("candidate", list(BAD_CANDIDATES.values()), ids=list(BAD_CANDIDATES))
def test_a_bad_schedule_append_is_rejected_and_leaves_the_log_unchanged(guarded, candidate):
    agent = guarded.create_agent(seed=seed_log(A1, E2))
    before = agent.events()
    with pytest.raises(AppendRejectedError):
        agent.append_event("schedule/change", candidate)
    assert agent.events() == before, readme(
        "SCH-022, SCH-019",
        "a bad schedule append is rejected and leaves the log unchanged: agent.events() == before",
        agent.events(),
    )


@pytest.mark.spec("SCH-022")
@pytest.mark.parametrize(
    "candidate",
    [at_create("schedule-3", "ok", FAR), delete_change("schedule-1"),
     dispatch_change("schedule-1"), dispatch_change("schedule-2", FAR)],
    ids=["create", "delete", "one-shot-dispatch", "every-dispatch"],
)
def test_a_valid_schedule_append_is_accepted(guarded, candidate):
    agent = guarded.create_agent(seed=seed_log(A1, E2))
    agent.append_event("schedule/change", candidate)
    assert changes(agent.events())[-1] == candidate, readme(
        "SCH-022",
        "a valid schedule append is accepted: changes(agent.events())[-1] == candidate",
        changes(agent.events())[-1],
    )


@pytest.mark.spec("SCH-022")
def test_other_event_types_are_not_checked(guarded):
    agent = guarded.create_agent(seed=seed_log(A1))
    agent.append_event("custom/thing", {"version": 99, "operation": "delete", "id": "x"})
    assert agent.events()[-1]["type"] == "custom/thing", readme(
        "SCH-022",
        "other event types are not checked: agent.events()[-1]['type'] == 'custom/thing'",
        agent.events()[-1]['type'],
    )


@pytest.mark.spec("SCH-022")
def test_registration_fails_over_an_existing_corrupt_session(dsh_host):
    dsh_host.load_plugin("schedule")
    dsh_host.create_agent(seed=seed_log(A1, A1))
    with pytest.raises((AppendRejectedError, PluginLoadError)):
        dsh_host.load_plugin("schedule-invariant")


@pytest.mark.spec("SCH-022")
def test_a_new_corrupt_session_is_refused(guarded):
    with pytest.raises((AppendRejectedError, AgentVetoedError)):
        guarded.create_agent(seed=seed_log(A1, delete_change("schedule-1"),
                                           delete_change("schedule-1")))


@pytest.mark.spec("SCH-022", "SCH-021")
def test_the_companion_honours_the_fork_boundary(guarded):
    parent = guarded.create_agent()
    parent.call_tool("schedule_create", {"prompt": "P1", "after_seconds": 600})
    parent.call_tool("schedule_create", {"prompt": "P2", "after_seconds": 600})
    child = guarded.fork(parent)
    child.append_event("schedule/change", at_create("schedule-1", "mine", FAR))
    with pytest.raises(AppendRejectedError):
        child.append_event("schedule/change", delete_change("schedule-2"))
    assert child.call_tool("schedule_list", {}).value[0]["prompt"] == "mine", readme(
        "SCH-022, SCH-021",
        "the companion honours the fork boundary: child.call_tool('schedule_list', "
        "{}).value[0]['prompt'] == 'mine'",
    )


@pytest.mark.spec("SCH-022")
def test_the_tools_and_the_owner_work_under_the_companion(guarded):
    agent = guarded.create_agent()
    _create(agent, {"prompt": "A", "after_seconds": 60})
    _create(agent, {"prompt": "B", "every_seconds": 300})
    id3 = _create(agent, {"prompt": "C", "after_seconds": 600})
    assert (
        agent.call_tool("schedule_delete", {"id": id3}).value["deleted"] is True
    ), readme(
        "SCH-022",
        "the tools and the owner work under the companion: agent.call_tool('schedule_delete', "
        "{'id': id3}).value['deleted'] is True",
    )
    guarded.advance(300)
    assert len(reminder_messages(agent.events())) == 2, readme(
        "SCH-022",
        "the tools and the owner work under the companion: len(reminder_messages(agent.events())) "
        "== 2",
        len(reminder_messages(agent.events())),
    )
    assert [c["operation"] for c in changes(agent.events())] == [
        "create", "create", "create", "delete", "dispatch", "dispatch"], readme(
        "SCH-022",
        "the tools and the owner work under the companion: [c['operation'] for c in "
        "changes(agent.events())] == ['create', 'create', 'create', 'delete', 'dispatch', "
        "'dispatch']",
        [c['operation'] for c in changes(agent.events())],
    )


@pytest.mark.spec("SCH-022", "SCH-019")
@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(log=corrupt_schedule_logs())
def test_any_change_that_breaks_replay_is_refused_by_the_companion(guarded, log):
    *prefix, candidate = log.changes
    agent = guarded.create_agent(seed=seed_log(*prefix))
    before = agent.events()
    with pytest.raises(AppendRejectedError):
        agent.append_event("schedule/change", candidate)
    assert agent.events() == before, readme(
        "SCH-022, SCH-019",
        "any change that breaks replay is refused by the companion: agent.events() == before",
        agent.events(),
    )

"""The ``./invariant`` companion (README "Durable state"): the replay policy
applied to existing logs and to every candidate ``schedule/change`` event.

Readme-level tests give the companion changes the implementation wrote itself,
broken without knowing their layout (repeated, made about another id, given an
extra field); candidates spelled in the official layout are compat twins (pin
SCH-LOG-INTEROP)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from dsh_conformance.expect import pinned, readme
from dsh_conformance.fixtures.replay import official_log_accepted
from dsh_conformance.layout_free import mentions
from dsh_conformance.schedule.session_logs import (
    add_field,
    after_create,
    at_create,
    changes,
    delete_change,
    dispatch_change,
    every_create,
    mapping_paths,
    reminder_messages,
    replace_scalar,
    reseed,
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
    value = agent.call_tool("schedule_create", arguments).value
    schedule_id = value.get("id") if isinstance(value, dict) else None
    assert isinstance(schedule_id, str), readme(
        "SCH-022, SCH-034", "schedule_create to succeed under the companion and answer the "
        "new record's id", value)
    return schedule_id


def _change_about(agent: Any, needle: str) -> Any:
    """The data of the last ``schedule/change`` event mentioning ``needle``."""
    found = [e["data"] for e in agent.events()
             if e["type"] == "schedule/change" and mentions(e["data"], needle)]
    assert found, readme("SCH-014, SCH-022", f"a schedule/change event mentioning {needle!r}; "
                         "observed none, so the candidate cannot be made", agent.events())
    return found[-1]


def _written(agent: Any) -> dict[str, Any]:
    """Changes the implementation wrote under the companion, each the template of a
    candidate: a one-shot X (active), an Every E (dispatched once, active), a one-shot
    D (dispatched), a one-shot R (deleted)."""
    ids = {
        "X": _create(agent, {"prompt": "X", "after_seconds": 3600}),
        "E": _create(agent, {"prompt": "E", "every_seconds": 300}),
        "D": _create(agent, {"prompt": "D", "after_seconds": 60}),
        "R": _create(agent, {"prompt": "R", "after_seconds": 3600}),
    }
    agent.call_tool("schedule_delete", {"id": ids["R"]})
    return ids


@pytest.fixture
def guarded(dsh_host):
    """A host with ``schedule`` and ``schedule-invariant`` loaded."""
    dsh_host.load_plugin("schedule")
    dsh_host.load_plugin("schedule-invariant")
    return dsh_host


def _candidates(guarded: Any, agent: Any) -> dict[str, Any]:
    """Candidate changes that break a replay rule of SCH-019, made from the agent's
    own log after :func:`_written` and 300 s (D and E dispatched)."""
    ids = _written(agent)
    guarded.advance(300)
    x, e, d, r = ids["X"], ids["E"], ids["D"], ids["R"]
    create_x = _change_about(agent, "X")
    delete_r = [c for c in [_change_about(agent, r)] if not mentions(c, "R")]
    dispatch_d = [c for c in [_change_about(agent, d)] if not mentions(c, "D")]
    dispatch_e = [c for c in [_change_about(agent, e)] if not mentions(c, "E")]
    assert delete_r and dispatch_d and dispatch_e, readme(
        "SCH-017, SCH-036, SCH-048..SCH-050", "the delete and the two dues each to append a "
        "change carrying the id", agent.events())
    candidates = {
        "reused-id": create_x,
        "delete-twice": delete_r[0],
        "one-shot-dispatched-twice": dispatch_d[0],
        "delete-of-a-dispatched-record": replace_scalar(delete_r[0], r, d),
        "dispatch-of-a-deleted-record": replace_scalar(dispatch_d[0], d, r),
        "one-shot-dispatch-in-the-every-shape": replace_scalar(dispatch_e[0], e, x),
        "every-dispatch-in-the-one-shot-shape": replace_scalar(dispatch_d[0], d, e),
    }
    for name, template in [("create", create_x), ("delete", delete_r[0]),
                           ("dispatch", dispatch_d[0]), ("every-dispatch", dispatch_e[0])]:
        for n, path in enumerate(mapping_paths(template)):
            candidates[f"extra-field-in-{name}-object-{n}"] = add_field(
                template, path, "unexpectedField", "x")
    return candidates


@pytest.mark.spec("SCH-022", "SCH-019")
def test_a_written_change_broken_without_its_layout_is_rejected(guarded):
    agent = guarded.create_agent()
    accepted = []
    for name, candidate in _candidates(guarded, agent).items():
        before = agent.events()
        try:
            agent.append_event("schedule/change", candidate)
        except AppendRejectedError:
            if agent.events() != before:
                accepted.append((name, "rejected but the log changed"))
            continue
        accepted.append((name, candidate))
        break  # the log now holds a broken change: later candidates would mean nothing
    assert accepted == [], readme(
        "SCH-022, SCH-019", "the companion to reject every candidate that breaks replay "
        "(reused id, inactive target, mismatched dispatch shape, extra field) and leave the "
        "log unchanged; accepted", accepted)


@pytest.mark.spec("SCH-022")
def test_the_implementations_own_changes_are_accepted_in_a_fresh_session(guarded):
    writer = guarded.create_agent()
    x = _create(writer, {"prompt": "X", "after_seconds": 3600})
    create = _change_about(writer, "X")
    writer.call_tool("schedule_delete", {"id": x})
    delete = _change_about(writer, x)
    reader = guarded.create_agent()
    for change in (create, delete):
        reader.append_event("schedule/change", change)
    assert changes(reader.events()) == [create, delete], readme(
        "SCH-022", "the companion to accept a create and then its delete, as the "
        "implementation wrote them, in another session", changes(reader.events()))


@pytest.mark.compat("SCH-LOG-INTEROP")
@pytest.mark.spec("SCH-022", "SCH-019")
@pytest.mark.parametrize("candidate", list(BAD_CANDIDATES.values()), ids=list(BAD_CANDIDATES))
def test_a_bad_official_schedule_append_is_rejected_and_leaves_the_log_unchanged(
    guarded, candidate
):
    with official_log_accepted("a log seeded in the official layout"):
        agent = guarded.create_agent(seed=seed_log(A1, E2))
    before = agent.events()
    with pytest.raises(AppendRejectedError):
        agent.append_event("schedule/change", candidate)
    assert agent.events() == before, pinned(
        "SCH-LOG-INTEROP", "a bad schedule append in the official layout to be rejected and "
        "leave the log unchanged", agent.events())


@pytest.mark.compat("SCH-LOG-INTEROP")
@pytest.mark.spec("SCH-022")
@pytest.mark.parametrize(
    "candidate",
    [at_create("schedule-3", "ok", FAR), delete_change("schedule-1"),
     dispatch_change("schedule-1"), dispatch_change("schedule-2", FAR)],
    ids=["create", "delete", "one-shot-dispatch", "every-dispatch"],
)
def test_a_valid_official_schedule_append_is_accepted(guarded, candidate):
    with official_log_accepted("a log seeded in the official layout"):
        agent = guarded.create_agent(seed=seed_log(A1, E2))
    agent.append_event("schedule/change", candidate)
    assert changes(agent.events())[-1] == candidate, pinned(
        "SCH-LOG-INTEROP", "a valid append in the official layout to be accepted",
        changes(agent.events())[-1])


@pytest.mark.spec("SCH-022")
def test_other_event_types_are_not_checked(guarded):
    agent = guarded.create_agent()
    _create(agent, {"prompt": "A", "after_seconds": 600})
    agent.append_event("custom/thing", {"version": 99, "operation": "delete", "id": "x"})
    assert agent.events()[-1]["type"] == "custom/thing", readme(
        "SCH-022", "the companion to leave other event types unchecked",
        agent.events()[-1]["type"])


def _written_log_with_a_repeated_change(host: Any, repeat: str) -> list[dict[str, Any]]:
    """A log the implementation wrote (without the companion), then the change about
    ``repeat`` (``create`` or ``delete``) once more."""
    writer = host.create_agent()
    a = _create(writer, {"prompt": "A", "after_seconds": 600})
    if repeat == "delete":
        writer.call_tool("schedule_delete", {"id": a})
    log = writer.events()
    again = [e for e in log if e["type"] == "schedule/change"
             and mentions(e["data"], a) and mentions(e["data"], "A") != (repeat == "delete")]
    assert again, readme("SCH-014", f"a schedule/change event for the {repeat}", log)
    return reseed([*log, again[-1]])


@pytest.mark.spec("SCH-022", "SCH-019")
def test_registration_fails_over_an_existing_corrupt_session(dsh_host):
    dsh_host.load_plugin("schedule")
    dsh_host.create_agent(seed=_written_log_with_a_repeated_change(dsh_host, "create"))
    with pytest.raises((AppendRejectedError, PluginLoadError)):
        dsh_host.load_plugin("schedule-invariant")


@pytest.mark.spec("SCH-022", "SCH-019")
def test_a_new_corrupt_session_is_refused(dsh_host):
    dsh_host.load_plugin("schedule")
    log = _written_log_with_a_repeated_change(dsh_host, "delete")
    dsh_host.load_plugin("schedule-invariant")
    with pytest.raises((AppendRejectedError, AgentVetoedError)):
        dsh_host.create_agent(seed=log)


@pytest.mark.spec("SCH-022", "SCH-021")
def test_the_companion_honours_the_fork_boundary(guarded):
    parent = guarded.create_agent()
    parent_ids = [_create(parent, {"prompt": p, "after_seconds": 600}) for p in ("P1", "P2")]
    z = _create(parent, {"prompt": "Z", "after_seconds": 600})
    parent.call_tool("schedule_delete", {"id": z})
    delete = _change_about(parent, z)
    child = guarded.fork(parent)
    mine = _create(child, {"prompt": "mine", "after_seconds": 900})
    target = next(i for i in parent_ids if i != mine)  # ids are Session-local
    with pytest.raises(AppendRejectedError):
        child.append_event("schedule/change", replace_scalar(delete, z, target))
    listed = child.call_tool("schedule_list", {}).value
    assert isinstance(listed, list) and len(listed) == 1 and mentions(listed, "mine"), readme(
        "SCH-022, SCH-021", "the companion to fold only the fork's suffix: a delete of a "
        "parent record refused, the child's own record listed", listed)


@pytest.mark.spec("SCH-022")
def test_the_tools_and_the_owner_work_under_the_companion(guarded):
    agent = guarded.create_agent()
    _create(agent, {"prompt": "A", "after_seconds": 60})
    _create(agent, {"prompt": "B", "every_seconds": 300})
    id3 = _create(agent, {"prompt": "C", "after_seconds": 600})
    agent.call_tool("schedule_delete", {"id": id3})
    listed = agent.call_tool("schedule_list", {}).value
    assert isinstance(listed, list) and [v.get("id") for v in listed].count(id3) == 0, readme(
        "SCH-022, SCH-036", "a delete under the companion to remove the record", listed)
    guarded.advance(300)
    assert len(reminder_messages(agent.events())) == 2, readme(
        "SCH-022", "the owner to deliver the one-shot and the Every reminder under the "
        "companion", len(reminder_messages(agent.events())))
    assert len(changes(agent.events())) == 6, readme(
        "SCH-022", "three creates, a delete and two dispatches appended under the companion",
        changes(agent.events()))


@pytest.mark.compat("SCH-PAYLOAD-LAYOUT")
@pytest.mark.spec("SCH-022")
def test_the_changes_written_under_the_companion_have_the_official_operations(guarded):
    agent = guarded.create_agent()
    _create(agent, {"prompt": "A", "after_seconds": 60})
    _create(agent, {"prompt": "B", "every_seconds": 300})
    id3 = _create(agent, {"prompt": "C", "after_seconds": 600})
    agent.call_tool("schedule_delete", {"id": id3})
    guarded.advance(300)
    operations = [c.get("operation") if isinstance(c, dict) else c
                  for c in changes(agent.events())]
    expected = ["create", "create", "create", "delete", "dispatch", "dispatch"]
    assert operations == expected, pinned("SCH-PAYLOAD-LAYOUT", f"the operations {expected}",
                                          operations)


@pytest.mark.compat("SCH-LOG-INTEROP")
@pytest.mark.spec("SCH-022", "SCH-019")
@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(log=corrupt_schedule_logs())
def test_any_change_that_breaks_replay_is_refused_by_the_companion(guarded, log):
    *prefix, candidate = log.changes
    with official_log_accepted("a log seeded in the official layout"):
        agent = guarded.create_agent(seed=seed_log(*prefix))
    before = agent.events()
    with pytest.raises(AppendRejectedError):
        agent.append_event("schedule/change", candidate)
    assert agent.events() == before, pinned(
        "SCH-LOG-INTEROP", "an official-layout change that breaks replay to be refused, the "
        "log unchanged", agent.events())

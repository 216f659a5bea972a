"""README section "Composition": what loads Schedule, who gets it, and the
flush that guards every decision taken from the fold."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.expect import pinned, readme
from dsh_conformance.layout_free import closed_codes_in, mentions
from dsh_conformance.schedule.session_logs import (
    START_MS,
    changes,
    flushes_of,
    reminder_framings,
    suite_instant,
    uncertain,
)
from dsh_conformance.schedule.written_logs import create, log_written_by
from pytest_dsh import HostStuckError
from pytest_dsh.contract import CompositionError

pytestmark = [pytest.mark.dsh_requires("schedule")]

TOOLS = {"schedule_create", "schedule_list", "schedule_delete"}
AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}


def _create(agent: Any, arguments: dict[str, Any]) -> str:
    """Create a reminder and return the id the implementation allocated (its format is
    pinned detail SCH-ID-FORMAT, so readme-level checks never spell it)."""
    return create(agent, arguments).id


@pytest.mark.spec("SCH-007", "SCH-090")
def test_agent_that_existed_before_load_gets_no_tools_and_no_flush(dsh_host):
    before = dsh_host.create_agent()
    dsh_host.load_plugin("schedule")
    dsh_host.run_until_idle()
    assert not TOOLS & set(before.tool_names()), readme(
        "SCH-007, SCH-090",
        "agent that existed before load gets no tools and no flush: not TOOLS & "
        "set(before.tool_names())",
        TOOLS & set(before.tool_names()),
    )
    assert flushes_of(dsh_host, before.session_id) == [], readme(
        "SCH-007, SCH-090",
        "agent that existed before load gets no tools and no flush: flushes_of(dsh_host, "
        "before.session_id) == []",
        flushes_of(dsh_host, before.session_id),
    )


@pytest.mark.spec("SCH-006", "SCH-007")
@pytest.mark.dsh_probe("child-agents-get-no-tools", "A child agent gets no schedule tools")
def test_runtime_child_gets_no_tools_and_no_flush(host, agent):
    child = host.create_agent(parent=agent)
    assert not child.is_root, readme(
        "SCH-006, SCH-007",
        "runtime child gets no tools and no flush: not child.is_root",
        child.is_root,
    )
    assert not TOOLS & set(child.tool_names()), readme(
        "SCH-006, SCH-007",
        "runtime child gets no tools and no flush: not TOOLS & set(child.tool_names())",
        TOOLS & set(child.tool_names()),
    )
    assert flushes_of(host, child.session_id) == [], readme(
        "SCH-006, SCH-007",
        "runtime child gets no tools and no flush: flushes_of(host, child.session_id) == []",
        flushes_of(host, child.session_id),
    )


@pytest.mark.spec("SCH-007", "SCH-090")
def test_pre_existing_agent_is_not_adopted_even_when_its_log_has_due_reminders(
    dsh_host, dsh_host_factory
):
    # a due reminder in a log the implementation itself wrote, on another host
    seed = log_written_by(dsh_host_factory, [{"prompt": "Old", "after_seconds": 60}],
                          start_ms=START_MS - 3_600_000)
    before = dsh_host.create_agent(seed=seed)
    dsh_host.load_plugin("schedule")
    dsh_host.advance(3600)
    assert reminder_framings(before.events()) == [], readme(
        "SCH-007, SCH-090",
        "pre existing agent is not adopted even when its log has due reminders: "
        "reminder_framings(before.events()) == []",
        reminder_framings(before.events()),
    )
    assert changes(before.events()) == changes(seed), readme(
        "SCH-007, SCH-090",
        "pre existing agent is not adopted even when its log has due reminders: "
        "changes(before.events()) == changes(seed)",
        changes(before.events()),
    )


@pytest.mark.spec("SCH-004")
def test_schedule_loads_in_a_full_composition_and_flushes_through_the_session_service(
    host, agent
):
    value = agent.call_tool("schedule_list", {}).value
    assert value == [], readme(
        "SCH-004",
        "schedule loads in a full composition and flushes through the session service: value == "
        "[]",
        value,
    )
    outcomes = {record.outcome for record in flushes_of(host, agent.session_id)}
    assert outcomes == {"durable"}, readme(
        "SCH-004",
        "schedule loads in a full composition and flushes through the session service: outcomes "
        "== {'durable'}",
        outcomes,
    )


@pytest.mark.spec("SCH-005")
def test_missing_persistence_service_is_a_composition_error(dsh_host_factory):
    host = dsh_host_factory(withhold=frozenset({"session_persistence"}))
    with pytest.raises(CompositionError):
        host.load_plugin("schedule")


@pytest.mark.spec("SCH-005")
def test_the_plugin_loads_when_persistence_is_composed(dsh_host_factory):
    host = dsh_host_factory()
    host.load_plugin("schedule")
    names = host.create_agent().tool_names()
    assert sorted(names) == sorted(TOOLS), readme(
        "SCH-005", "the plugin to load and give a new root its three tools", names)


@pytest.mark.compat("SCH-TOOL-ORDER")
@pytest.mark.spec("SCH-005", "SCH-006")
def test_the_tools_are_registered_in_the_official_order(host):
    names = host.create_agent().tool_names()
    expected = ["schedule_create", "schedule_list", "schedule_delete"]
    assert names == expected, pinned("SCH-TOOL-ORDER", f"the tools in the order {expected}",
                                     names)


@pytest.mark.spec("SCH-008")
def test_schedule_works_without_time_context(dsh_host):
    dsh_host.load_plugin("schedule")
    agent = dsh_host.create_agent()
    create(agent, AFTER_60)  # fails, naming SCH-034, unless it succeeds
    dsh_host.advance(60)
    assert len(reminder_framings(agent.events())) == 1, readme(
        "SCH-008",
        "schedule works without time context: len(reminder_framings(agent.events())) == 1",
        len(reminder_framings(agent.events())),
    )


@pytest.mark.dsh_requires("time-context")
@pytest.mark.spec("SCH-009", "SCH-010", "SCH-086")
def test_time_context_may_be_mounted_but_at_still_needs_an_explicit_zone(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "Asia/Shanghai"})
    dsh_host.load_plugin("schedule")
    agent = dsh_host.create_agent()
    agent.prompt("hello")  # the model now has a time reading in Asia/Shanghai
    offset_free = agent.call_tool(
        "schedule_create", {"prompt": "x", "at": "2026-01-02T09:00:00"}
    ).value
    assert closed_codes_in(offset_free), readme(
        "SCH-010, SCH-026, SCH-086", "an offset-free at string to be rejected with a closed "
        "code even with time-context mounted", offset_free)
    zoneless = agent.call_tool(
        "schedule_create", {"prompt": "x", "at": {"date": "2026-01-02", "time": "09:00:00"}}
    )
    assert zoneless.is_error is False, readme(
        "SCH-010, SCH-026", "a closed Schedule error for a local at without time_zone, not a "
        "host error", zoneless.error)
    assert closed_codes_in(zoneless.value), readme(
        "SCH-010, SCH-026", "a local at without time_zone to be rejected with a closed code, "
        "even with time-context mounted", zoneless.value)
    assert changes(agent.events()) == [], readme(
        "SCH-010, SCH-026", "the rejected creates to append nothing", changes(agent.events()))


@pytest.mark.compat("SCH-CODE-MAPPING")
@pytest.mark.dsh_requires("time-context")
@pytest.mark.spec("SCH-010", "SCH-026")
def test_time_context_mounted_an_offset_free_at_is_invalid_rule(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "Asia/Shanghai"})
    dsh_host.load_plugin("schedule")
    agent = dsh_host.create_agent()
    agent.prompt("hello")
    value = agent.call_tool("schedule_create", {"prompt": "x", "at": "2026-01-02T09:00:00"}).value
    assert isinstance(value, dict) and value.get("code") == "invalid_rule", pinned(
        "SCH-CODE-MAPPING", "invalid_rule for an offset-free at string", value)


@pytest.mark.dsh_requires("time-context")
@pytest.mark.spec("SCH-010", "SCH-030")
@pytest.mark.parametrize("zone", ["Asia/Shanghai", "America/Los_Angeles"])
def test_time_context_zone_does_not_change_the_interpretation_of_at(dsh_host, zone):
    dsh_host.load_plugin("time-context", {"timeZone": zone})
    dsh_host.load_plugin("schedule")
    agent = dsh_host.create_agent()
    agent.prompt("hello")
    local = {"date": "2026-01-02", "time": "09:00:00", "time_zone": "Europe/Berlin"}
    assert suite_instant(agent.call_tool("schedule_create", {"prompt": "x", "at": local}).value.get(
        "scheduledAt"
    )) == "2026-01-02T08:00:00.000Z", readme(
        "SCH-010, SCH-030",
        "time context zone does not change the interpretation of at: "
        "agent.call_tool('schedule_create', {'prompt': 'x', 'at': local}).value['scheduledAt'] == "
        "'2026-01-02T08:00:00.000Z'",
    )
    assert suite_instant(agent.call_tool(
        "schedule_create", {"prompt": "y", "at": "2026-01-02T09:00:00+09:00"}
    ).value.get("scheduledAt")) == "2026-01-02T00:00:00.000Z", readme(
        "SCH-010, SCH-030",
        "time context zone does not change the interpretation of at: "
        "agent.call_tool('schedule_create', {'prompt': 'y', 'at': "
        "'2026-01-02T09:00:00+09:00'}).value['scheduledAt'] == '2026-...",
    )


# -- the flush that guards the fold -------------------------------------------------


@pytest.mark.spec("SCH-011")
@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("schedule_list", {}),
        ("schedule_create", AFTER_60),
        ("schedule_delete", {"id": "schedule-7"}),
    ],
)
@pytest.mark.dsh_probe(
    "fold-reads-wait-for-a-flush",
    "Every operation reading the fold flushes first",
)
def test_every_fold_reading_operation_waits_for_a_flush_first(host, agent, tool, arguments):
    host.faults.fail_flushes("hang", count=1)
    with pytest.raises(HostStuckError):
        agent.call_tool(tool, arguments)
    assert changes(agent.events()) == [], readme(
        "SCH-011",
        "every fold reading operation waits for a flush first: changes(agent.events()) == []",
        changes(agent.events()),
    )


@pytest.mark.spec("SCH-011")
def test_preflight_flush_covers_the_whole_live_log(host, agent):
    agent.prompt("some unflushed conversation")
    length = len(agent.events())
    agent.call_tool("schedule_list", {})
    records = flushes_of(host, agent.session_id)
    assert records[-1].durable_length >= length, readme(
        "SCH-011",
        "preflight flush covers the whole live log: records[-1].durable_length >= length",
        records[-1].durable_length,
    )
    assert host.durable_events(agent.session_id)[:length] == agent.events()[:length], readme(
        "SCH-011",
        "preflight flush covers the whole live log: "
        "host.durable_events(agent.session_id)[:length] == agent.events()[:length]",
        host.durable_events(agent.session_id)[:length],
    )


@pytest.mark.spec("SCH-012")
@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
@pytest.mark.parametrize(
    ("tool", "arguments"),
    [("schedule_list", {}), ("schedule_create", AFTER_60), ("schedule_delete", {"id": "r"})],
)
@pytest.mark.dsh_probe(
    "rejected-flush-is-uncertain",
    "A rejected flush gives persistence_uncertain",
)
def test_failed_preflight_returns_persistence_uncertain(host, agent, outcome, tool, arguments):
    host.faults.fail_flushes(outcome, count=1)
    result = agent.call_tool(tool, arguments)
    assert result.is_error is False, readme("SCH-012", "a closed value, not a host error",
                                            result.error)
    assert closed_codes_in(result.value) == {"persistence_uncertain"}, readme(
        "SCH-012", f"persistence_uncertain from {tool} when the preflight flush is {outcome}",
        result.value)
    assert changes(agent.events()) == [], readme("SCH-012", "no change",
                                                 changes(agent.events()))


@pytest.mark.compat("SCH-ERROR-VALUE-SHAPE")
@pytest.mark.spec("SCH-012", "SCH-039")
@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("schedule_list", {}, uncertain("list")),
        ("schedule_create", AFTER_60, uncertain("create")),
        ("schedule_delete", {"id": "schedule-1"}, uncertain("delete", "schedule-1")),
    ],
)
def test_failed_preflight_answer_names_the_operation(host, agent, tool, arguments, expected):
    host.faults.fail_flushes("rejected", count=1)
    value = agent.call_tool(tool, arguments).value
    assert value == expected, pinned(
        "SCH-ERROR-VALUE-SHAPE", f"the uncertain answer {expected}", value)


@pytest.mark.spec("SCH-012")
def test_unconfirmed_live_suffix_is_never_listed(host, agent):
    agent.call_tool("schedule_create", AFTER_60)
    host.faults.fail_flushes("falsy", count=None)
    listed = agent.call_tool("schedule_list", {}).value
    assert closed_codes_in(listed) == {"persistence_uncertain"}, readme(
        "SCH-012", "persistence_uncertain, never a list of the unconfirmed suffix", listed)
    deleted = agent.call_tool("schedule_delete", {"id": "schedule-404"}).value
    assert closed_codes_in(deleted) == {"persistence_uncertain"}, readme(
        "SCH-012", "persistence_uncertain, never not-found, from an unconfirmed suffix", deleted)


@pytest.mark.spec("SCH-013", "SCH-034")
def test_create_confirms_only_after_a_barrier_flush_that_includes_the_create(host, agent):
    before = len(agent.events())
    seen = len(flushes_of(host, agent.session_id))
    host.faults.fail_flushes("hang", first=2, count=1)
    with pytest.raises(HostStuckError):
        agent.call_tool("schedule_create", AFTER_60)
    preflight, barrier = flushes_of(host, agent.session_id)[seen : seen + 2]
    assert (preflight.outcome, preflight.durable_length) == ("durable", before), readme(
        "SCH-013, SCH-034",
        "create confirms only after a barrier flush that includes the create: (preflight.outcome, "
        "preflight.durable_length) == ('durable', before)",
        (preflight.outcome, preflight.durable_length),
    )
    assert (barrier.outcome, barrier.durable_length) == ("hang", before + 1), readme(
        "SCH-013, SCH-034",
        "create confirms only after a barrier flush that includes the create: (barrier.outcome, "
        "barrier.durable_length) == ('hang', before + 1)",
        (barrier.outcome, barrier.durable_length),
    )
    appended = changes(agent.events())
    assert len(appended) == 1 and mentions(appended[0], "Stretch"), readme(
        "SCH-034", "the create, with its prompt, to be appended before the barrier", appended)


@pytest.mark.spec("SCH-013", "SCH-034")
def test_create_needs_no_flush_beyond_preflight_and_barrier(host, agent):
    host.faults.fail_flushes("hang", first=3, count=None)
    value = agent.call_tool("schedule_create", AFTER_60).value
    assert isinstance(value, dict) and isinstance(value.get("id"), str) and not closed_codes_in(
        value), readme(
        "SCH-013, SCH-034", "the create to complete with only its preflight and barrier "
        "flushes (a third flush would hang)", value)


@pytest.mark.spec("SCH-013")
def test_delete_confirms_only_after_a_barrier_flush_that_includes_the_delete(host, agent):
    id1 = _create(agent, AFTER_60)
    before = len(agent.events())
    seen = len(flushes_of(host, agent.session_id))
    host.faults.fail_flushes("hang", first=2, count=1)
    with pytest.raises(HostStuckError):
        agent.call_tool("schedule_delete", {"id": id1})
    preflight, barrier = flushes_of(host, agent.session_id)[seen : seen + 2]
    assert (preflight.outcome, preflight.durable_length) == ("durable", before), readme(
        "SCH-013",
        "delete confirms only after a barrier flush that includes the delete: (preflight.outcome, "
        "preflight.durable_length) == ('durable', before)",
        (preflight.outcome, preflight.durable_length),
    )
    assert (barrier.outcome, barrier.durable_length) == ("hang", before + 1), readme(
        "SCH-013",
        "delete confirms only after a barrier flush that includes the delete: (barrier.outcome, "
        "barrier.durable_length) == ('hang', before + 1)",
        (barrier.outcome, barrier.durable_length),
    )
    last = changes(agent.events())[-1]
    assert mentions(last, id1) and not mentions(last, "Stretch"), readme(
        "SCH-013, SCH-017", f"the delete of {id1!r}, carrying the id, to be appended before "
        "the barrier", last)


@pytest.mark.spec("SCH-013", "SCH-036")
@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("schedule_list", {}, []),
        (
            "schedule_delete",
            {"id": "schedule-9"},
            {"id": "schedule-9", "deleted": False, "code": "schedule_not_found"},
        ),
    ],
)
def test_reads_and_not_found_deletes_need_only_the_preflight(
    host, agent, tool, arguments, expected
):
    host.faults.fail_flushes("hang", first=2, count=None)
    assert agent.call_tool(tool, arguments).value == expected, readme(
        "SCH-013, SCH-036",
        "reads and not found deletes need only the preflight: agent.call_tool(tool, "
        "arguments).value == expected",
    )


@pytest.mark.spec("SCH-013", "SCH-039")
@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
def test_create_barrier_failure_reports_the_allocated_id_and_keeps_the_create(
    host, agent, outcome
):
    host.faults.fail_flushes(outcome, first=2, count=1)
    value = agent.call_tool("schedule_create", AFTER_60).value
    assert closed_codes_in(value) == {"persistence_uncertain"}, readme(
        "SCH-013", f"persistence_uncertain when the create's barrier flush is {outcome}", value)
    created = changes(agent.events())
    assert len(created) == 1 and mentions(created[0], "Stretch"), readme(
        "SCH-013", "the create kept in the log", created)
    following = create(agent, {"prompt": "Next", "after_seconds": 60})
    assert not mentions(created[0], following.id), readme(
        "SCH-034", f"the next create to get a fresh id, not the kept record's {created[0]}",
        following.id)


@pytest.mark.spec("SCH-013")
def test_delete_barrier_failure_reports_the_requested_id_and_keeps_the_delete(host, agent):
    id1 = _create(agent, AFTER_60)
    host.faults.fail_flushes("rejected", first=2, count=1)
    value = agent.call_tool("schedule_delete", {"id": id1}).value
    assert closed_codes_in(value) == {"persistence_uncertain"}, readme(
        "SCH-013", "persistence_uncertain when the delete's barrier flush fails", value)
    last = changes(agent.events())[-1]
    assert len(changes(agent.events())) == 2 and mentions(last, id1) and not mentions(
        last, "Stretch"), readme("SCH-013", "the delete kept in the log", changes(agent.events()))
    assert agent.call_tool("schedule_list", {}).value == [], readme(
        "SCH-013",
        "delete barrier failure reports the requested id and keeps the delete: "
        "agent.call_tool('schedule_list', {}).value == []",
    )

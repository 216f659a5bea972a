"""Envelope times, the dispatch trace entry and tool-registry introspection
behave the same on the Python fake host and the Node bridge.

Every test runs twice (see ``conftest.py``), as in ``test_driver_parity.py``.
These pin the kit's own driver contract (docs/fake-host.md), not a README.
"""

from __future__ import annotations

import pytest

from pytest_dsh import AgentVetoedError
from pytest_dsh.driving.api import JS_MAX_TIME_MS, AgentDriver, HostDriver
from pytest_dsh.driving.trace import TraceEntry

START_MS = 1_767_225_600_000
AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}
TOOLS = ["schedule_create", "schedule_list", "schedule_delete"]


def user_message(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "source": {"kind": "user"}}


def states(host: HostDriver, session_id: str) -> list[tuple[str, str, bool]]:
    return [(r.name, r.state, r.host_tool) for r in host.tool_registrations(session_id)]


def schedule_agent(host: HostDriver, session_id: str = "s") -> AgentDriver:
    host.load_plugin("schedule")
    return host.create_agent(session_id=session_id)


# -- append_event with a chosen time -----------------------------------------------------


@pytest.mark.parametrize("time", [START_MS - 90_000, START_MS + 5, 0, -1, JS_MAX_TIME_MS])
def test_a_chosen_time_stamps_the_event_and_leaves_the_wall_clock(host, time):
    agent = host.create_agent()
    event = agent.append_event("note/test", {"n": 1}, envelope={"time": time})
    assert event["time"] == time
    assert agent.events()[-1]["time"] == time
    assert host.now_ms == START_MS
    later = agent.append_event("note/test", {"n": 2})
    assert later["time"] == START_MS


def test_a_chosen_time_alone_keeps_a_message_model_visible(host):
    agent = host.create_agent()
    event = agent.append_event("user/message", user_message("hi"), envelope={"time": 7})
    assert (event["time"], event["surfaceOp"]) == (7, "append")
    assert [e["seq"] for e in agent.history()] == [event["seq"]]


def test_a_chosen_time_goes_with_a_replacement_envelope(host):
    agent = host.create_agent()
    first = agent.append_event("user/message", user_message("one"))
    summary = agent.append_event(
        "user/message",
        user_message("summary"),
        envelope={
            "surfaceOp": {"op": "replace", "start": first["seq"], "end": first["seq"]},
            "sourceEventSeqs": [first["seq"]],
            "time": START_MS - 1_000,
        },
    )
    assert (summary["time"], summary["sourceEventSeqs"]) == (START_MS - 1_000, [0])
    assert [e["seq"] for e in agent.history()] == [summary["seq"]]


@pytest.mark.parametrize("time", [1.5, 2.0, "5", True, None, JS_MAX_TIME_MS + 1])
def test_a_time_that_is_no_integer_epoch_ms_is_refused_and_nothing_is_appended(host, time):
    agent = host.create_agent()
    with pytest.raises(ValueError, match="envelope time"):
        agent.append_event("note/test", {}, envelope={"time": time})
    assert agent.events() == []
    assert host.now_ms == START_MS


def test_events_with_chosen_times_keep_their_log_order(host):
    agent = host.create_agent()
    agent.append_event("note/a", {}, envelope={"time": START_MS})
    agent.append_event("note/b", {}, envelope={"time": START_MS - 60_000})
    assert [(e["type"], e["time"]) for e in agent.events()] == [
        ("note/a", START_MS), ("note/b", START_MS - 60_000)
    ]


def test_a_chosen_time_moves_no_timer(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    agent.append_event("note/test", {}, envelope={"time": START_MS + 3_600_000})
    host.advance(59)
    assert "turn/start" not in [e["type"] for e in agent.events()]
    host.advance(1)
    assert "turn/start" in [e["type"] for e in agent.events()]


# -- the dispatch trace entry ------------------------------------------------------------


def test_a_dispatch_is_traced_after_its_append_with_the_event_seq(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    host.start_trace()
    host.advance(60)
    entries = [
        (e.kind, e.detail) for e in host.trace()
        if e.kind != "append" or e.detail == "schedule/change"
    ]
    start = entries.index(("claim", ""))
    seq = next(e["seq"] for e in agent.events()
               if e["type"] == "schedule/change" and e["data"].get("operation") == "dispatch")
    assert entries[start : start + 5] == [
        ("claim", ""),
        ("followup", ""),
        ("append", "schedule/change"),
        ("dispatch", str(seq)),
        ("release", ""),
    ]
    assert [e.subject for e in host.trace() if e.kind == "dispatch"] == [agent.session_id]


def test_creates_and_deletes_are_no_dispatch(host):
    agent = schedule_agent(host)
    host.start_trace()
    agent.call_tool("schedule_create", AFTER_60)
    agent.call_tool("schedule_delete", {"id": "schedule-1"})
    kinds = [e.kind for e in host.trace()]
    assert "dispatch" not in kinds
    assert kinds.count("append") >= 2


def test_a_dispatch_is_recognised_by_the_claim_not_by_its_payload(host):
    agent = host.create_agent()
    host.start_trace()
    agent.append_event("schedule/change", {"version": 1, "operation": "dispatch", "id": "x-1"})
    assert host.trace() == [TraceEntry("append", agent.session_id, "schedule/change")]


def test_each_reminder_of_a_batch_is_its_own_dispatch_entry(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", {"prompt": "A", "every_seconds": 300})
    agent.call_tool("schedule_create", {"prompt": "B", "every_seconds": 300})
    host.start_trace()
    host.advance(300)
    by_seq = {str(event["seq"]): event for event in agent.events()}
    dispatched = [by_seq[e.detail]["data"].get("id") for e in host.trace() if e.kind == "dispatch"]
    assert dispatched == ["schedule-1", "schedule-2"]


# -- tool-registry introspection ---------------------------------------------------------


def test_registrations_list_each_tool_with_its_output_schema(host):
    schedule_agent(host)
    registrations = host.tool_registrations("s")
    assert [(r.name, r.state, r.host_tool) for r in registrations] == [
        (name, "active", False) for name in TOOLS
    ]
    assert all(r.output_schema is not None for r in registrations)


def test_an_unknown_session_has_no_registrations(host):
    assert host.tool_registrations("nobody") == []


def test_disposing_the_agent_runs_every_disposer(host):
    agent = schedule_agent(host)
    agent.dispose()
    assert states(host, "s") == [(name, "disposed", False) for name in TOOLS]


def test_a_preregistered_tool_is_registered_before_plugins_on_later_agents(host):
    host.preregister_tool("host_probe")
    agent = schedule_agent(host)
    assert states(host, "s")[0] == ("host_probe", "active", True)
    assert agent.tool_names() == ["host_probe", *TOOLS]


def test_a_colliding_registration_is_refused_and_the_agent_vetoed(host):
    host.load_plugin("schedule")
    before = host.create_agent(session_id="before")
    host.preregister_tool("schedule_list")
    with pytest.raises(AgentVetoedError):
        host.create_agent(session_id="s")
    assert states(host, "s") == [
        ("schedule_list", "dropped", True),
        ("schedule_create", "disposed", False),
        ("schedule_list", "refused", False),
    ]
    # An agent that existed before keeps its tools.
    assert states(host, "before") == [(name, "active", False) for name in TOOLS]
    assert before.tool_names() == TOOLS


def test_preregistering_an_empty_name_is_refused(host):
    with pytest.raises(ValueError):
        host.preregister_tool("")

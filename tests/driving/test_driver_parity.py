"""Each driver seam behaves the same on the Python fake host and the Node bridge.

Every test runs twice (see ``conftest.py``). Seams are observed either through
the host alone (no plugin loaded) or through dsh-schedule where both builds
agree on the README behaviour, so a difference here is a host difference.
These pin the kit's own driver contract (docs/fake-host.md), not a README.
"""

from __future__ import annotations

import jsonschema
import pytest

from pytest_dsh import HostStuckError
from pytest_dsh.contract import AppendRejectedError, MaintenanceRejectedError
from pytest_dsh.driving.api import JS_MAX_TIME_MS, AgentDriver, HostDriver
from pytest_dsh.driving.pending import AgentCounters, PreStepOutcome
from pytest_dsh.driving.trace import TraceEntry

AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}


def changes(agent: AgentDriver) -> list[dict]:
    return [e["data"] for e in agent.events() if e["type"] == "schedule/change"]


def schedule_agent(host: HostDriver) -> AgentDriver:
    host.load_plugin("schedule")
    return host.create_agent()


def uncertain(operation: str) -> dict:
    return {
        "code": "persistence_uncertain",
        "message": (
            "Schedule persistence is uncertain; retry with schedule_list "
            "before relying on this result."
        ),
        "operation": operation,
    }


def types(agent: AgentDriver) -> list[str]:
    return [event["type"] for event in agent.events()]


# -- flush_session --------------------------------------------------------------------


def test_flush_session_makes_the_live_log_durable(host):
    agent = host.create_agent()
    agent.append_event("note/test", {"n": 1})
    assert host.flush_session(agent) is True
    assert host.durable_events(agent.session_id) == agent.events()
    assert host.flushes[-1].outcome == "durable"


@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
def test_flush_session_answers_false_on_a_planned_failure(host, outcome):
    agent = host.create_agent()
    host.faults.fail_flushes(outcome)
    assert host.flush_session(agent) is False
    assert host.flushes[-1].outcome == outcome
    with pytest.raises(KeyError):
        host.durable_events(agent.session_id)


def test_a_hung_flush_session_stays_hung_until_released(host):
    agent = host.create_agent()
    host.faults.fail_flushes("hang")
    with pytest.raises(HostStuckError):
        host.flush_session(agent)
    assert host.faults.hung_flushes == 1
    host.faults.release_hung_flush()
    assert host.faults.hung_flushes == 0
    assert host.durable_events(agent.session_id) == agent.events()


# -- tool calls started without awaiting -------------------------------------------------


def test_a_started_call_completes_without_waiting_when_nothing_blocks(host):
    agent = schedule_agent(host)
    call = agent.start_tool("schedule_create", AFTER_60)
    assert call.done is True
    assert call.result().value["id"] == "schedule-1"


def test_a_started_call_waits_on_a_hung_flush_and_completes_once_released(host):
    agent = schedule_agent(host)
    host.faults.fail_flushes("hang")
    call = agent.start_tool("schedule_create", AFTER_60)
    assert call.done is False
    with pytest.raises(HostStuckError):
        call.result()
    assert changes(agent) == []
    host.faults.release_hung_flush()
    assert call.done is True
    assert call.result().value["id"] == "schedule-1"
    assert [c["operation"] for c in changes(agent)] == ["create"]


def test_racing_calls_on_one_agent_run_one_after_the_other(host):
    agent = schedule_agent(host)
    host.faults.fail_flushes("hang")
    first = agent.start_tool("schedule_create", {"prompt": "A", "after_seconds": 60})
    second = agent.start_tool("schedule_create", {"prompt": "B", "after_seconds": 60})
    assert (first.done, second.done) == (False, False)
    assert host.faults.hung_flushes == 1  # the second waits behind the first
    host.faults.release_hung_flush()
    assert (first.result().value["id"], second.result().value["id"]) == (
        "schedule-1",
        "schedule-2",
    )
    assert [c["schedule"]["prompt"] for c in changes(agent)] == ["A", "B"]


def test_a_call_started_with_an_aborted_signal_gets_the_plugins_own_answer(host):
    agent = schedule_agent(host)
    call = agent.start_tool("schedule_create", AFTER_60, aborted=True)
    assert call.done is True
    assert call.result().value == {
        "code": "internal_error",
        "message": "The schedule operation failed.",
    }
    assert changes(agent) == []


def test_an_abort_while_the_preflight_hangs_ends_as_an_aborted_call_after_release(host):
    agent = schedule_agent(host)
    host.faults.fail_flushes("hang")
    call = agent.start_tool("schedule_create", AFTER_60)
    call.abort()
    assert call.done is False  # aborting does not release the flush
    host.faults.release_hung_flush()
    assert call.result().error == "tool call aborted"
    assert changes(agent) == []


# -- held flushes released one by one ------------------------------------------------------


@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
def test_a_hung_preflight_released_as_a_failure_answers_uncertain(host, outcome):
    agent = schedule_agent(host)
    host.faults.fail_flushes("hang")
    call = agent.start_tool("schedule_list", {})
    host.faults.release_hung_flush(outcome)
    assert call.result().value == uncertain("list")
    assert host.flushes[-1].outcome == "hang"


def test_hung_flushes_release_oldest_first_each_with_its_outcome(host):
    first_agent = schedule_agent(host)
    second_agent = host.create_agent()
    host.faults.fail_flushes("hang", count=2)
    first = first_agent.start_tool("schedule_list", {})
    second = second_agent.start_tool("schedule_list", {})
    assert host.faults.hung_flushes == 2
    host.faults.release_hung_flush("falsy")
    assert (first.done, second.done) == (True, False)
    assert first.result().value == uncertain("list")
    host.faults.release_hung_flush("durable")
    assert second.result().value == []


def test_releasing_with_nothing_hung_is_an_error(host):
    with pytest.raises(ValueError, match="no flush is hung"):
        host.faults.release_hung_flush()


def test_a_session_event_appended_during_a_hung_flush_is_not_in_that_flush(host):
    agent = host.create_agent()
    host.faults.fail_flushes("hang")
    with pytest.raises(HostStuckError):
        host.flush_session(agent)
    flushed_length = host.flushes[-1].durable_length
    agent.append_event("note/during", {"n": 2})
    host.faults.release_hung_flush()
    assert len(agent.events()) == flushed_length + 1


# -- agent phase control and counters ---------------------------------------------------


def test_a_held_maintenance_keeps_a_follow_up_parked(host):
    agent = host.create_agent()
    assert agent.counters() == AgentCounters(0, 0, 0, 0)
    hold = agent.hold_maintenance()
    assert hold.done is False
    agent.prompt("hello")
    assert "turn/start" not in types(agent)
    assert agent.counters() == AgentCounters(1, 0, 0, 1)
    hold.release()
    assert hold.done is True
    assert "turn/start" in types(agent)
    counters = agent.counters()
    assert (counters.maintenance_claims, counters.maintenance_releases) == (1, 1)
    assert counters.pending_followups == 0


def test_a_second_maintenance_claim_is_rejected_synchronously(host):
    agent = host.create_agent()
    hold = agent.hold_maintenance()
    with pytest.raises(MaintenanceRejectedError):
        agent.hold_maintenance()
    assert agent.counters().maintenance_claims == 1
    hold.release()
    agent.hold_maintenance().release()
    assert agent.counters().maintenance_claims == 2


def test_the_schedule_owner_waits_for_idle_and_claims_maintenance_to_deliver(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", {"prompt": "A", "after_seconds": 60})
    before = agent.counters()
    host.advance(60)
    after = agent.counters()
    assert after.maintenance_claims > before.maintenance_claims
    assert after.maintenance_releases == after.maintenance_claims
    assert after.when_idle_calls >= before.when_idle_calls


# -- disposal in progress -------------------------------------------------------------


def hung_due_preflight(host: HostDriver) -> AgentDriver:
    """An agent whose owner's due-delivery preflight flush hangs."""
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    host.faults.fail_flushes("hang")
    host.advance(60)
    assert host.faults.hung_flushes == 1
    return agent


def test_disposal_waits_for_a_hung_preflight_then_finishes(host):
    agent = hung_due_preflight(host)
    disposal = agent.start_dispose()
    assert disposal.done is False
    with pytest.raises(HostStuckError):
        disposal.result()
    host.faults.release_hung_flush()
    assert disposal.done is True
    disposal.result()
    assert agent.is_live is False


def test_dispose_raises_while_stuck_and_the_disposal_keeps_going(host):
    agent = hung_due_preflight(host)
    with pytest.raises(HostStuckError):
        agent.dispose()
    host.faults.release_hung_flush()
    assert agent.is_live is False
    agent.dispose()  # already disposed: nothing to do


def test_disposal_waits_for_a_held_maintenance_task(host):
    agent = host.create_agent()
    hold = agent.hold_maintenance()
    disposal = agent.start_dispose()
    assert disposal.done is False
    hold.release()
    assert disposal.done is True
    assert agent.is_live is False


def test_disposing_an_idle_agent_finishes_at_once(host):
    agent = host.create_agent()
    disposal = agent.start_dispose()
    assert disposal.done is True
    assert agent.is_live is False


# -- pre-step reached directly --------------------------------------------------------


def test_a_direct_pre_step_reaches_later_listeners_with_the_chosen_position(host):
    agent = host.create_agent()
    watcher = host.add_pre_step_watcher("record")
    pre_step = agent.start_pre_step(3, 2)
    assert pre_step.result() == PreStepOutcome("entered")
    assert [(c.turn, c.step, c.aborted) for c in watcher.calls] == [(3, 2, False)]
    assert "step/start" not in types(agent)


def test_a_direct_pre_step_with_an_aborted_signal_ends_aborted(host):
    agent = host.create_agent()
    watcher = host.add_pre_step_watcher("record")
    assert agent.start_pre_step(1, 1, aborted=True).result() == PreStepOutcome("aborted")
    assert [c.aborted for c in watcher.calls] == [True]


def test_a_raising_listener_ends_a_direct_pre_step_with_its_message(host):
    agent = host.create_agent()
    host.add_pre_step_watcher("raise")
    outcome = agent.start_pre_step(1, 4).result()
    assert outcome.kind == "error"
    assert outcome.message is not None
    assert "pre-step watcher failed turn 1 step 4" in outcome.message


def test_an_aborting_listener_ends_a_direct_pre_step_aborted(host):
    agent = host.create_agent()
    host.add_pre_step_watcher("abort")
    assert agent.start_pre_step(2, 1).result().kind == "aborted"


def test_time_context_contributes_its_reading_to_a_direct_pre_step(host):
    host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = host.create_agent()
    assert agent.start_pre_step(1, 1).result() == PreStepOutcome("entered")
    messages = [e for e in agent.events() if e["type"] == "user/message"]
    assert len(messages) == 1
    text = messages[0]["data"]["content"][0]["text"]
    assert "2026-01-01T00:00:00" in text


# -- wall clock across the JavaScript range ------------------------------------------------


@pytest.mark.parametrize("wall_ms", [JS_MAX_TIME_MS, -JS_MAX_TIME_MS, 253_402_300_800_000])
def test_the_wall_clock_spans_the_javascript_range(host, wall_ms):
    host.set_wall_clock(wall_ms)
    assert host.now_ms == wall_ms


@pytest.mark.parametrize("wall_ms", [JS_MAX_TIME_MS + 1, -JS_MAX_TIME_MS - 1])
def test_a_wall_clock_outside_the_javascript_range_is_refused(host, wall_ms):
    with pytest.raises(ValueError, match="JavaScript time range"):
        host.set_wall_clock(wall_ms)
    assert host.now_ms == 1_767_225_600_000


# -- faults ------------------------------------------------------------------------------


def test_append_faults_match_on_the_payload(host):
    agent = host.create_agent()
    host.faults.fail_appends(event_type="note/test", data={"kind": "b", "n": [1, {"x": 2}]})
    agent.append_event("note/test", {"kind": "a", "n": [1, {"x": 2}]})
    agent.append_event("note/other", {"kind": "b", "n": [1, {"x": 2}]})
    with pytest.raises(AppendRejectedError):
        agent.append_event("note/test", {"kind": "b", "n": [1, {"x": 2}], "extra": True})
    agent.append_event("note/test", {"kind": "b", "n": [1, {"x": 2}]})  # count=1: spent
    assert [e["data"].get("kind") for e in agent.events()] == ["a", "b", "b"]


def test_a_planned_maintenance_rejection_arrives_asynchronously(host):
    agent = host.create_agent()
    host.faults.fail_maintenance()
    hold = agent.hold_maintenance()  # no synchronous error
    assert hold.done is True
    assert agent.counters().maintenance_claims == 0
    agent.prompt("hello")  # the agent was never busy
    assert "turn/start" in types(agent)


def test_an_asynchronously_rejected_delivery_claim_runs_no_task(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    host.faults.fail_maintenance()
    host.advance(60)
    assert [c["operation"] for c in changes(agent)] == ["create"]
    assert "turn/start" not in types(agent)
    [record] = agent.call_tool("schedule_list", {}).value
    assert (record["id"], record["state"]) == ("schedule-1", "overdue")


# -- envelopes and compaction ------------------------------------------------------------------


def user_message(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "source": {"kind": "user"}}


def test_an_appended_replacement_with_its_envelope_shadows_its_sources(host):
    agent = host.create_agent()
    first = agent.append_event("user/message", user_message("one"))
    second = agent.append_event("user/message", user_message("two"))
    seqs = [first["seq"], second["seq"]]
    summary = agent.append_event(
        "user/message",
        user_message("summary"),
        envelope={"surfaceOp": {"op": "replace", "start": seqs[0], "end": seqs[1]},
                  "sourceEventSeqs": seqs},
    )
    assert summary["sourceEventSeqs"] == seqs
    assert [e["seq"] for e in agent.history()] == [summary["seq"]]
    assert len(agent.events()) == 3


def test_an_unknown_envelope_field_is_refused(host):
    agent = host.create_agent()
    with pytest.raises(ValueError, match="unknown envelope fields"):
        agent.append_event("user/message", user_message("x"), envelope={"seq": 5})
    assert agent.events() == []


def test_compaction_names_the_chosen_plugin(host):
    agent = host.create_agent()
    seq = agent.append_event("user/message", user_message("one"))["seq"]
    agent.compact([seq], "summary", plugin="my-compactor")
    [replacement] = agent.history()
    assert replacement["data"]["source"] == {"kind": "plugin", "plugin": "my-compactor"}
    assert replacement["sourceEventSeqs"] == [seq]


@pytest.mark.parametrize("read", ["clock", "event"])
def test_read_faults_hit_the_plugins_reads_only(host, read):
    agent = schedule_agent(host)
    getattr(host.faults, f"fail_{read}_reads")(count=None)
    # the host's own reads and work on the plugin's behalf are unaffected
    agent.append_event("note/test", {"n": 1})
    assert host.flush_session(agent) is True
    assert agent.events()[-1]["type"] == "note/test"
    value = agent.call_tool("schedule_create", AFTER_60).value
    assert value == {"code": "internal_error", "message": "The schedule operation failed."}
    host.faults.clear()
    assert agent.call_tool("schedule_create", AFTER_60).value["id"] == "schedule-1"


def test_an_event_read_fault_leaves_the_hosts_own_turn_alone(host):
    agent = host.create_agent()  # no plugin: every event read would be the host's
    host.faults.fail_event_reads(count=None)
    agent.prompt("hello")
    host.run_until_idle()
    types = [event["type"] for event in agent.events()]
    assert "turn/end" in types and "assistant/message" in types, types
    [request] = agent.requests()
    assert [event["type"] for event in request] == ["user/message"]


def test_a_read_fault_counts_only_matching_reads(host):
    agent = schedule_agent(host)
    host.faults.fail_clock_reads(first=1, count=1)
    agent.append_event("note/test", {"n": 1})  # no plugin clock read: the window waits
    assert agent.call_tool("schedule_create", AFTER_60).value["code"] == "internal_error"
    assert agent.call_tool("schedule_create", AFTER_60).value["id"] == "schedule-1"


# -- the host trace --------------------------------------------------------------------------


def test_the_trace_records_nothing_until_started(host):
    agent = host.create_agent()
    agent.append_event("note/test", {})
    assert host.trace() == []
    host.start_trace()
    agent.append_event("note/test", {})
    assert host.trace() == [TraceEntry("append", agent.session_id, "note/test")]


def test_the_trace_orders_claims_follow_ups_releases_and_flushes(host):
    agent = host.create_agent()
    host.start_trace()
    hold = agent.hold_maintenance()
    agent.prompt("hello")
    hold.release()
    host.flush_session(agent)
    kinds = [e.kind for e in host.trace() if e.kind != "append"]
    assert kinds == ["claim", "followup", "release", "flush"]
    assert {e.subject for e in host.trace()} == {agent.session_id}


def test_the_trace_shows_a_create_transaction_and_the_owner_timer(host):
    agent = schedule_agent(host)
    host.start_trace()
    agent.call_tool("schedule_create", AFTER_60)
    entries = [(e.kind, e.detail) for e in host.trace()]
    assert entries[:3] == [
        ("flush", "durable"), ("append", "schedule/change"), ("flush", "durable")
    ]
    assert ("timer-arm", "60000") in entries


def test_the_trace_shows_a_due_delivery_inside_its_claim(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    host.start_trace()
    host.advance(60)
    entries = [
        (e.kind, e.detail) for e in host.trace()
        if (e.kind != "append" or e.detail == "schedule/change") and e.kind != "dispatch"
    ]
    start = entries.index(("claim", ""))
    assert entries[start : start + 4] == [
        ("claim", ""), ("followup", ""), ("append", "schedule/change"), ("release", "")
    ]
    assert entries[0] == ("flush", "durable")  # the due preflight comes first


# -- tool registry introspection ------------------------------------------------------------


def test_each_tool_declares_an_output_schema_its_values_satisfy(host):
    agent = schedule_agent(host)
    schemas = agent.tool_output_schemas()
    assert list(schemas) == ["schedule_create", "schedule_list", "schedule_delete"]
    values = {
        "schedule_create": agent.call_tool("schedule_create", AFTER_60).value,
        "schedule_list": agent.call_tool("schedule_list", {}).value,
        "schedule_delete": agent.call_tool("schedule_delete", {"id": "schedule-1"}).value,
    }
    for name, value in values.items():
        schema = schemas[name]
        assert schema is not None
        jsonschema.Draft202012Validator(schema).validate(value)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schemas["schedule_delete"]).validate({"deleted": "yes"})


def test_a_disposed_agent_has_no_tools_left(host):
    agent = schedule_agent(host)
    agent.dispose()
    assert agent.tool_output_schemas() == {}
    assert agent.tool_names() == []


def test_a_follow_up_is_traced_when_the_call_is_made(host):
    agent = host.create_agent()
    host.start_trace()
    agent.prompt("hello")
    entries = host.trace()
    # before anything the host does for it (the official inbox append, the turn)
    assert entries[0] == TraceEntry("followup", agent.session_id)
    assert [e.kind for e in entries].count("followup") == 1


def test_a_refused_follow_up_leaves_no_trace_entry(host):
    agent = host.create_agent()
    host.start_trace()
    host.faults.fail_followups()
    with pytest.raises(Exception, match="followup rejected by the fault plan"):
        agent.prompt("hello")
    assert [e.kind for e in host.trace()] == []

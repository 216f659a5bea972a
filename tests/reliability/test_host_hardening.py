"""Bad input from a model or a config cannot wedge a host (both hosts).

Each test answers a reproduction: an argument or config a model or user can
send either is a host argument error (``invalid arguments: ...``, the shape of
every host error) or reaches the plugin, and it never corrupts the store; a
flush is recorded durable only when the store really holds the log.
Level: these pin host behaviour the READMEs leave to DSH (a host validates
arguments before the handler runs; a flush resolves truthy only when durable).
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.schedule.session_logs import tool_result
from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from pytest_dsh.contract.frozen_json import freeze_event
from pytest_dsh.driving.api import HostDriver
from pytest_dsh.driving.json_limits import MAX_JSON_DEPTH
from pytest_dsh.driving.replies import ModelReply, ToolRequest, reply_text
from pytest_dsh.errors import PluginLoadError
from pytest_dsh.fake_host.persistence import DurableStore, PersistenceRejectedError

from .conftest import START_MS, nested


def _assert_host_argument_error(outcome: Any, fragment: str) -> None:
    assert outcome.is_error, outcome
    assert outcome.value is None
    assert outcome.error == outcome.text
    assert outcome.text.startswith("invalid arguments: "), outcome.text
    assert fragment in outcome.text, outcome.text
    assert len(outcome.text) < 1000


def _schedule_still_works(agent: Any) -> None:
    created = agent.call_tool("schedule_create", {"prompt": "after", "after_seconds": 60})
    assert not created.is_error
    assert created.value["state"] == "scheduled", created.value


@pytest.mark.parametrize("field", ["prompt", "after_seconds"])
def test_an_integer_beyond_a_json_number_is_a_host_argument_error(any_host, field):
    any_host.load_plugin("schedule")
    agent = any_host.create_agent()
    arguments: dict[str, Any] = {"prompt": "tea", "after_seconds": 60}
    arguments[field] = 10**5000
    _assert_host_argument_error(
        agent.call_tool("schedule_create", arguments), f"{field}: integer of about"
    )
    assert agent.events() == []
    _schedule_still_works(agent)


def test_arguments_nested_500_deep_are_a_host_argument_error(any_host):
    any_host.load_plugin("schedule")
    agent = any_host.create_agent()
    outcome = agent.call_tool(
        "schedule_create", {"prompt": "tea", "after_seconds": 60, "extra": nested(500)}
    )
    _assert_host_argument_error(outcome, f"nested deeper than {MAX_JSON_DEPTH} levels")
    assert agent.events() == []
    _schedule_still_works(agent)


def test_arguments_at_the_depth_limit_reach_the_schema_check(any_host):
    # One level inside the limit: the host's own schema check answers, so the
    # limit does not hide ordinary validation.
    any_host.load_plugin("schedule")
    agent = any_host.create_agent()
    outcome = agent.call_tool(
        "schedule_create", {"prompt": nested(MAX_JSON_DEPTH - 1), "after_seconds": 60}
    )
    assert outcome.is_error
    assert "nested deeper" not in outcome.text


def test_model_sent_deep_arguments_leave_the_store_and_later_calls_sound(any_host):
    any_host.load_plugin("schedule")
    agent = any_host.create_agent(session_id="deep")
    deep_call = ToolRequest(
        "schedule_create", {"prompt": "tea", "after_seconds": 60, "extra": nested(500)}
    )
    agent.script(ModelReply(tool_calls=(deep_call,)), reply_text("done"))
    agent.prompt("remind me")
    # The host refused the arguments or the plugin answered them: either way
    # the call got its one result and the turn completed.
    assert [event["type"] for event in agent.events()].count("tool/result") == 1
    assert agent.events()[-1]["type"] == "turn/end"

    # Nothing is left poisoned: a later create is stored, and its flush makes
    # the whole log, deep call included, durable.
    _schedule_still_works(agent)
    assert any_host.flushes[-1].outcome == "durable"
    assert any_host.durable_events("deep") == agent.events()


@pytest.mark.parametrize("depth", [350, 400, 450, 5000])
def test_a_time_context_config_nested_deep_is_a_plugin_load_error(any_host, depth):
    with pytest.raises(PluginLoadError) as raised:
        any_host.load_plugin("time-context", {"timeZone": nested(depth)})
    assert raised.value.plugin == "time-context"
    assert f"nested deeper than {MAX_JSON_DEPTH} levels" in raised.value.message
    # The refused load left nothing behind: the same plugin loads cleanly.
    any_host.load_plugin("time-context", {"timeZone": "Europe/Paris"})


def _fake_host(host: HostDriver) -> Any:
    return host.host  # type: ignore[attr-defined]


class _RefusingStore:
    """A store whose backend fails while persisting (a full disk, say)."""

    def __init__(self, inner: DurableStore) -> None:
        self.inner = inner

    def persist(self, header: Any, events: Any) -> None:
        raise PersistenceRejectedError("the disk is full")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_flush_the_store_refuses_is_not_recorded_durable():
    host = REFERENCE.open_host(start_ms=START_MS)
    try:
        host.load_plugin("schedule")
        agent = host.create_agent(session_id="s")
        agent.call_tool("schedule_create", {"prompt": "tea", "after_seconds": 60})
        durable_before = host.durable_events("s")
        fake = _fake_host(host)
        fake.store = _RefusingStore(fake.store)

        assert host.flush_session(agent) is False
        assert host.flushes[-1].outcome == "rejected"
        # The plugin's own flush is refused the same way: its value says so.
        outcome = agent.call_tool("schedule_create", {"prompt": "more", "after_seconds": 60})
        assert outcome.value["code"] == "persistence_uncertain"
        assert host.flushes[-1].outcome == "rejected"
        assert host.durable_events("s") == durable_before

        fake.store = fake.store.inner
        assert host.flush_session(agent) is True
        assert host.durable_events("s") == agent.events()
    finally:
        host.close()


def test_the_store_persists_all_or_nothing():
    store = DurableStore()
    header: Any = {"id": "s"}
    good: Any = {"type": "x", "seq": 0, "time": 0, "data": {}}
    store.persist(header, [good])
    unserialisable: Any = {"type": "x", "seq": 1, "time": 0, "data": {"v": object()}}
    too_deep: Any = {"type": "x", "seq": 2, "time": 0, "data": nested(200_000)}
    for bad in (unserialisable, too_deep):
        with pytest.raises(PersistenceRejectedError, match="cannot serialise"):
            store.persist(header, [good, {**good, "seq": 1}, bad])
        assert store.load("s") == (header, [good])


def test_the_store_keeps_text_not_the_callers_objects():
    store = DurableStore()
    event: Any = {"type": "x", "seq": 0, "time": 0, "data": {"list": [1]}}
    store.persist({"id": "s"}, [event])
    event["data"]["list"].append(2)
    assert store.load("s")[1][0]["data"] == {"list": [1]}


@pytest.mark.parametrize("depth", [1000, 100_000])
def test_a_model_call_nested_beyond_what_a_log_holds_still_completes_its_turn(any_host, depth):
    # The driver sends a scripted call as the text a model sends, at any
    # depth. The deep value sits in a declared field, so each host's own
    # argument check refuses it (the fake host for its depth, the official one
    # for the schema: it parses any depth) and the turn goes on to its end.
    any_host.load_plugin("schedule")
    agent = any_host.create_agent(session_id="deep")
    deep_call = ToolRequest("schedule_create", {"prompt": nested(depth), "after_seconds": 60})
    agent.script(ModelReply(tool_calls=(deep_call,)), reply_text("done"))
    agent.prompt("remind me")
    assert any_host.errors == []
    events = agent.events()
    watched = ("tool/call", "tool/result", "step/end", "turn/end")
    turn = [e["type"] for e in events if e["type"] in watched]
    assert turn == ["tool/call", "tool/result", "step/end", "step/end", "turn/end"]
    assert events[-1]["type"] == "turn/end"
    assert events[-1]["data"]["reason"]["kind"] == "completed"
    content, is_error = tool_result(next(e["data"] for e in events if e["type"] == "tool/result"))
    assert is_error is True
    assert "invalid arguments: " in content[0]["text"], content
    _schedule_still_works(agent)
    assert any_host.durable_events("deep") == agent.events()


@pytest.mark.parametrize("depth", [1000, 100_000])
def test_the_fake_host_logs_a_call_too_deep_for_its_log_with_empty_arguments(depth):
    # Fake host only: a call its log cannot hold is logged with {} as its
    # arguments and answered with the depth error. (The official host logs the
    # model's text and, parsing any depth, hands an undeclared deep key to the
    # plugin, which answers it: docs/reliability.md.)
    host = REFERENCE.open_host(start_ms=START_MS)
    try:
        host.load_plugin("schedule")
        agent = host.create_agent(session_id="deep")
        deep_call = ToolRequest(
            "schedule_create", {"prompt": "tea", "after_seconds": 60, "extra": nested(depth)}
        )
        agent.script(ModelReply(tool_calls=(deep_call,)), reply_text("done"))
        agent.prompt("remind me")
        assert host.errors == []
        types = [event["type"] for event in agent.events()]
        assert types[-3:] == ["assistant/message", "step/end", "turn/end"]
        results = [event["data"] for event in agent.events() if event["type"] == "tool/result"]
        assert len(results) == 1 and results[0]["isError"] is True
        assert "nested deeper than" in results[0]["content"][0]["text"]
        calls = [event["data"] for event in agent.events() if event["type"] == "tool/call"]
        assert calls[0]["arguments"] == {}
        _schedule_still_works(agent)
        assert host.durable_events("deep") == agent.events()
    finally:
        host.close()


def test_repeated_and_incremental_persists_store_what_one_full_persist_stores():
    # A flush with nothing new returns at once: what is durable must be what a
    # fresh store holds after persisting the same log in one go.
    header = freeze_event({"id": "s", "cwd": "/"})
    log = [freeze_event({"type": "x", "seq": seq, "time": seq, "data": {"n": [seq]}})
           for seq in range(5)]
    incremental = DurableStore()
    for length in (0, 0, 2, 2, 2, 5, 5):
        incremental.persist(header, log[:length])
    full = DurableStore()
    full.persist(header, log)
    assert incremental.load("s") == full.load("s")
    # Another header object with the same id is still compared, not trusted.
    renamed = freeze_event({"id": "s", "cwd": "/elsewhere"})
    incremental.persist(renamed, log)
    assert incremental.load("s")[0] == {"id": "s", "cwd": "/elsewhere"}
    assert incremental.load("s")[1] == full.load("s")[1]

"""The session log is shared, not copied, and nobody can edit it.

The fake host keeps each appended event as one read-only snapshot that the
session, the durable store and every reader share (pytest_dsh.contract.frozen_json).
These tests pin what that must never weaken: DSH's log is append-only (the
plugin READMEs' "the session event log is the single source of truth"), so a
reader that tries to change an event, its data, or the log itself fails and
changes nothing, in the live log and in the durable copy; a test's own copy
stays a plain, mutable deep copy; what the store keeps is the event's exact JSON.
"""

from __future__ import annotations

import copy
import json
import math
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from pytest_dsh import FakeHost
from pytest_dsh.contract import AppendRejectedError
from pytest_dsh.contract.frozen_json import (
    FrozenDict,
    FrozenList,
    event_text,
    freeze,
    strict_json,
)
from pytest_dsh.fake_host.session import LogWithCandidate


def _append_some(host: FakeHost):
    agent = host.create_agent()
    agent.session.append("note", {"items": [1, {"deep": ["x"]}], "text": "é"})
    agent.inject({"content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}})
    return agent


EDITS: dict[str, Callable[[Any], object]] = {
    "set a field": lambda e: e.__setitem__("type", "other"),
    "delete a field": lambda e: e.__delitem__("seq"),
    "update": lambda e: e.update(seq=9),
    "merge in place": lambda e: e.__ior__({"seq": 9}),
    "setdefault": lambda e: e.setdefault("extra", 1),
    "pop": lambda e: e.pop("data"),
    "popitem": lambda e: e.popitem(),
    "clear": lambda e: e.clear(),
    "re-initialise": lambda e: e.__init__({"seq": 9}),
    "set the data's field": lambda e: e["data"].__setitem__("items", []),
    "append to a list": lambda e: e["data"]["items"].append(2),
    "extend a list": lambda e: e["data"]["items"].extend([2]),
    "add to a list in place": lambda e: e["data"]["items"].__iadd__([2]),
    "replace a list item": lambda e: e["data"]["items"].__setitem__(0, 5),
    "delete a list item": lambda e: e["data"]["items"].__delitem__(0),
    "sort a list": lambda e: e["data"]["items"].sort(key=str),
    "reverse a list": lambda e: e["data"]["items"].reverse(),
    "insert into a list": lambda e: e["data"]["items"].insert(0, 1),
    "pop from a list": lambda e: e["data"]["items"].pop(),
    "remove from a list": lambda e: e["data"]["items"].remove(1),
    "clear a list": lambda e: e["data"]["items"].clear(),
    "re-initialise a list": lambda e: e["data"]["items"].__init__([]),
    "edit a nested object": lambda e: e["data"]["items"][1].__setitem__("deep", None),
    "edit a nested list": lambda e: e["data"]["items"][1]["deep"].append("y"),
    "set an attribute": lambda e: setattr(e, "_text", '{"forged":true}'),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_reader_cannot_edit_the_log(host: FakeHost, edit: str) -> None:
    agent = _append_some(host)
    assert host.flush_session(agent)
    before = agent.session.snapshot()
    durable_before = host.durable_events(agent.session.id)
    with pytest.raises((TypeError, AttributeError)):
        EDITS[edit](agent.session.events[0])
    assert agent.session.snapshot() == before
    assert agent.session.events[0]["data"]["items"] == [1, {"deep": ["x"]}]
    assert host.flush_session(agent)
    assert host.durable_events(agent.session.id) == durable_before == before


def test_every_event_and_the_header_are_read_only(host: FakeHost) -> None:
    agent = _append_some(host)
    for event in agent.session.events:
        assert isinstance(event, dict) and isinstance(event, FrozenDict)
        with pytest.raises(TypeError):
            event["seq"] = 0  # type: ignore[index]
    with pytest.raises(TypeError):
        agent.session.header["id"] = "other"  # type: ignore[index]
    assert agent.session.header == {"id": agent.session.id}


def test_seeded_and_resumed_logs_are_read_only_too(host: FakeHost) -> None:
    seed = [{"type": "note", "seq": 0, "time": 0, "data": {"items": [1]}}]
    agent = host.create_agent(seed=seed)
    seed[0]["data"]["items"].append(2)  # the caller's list is not the log's
    assert agent.session.events[0]["data"] == {"items": [1]}
    with pytest.raises(TypeError):
        agent.session.events[0]["data"]["items"].append(3)
    assert host.flush_session(agent)
    host.crash()
    resumed = host.resume(agent.session.id)
    assert resumed.session.events == [{"type": "note", "seq": 0, "time": 0,
                                       "data": {"items": [1]}}]
    with pytest.raises(TypeError):
        resumed.session.events[0]["data"]["items"].append(3)


def test_a_corrupt_seed_is_kept_as_given(host: FakeHost) -> None:
    # Seeds may be corrupt on purpose (the suite's corrupt-log corpus).
    seed: list[Any] = ["not an event", {"type": "x", "seq": 1, "time": 0, "data": {1: "a"}},
                       {"type": "x", "seq": 2, "time": 0, "data": math.nan}]
    agent = host.create_agent(seed=seed)
    events = agent.session.events
    assert events[0] == "not an event"
    assert events[1]["data"] == {1: "a"}
    assert math.isnan(events[2]["data"])


def test_copies_a_test_takes_are_plain_and_mutable(host: FakeHost) -> None:
    agent = _append_some(host)
    event = agent.session.events[0]
    assert host.flush_session(agent)
    durable = host.durable_events(agent.session.id)[0]
    unpickled = pickle.loads(pickle.dumps(event))
    for copied in (copy.deepcopy(event), agent.session.snapshot()[0], unpickled, durable):
        assert copied == event
    deep = copy.deepcopy(event)
    assert type(deep) is dict and type(deep["data"]["items"]) is list
    deep["data"]["items"].append(2)
    shallow = copy.copy(event)
    assert type(shallow) is dict
    shallow["seq"] = 99
    snapshot = agent.session.snapshot()
    snapshot[0]["data"]["items"].clear()
    assert agent.session.events[0]["data"]["items"] == [1, {"deep": ["x"]}]


def test_the_store_keeps_each_events_exact_json(host: FakeHost) -> None:
    agent = _append_some(host)
    agent.session.append("note", {"t": (1, 2), "k": {1: "one"}})  # normalised by parts
    agent.session.append("user/message", [1, None], surfaceOp={"op": "replace", "start": 0,
                         "end": 1}, sourceEventSeqs=(0, 1))
    for event in agent.session.events:
        assert event_text(event) == json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    assert host.flush_session(agent)
    assert host.durable_events(agent.session.id) == agent.session.snapshot()


def test_data_shared_from_the_log_is_reused_not_copied(host: FakeHost) -> None:
    agent = _append_some(host)
    items = agent.session.events[0]["data"]["items"]
    appended = agent.session.append("note", {"again": items})
    assert appended["data"]["again"] is items  # read-only, so sharing is safe
    assert event_text(appended) is not None and '"again":[1,{"deep":["x"]}]' in (
        event_text(appended) or "")


@pytest.mark.parametrize(
    "data", [{"bad": object()}, {"n": math.nan}, {"n": math.inf}, [{1, 2}], {"deep": []}]
)
def test_data_that_is_not_json_is_refused_and_appends_nothing(host: FakeHost, data: Any) -> None:
    agent = host.create_agent()
    if data == {"deep": []}:
        nested: Any = []
        for _ in range(100_000):
            nested = [nested]
        data = {"deep": nested}
    with pytest.raises(AppendRejectedError, match="not JSON"):
        agent.session.append("note", data)
    assert len(agent.session.events) == 0


def test_data_is_normalised_as_a_json_round_trip_would(host: FakeHost) -> None:
    agent = host.create_agent()
    event = agent.session.append("note", {"t": (1, 2), "k": {1: "one", None: "n"}})
    assert event["data"] == {"t": [1, 2], "k": {"1": "one", "null": "n"}}
    assert isinstance(event["data"]["t"], FrozenList)


def test_an_envelope_value_that_is_not_json_fails_the_flush_not_the_append(
    host: FakeHost,
) -> None:
    agent = host.create_agent()
    agent.session.append("user/message", {"content": []}, surfaceOp={"bad": object()})
    assert not host.flush_session(agent)
    assert host.flushes[-1].outcome == "rejected"


def test_freeze_copies_plain_values() -> None:
    value = {"a": [1, {"b": 2}]}
    frozen = freeze(value)
    value["a"].append(3)  # type: ignore[attr-defined]
    assert frozen == {"a": [1, {"b": 2}]}


@pytest.mark.parametrize(
    "index",
    [0, 2, 3, -1, -4, slice(None), slice(1, None), slice(2, 4), slice(3, 4), slice(4, 9),
     slice(None, None, 2), slice(None, None, -1), slice(-2, None)],
)
def test_the_log_with_a_candidate_reads_like_a_list(index: Any) -> None:
    log = ({"seq": 0}, {"seq": 1}, {"seq": 2})
    candidate = {"seq": 3}
    view = LogWithCandidate(log, candidate)  # type: ignore[arg-type]
    expected = [*log, candidate][index]
    got = view[index]
    assert (list(got) if isinstance(index, slice) else got) == expected
    assert len(view) == 4
    with pytest.raises(IndexError):
        view[4]


def test_data_that_contains_itself_is_refused_as_circular(host: FakeHost) -> None:
    # The fast encoder keeps no circular-reference markers: a value that
    # contains itself must still be refused with json's own reason.
    agent = host.create_agent()
    looped: dict[str, Any] = {"n": 1}
    looped["self"] = looped
    with pytest.raises(AppendRejectedError, match="Circular reference detected"):
        agent.session.append("note", {"loop": looped})
    assert len(agent.session.events) == 0
    with pytest.raises(ValueError, match="Circular reference detected"):
        strict_json([looped])


@pytest.mark.parametrize(
    "value",
    [None, True, 0, -1.5, 2**70, "é\u2028\"\\\n", [], {}, [1, [2, [3]]],
     {"a": {"b": [None, False, {"c": "d"}]}, "e": (1, 2)}, {1: "one", None: "n", 2.5: "x"}],
)
def test_strict_json_gives_what_json_dumps_gives(value: Any) -> None:
    assert strict_json(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize(
    "data",
    [{"turn": 1, "step": 2}, {"content": [{"type": "text", "text": "x"}], "source": {"k": "v"}},
     [1, {"a": [2, {"b": ()}]}], "text", 3, None, {"t": (1, (2, 3))}],
)
def test_a_built_event_equals_a_json_round_trip_of_its_fields(host: FakeHost, data: Any) -> None:
    agent = host.create_agent()
    event = agent.session.append("note", data, surfaceOp="append")
    fields = {"type": "note", "seq": 0, "time": event["time"], "data": data, "surfaceOp": "append"}
    text = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
    assert event_text(event) == text
    assert event == json.loads(text)

    def frozen_all_through(value: Any) -> bool:
        if isinstance(value, dict):
            return isinstance(value, FrozenDict) and all(map(frozen_all_through, value.values()))
        if isinstance(value, list):
            return isinstance(value, FrozenList) and all(map(frozen_all_through, value))
        return True

    assert frozen_all_through(event)


def test_a_log_view_reads_backwards_as_a_list_would(host: FakeHost) -> None:
    # reversed() of the view walks the list's own reverse iterator, skipping
    # what was appended after the view was taken.
    agent = host.create_agent()
    assert list(reversed(agent.session.log)) == []
    for n in range(4):
        agent.session.append("note", {"n": n})
    view = agent.session.log
    backwards = reversed(view)
    agent.session.append("note", {"n": 4})
    assert [event["data"]["n"] for event in backwards] == [3, 2, 1, 0]
    assert list(reversed(view)) == list(view)[::-1]
    assert [event["data"]["n"] for event in reversed(agent.session.log)] == [4, 3, 2, 1, 0]

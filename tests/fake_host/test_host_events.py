"""A turn's events, built frozen from their parts, are the events the general
append would store.

The fake host writes the data of ``turn/start``, the prompt, ``step/start``,
a text reply, ``step/end`` and ``turn/end`` itself (pytest_dsh.fake_host.host_events)
instead of encoding and walking each event. These tests hold every builder to
the general path: the same value, read-only, and exactly ``strict_json``'s
text of it; and an event appended with ``append_built`` is equal, text
included, to the one ``append`` stores for the same data.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_dsh import FakeHost
from pytest_dsh.contract.frozen_json import FrozenDict, event_text, strict_json, thaw
from pytest_dsh.fake_host import host_events

# Strings with what JSON escapes: quotes, backslashes, controls, lone surrogates.
texts = st.text(
    alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF)
    | st.sampled_from(['"', "\\", "\n", "\x00", "\x7f", "\u2028", "\ud800", "\udfff", "é"])
)
numbers = st.integers(min_value=0, max_value=2**70)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | texts
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
prompts = st.fixed_dictionaries({
    "content": st.lists(
        st.fixed_dictionaries({"type": st.just("text"), "text": texts}), min_size=1, max_size=3
    ),
    "source": st.fixed_dictionaries({"kind": texts}, optional={"extra": json_values}),
})


def _read_only_like(built: host_events.Built, plain: Any) -> None:
    data, text = built
    assert isinstance(data, FrozenDict)
    assert data == plain
    assert text == strict_json(data) == strict_json(plain)
    assert json.loads(text) == thaw(data)
    with pytest.raises(TypeError):
        data["turn"] = 0  # type: ignore[index]


@given(numbers, numbers)
def test_step_data(turn: int, step: int) -> None:
    _read_only_like(host_events.step_data(turn, step), {"turn": turn, "step": step})


@given(numbers, numbers, texts)
def test_assistant_text_data(turn: int, step: int, text: str) -> None:
    _read_only_like(
        host_events.assistant_text_data(turn, step, text),
        {"turn": turn, "step": step, "content": [{"type": "text", "text": text}]},
    )


@given(numbers, prompts)
def test_prompt_events(turn: int, prompt: dict[str, Any]) -> None:
    parts = host_events.prompt_parts(prompt)
    _read_only_like(
        host_events.turn_start_data(turn, parts),
        {"turn": turn, "trigger": {"kind": "message", "source": prompt["source"]}},
    )
    _read_only_like(
        host_events.user_message_data(parts),
        {"content": prompt["content"], "source": prompt["source"]},
    )


@given(numbers, texts, st.none() | texts)
def test_turn_end_data(turn: int, kind: str, message: str | None) -> None:
    reason: dict[str, Any] = {"kind": kind}
    if message is not None:
        reason["message"] = message
    built = host_events.turn_end_data(turn, host_events.reason_data(kind, message))
    _read_only_like(built, {"turn": turn, "reason": reason})


def test_a_prompt_that_is_not_json_is_refused_as_the_general_append_refuses_it() -> None:
    with pytest.raises(ValueError):
        host_events.prompt_parts({"content": [], "source": {"kind": "x", "n": float("nan")}})
    with pytest.raises(TypeError):
        host_events.step_data(True, 1)


@given(numbers, texts, st.booleans())
def test_append_built_stores_what_append_stores(turn: int, text: str, surface: bool) -> None:
    host = FakeHost()
    try:
        agent = host.create_agent()
        envelope = {"surfaceOp": "append"} if surface else {}
        built = host_events.assistant_text_data(turn, 1, text)
        plain = {"turn": turn, "step": 1, "content": [{"type": "text", "text": text}]}
        general = agent.session.append("assistant/message", plain, **envelope)
        own = agent.session.append_built("assistant/message", *built, surface=surface)
        assert dict(own) == {**general, "seq": general["seq"] + 1}
        assert event_text(own) == event_text(general).replace(
            f'"seq":{general["seq"]},', f'"seq":{own["seq"]},', 1
        )
        assert event_text(own) == strict_json(own)
        assert host.flush_session(agent)
        assert host.durable_events(agent.session.id)[-1] == thaw(own)
    finally:
        host.close()


def test_a_turn_logs_the_same_events_as_before() -> None:
    """The whole turn, as the general append wrote it (a fixed transcript)."""
    host = FakeHost()
    try:
        agent = host.create_agent()
        agent.queue_followup(
            {"content": [{"type": "text", "text": "hé \"x\""}], "source": {"kind": "user"}}
        )
        host.run_until_idle()
        texts_now = [event_text(event) for event in agent.session.log]
        assert texts_now == [
            '{"type":"turn/start","seq":0,"time":1767225600000,"data":{"turn":1,'
            '"trigger":{"kind":"message","source":{"kind":"user"}}}}',
            '{"type":"user/message","seq":1,"time":1767225600000,"data":{"content":'
            '[{"type":"text","text":"hé \\"x\\""}],"source":{"kind":"user"}},"surfaceOp":"append"}',
            '{"type":"step/start","seq":2,"time":1767225600000,"data":{"turn":1,"step":1}}',
            '{"type":"assistant/message","seq":3,"time":1767225600000,"data":{"turn":1,'
            '"step":1,"content":[{"type":"text","text":"ok"}]},"surfaceOp":"append"}',
            '{"type":"step/end","seq":4,"time":1767225600000,"data":{"turn":1,"step":1}}',
            '{"type":"turn/end","seq":5,"time":1767225600000,"data":{"turn":1,'
            '"reason":{"kind":"completed"}}}',
        ]
        assert texts_now == [strict_json(event) for event in agent.session.log]
    finally:
        host.close()

"""The data of the events a turn appends, built frozen with their JSON text.

A turn appends six events or more (``turn/start``, the prompt, ``step/start``,
the reply, ``step/end``, ``turn/end``) whose shapes the host fixes and whose
values are integers the host counted and strings it was handed. Building each
one through the general append (one strict encoding of the whole event, then a
walk that freezes its containers) cost about a third of a delivered reminder.
Here each data object is made read-only from its parts and its text written
from the same parts, the only encodings left being those of the strings and of
the prompt's own content and source (once per turn, shared by ``turn/start``
and the prompt's event). :meth:`FakeSession.append_built
<pytest_dsh.fake_host.session.FakeSession.append_built>` then adds the envelope.

Every builder returns ``(data, text)``, where ``text`` is exactly what
``strict_json(data)`` gives (``tests/fake_host/test_host_events.py`` holds them to
it). A value a builder cannot take as is (a prompt that is not plain JSON)
raises ``TypeError``/``ValueError``/``RecursionError`` as the general append
would, or is left to that append by its caller.
"""

from __future__ import annotations

from json.encoder import encode_basestring
from typing import Any, Final

from pytest_dsh.contract.frozen_json import (
    FrozenDict,
    freeze,
    frozen_array,
    frozen_object,
    strict_json,
)

__all__ = [
    "ABORTED",
    "COMPLETED",
    "Built",
    "PromptParts",
    "assistant_text_data",
    "prompt_parts",
    "reason_data",
    "step_data",
    "turn_end_data",
    "turn_start_data",
    "user_message_data",
]

#: An event's data, read-only, and its compact JSON text.
Built = tuple[FrozenDict, str]


def _quoted(text: str) -> str:
    return str(encode_basestring(text))


def _count(number: int) -> str:
    # Only exact integers reach here (JSON writes a bool as true/false).
    if type(number) is not int:
        raise TypeError(f"a turn or step number is an int, not {type(number).__name__}")
    return int.__repr__(number)


class PromptParts:
    """A prompt's content and source, each frozen once with its text."""

    __slots__ = ("content", "content_text", "source", "source_text")

    def __init__(self, content: Any, content_text: str, source: Any, source_text: str) -> None:
        self.content = content
        self.content_text = content_text
        self.source = source
        self.source_text = source_text


def prompt_parts(prompt: Any) -> PromptParts:
    """``prompt["content"]`` and ``prompt["source"]`` as the log keeps them
    (``TypeError``/``ValueError``/``RecursionError`` when they are not JSON)."""
    content, source = prompt["content"], prompt["source"]
    content_text, source_text = strict_json(content), strict_json(source)
    return PromptParts(
        freeze(content, content_text), content_text, freeze(source, source_text), source_text
    )


def turn_start_data(turn: int, prompt: PromptParts) -> Built:
    """``{"turn", "trigger": {"kind": "message", "source"}}``."""
    trigger = frozen_object({"kind": "message", "source": prompt.source})
    return (
        frozen_object({"turn": turn, "trigger": trigger}),
        f'{{"turn":{_count(turn)},"trigger":{{"kind":"message","source":{prompt.source_text}}}}}',
    )


def user_message_data(prompt: PromptParts) -> Built:
    """``{"content", "source"}`` of the prompt's ``user/message``."""
    return (
        frozen_object({"content": prompt.content, "source": prompt.source}),
        f'{{"content":{prompt.content_text},"source":{prompt.source_text}}}',
    )


def step_data(turn: int, step: int) -> Built:
    """``{"turn", "step"}`` of ``step/start`` and ``step/end``."""
    return (
        frozen_object({"turn": turn, "step": step}),
        f'{{"turn":{_count(turn)},"step":{_count(step)}}}',
    )


def assistant_text_data(turn: int, step: int, text: str) -> Built:
    """``{"turn", "step", "content": [{"type": "text", "text"}]}`` of a text reply."""
    if type(text) is not str:
        raise TypeError(f"a reply's text is a str, not {type(text).__name__}")
    block = frozen_object({"type": "text", "text": text})
    return (
        frozen_object({"turn": turn, "step": step, "content": frozen_array((block,))}),
        f'{{"turn":{_count(turn)},"step":{_count(step)},'
        f'"content":[{{"type":"text","text":{_quoted(text)}}}]}}',
    )


def _constant(kind: str) -> Built:
    return frozen_object({"kind": kind}), f'{{"kind":{_quoted(kind)}}}'


#: The reasons a turn ends for without a message.
COMPLETED: Final = _constant("completed")
ABORTED: Final = _constant("aborted")


def reason_data(kind: str, message: str | None = None) -> Built:
    """A turn's end reason: ``{"kind"}``, or ``{"kind", "message"}``."""
    if message is None:
        if kind == "completed":
            return COMPLETED
        return ABORTED if kind == "aborted" else _constant(kind)
    if type(message) is not str:
        raise TypeError(f"a reason's message is a str, not {type(message).__name__}")
    return (
        frozen_object({"kind": kind, "message": message}),
        f'{{"kind":{_quoted(kind)},"message":{_quoted(message)}}}',
    )


def turn_end_data(turn: int, reason: Built) -> Built:
    """``{"turn", "reason"}`` of ``turn/end``."""
    return (
        frozen_object({"turn": turn, "reason": reason[0]}),
        f'{{"turn":{_count(turn)},"reason":{reason[1]}}}',
    )

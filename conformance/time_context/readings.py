"""Driving turns and reading time-context readings out of what a host observed.

Readings are found by attribution (a ``user/message`` whose source names the
plugin); tests that pin the exact source object check it separately. Turns are
driven through the public driver only: scripted model replies whose
``thinking_s`` lets virtual time pass between the steps of one turn.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_dsh import AgentDriver, HostDriver, reply_text, reply_tools

__all__ = [
    "READING_SOURCE",
    "START_MS",
    "is_reading",
    "later_step_text",
    "parse_reading",
    "reading_events",
    "reading_texts",
    "run_turn",
    "seeded_turn",
    "step_one_text",
]

#: Wall clock of a default host: 2026-01-01T00:00:00.000Z.
START_MS = 1_767_225_600_000

#: The exact source of every reading.
READING_SOURCE: Mapping[str, str] = {"kind": "plugin", "plugin": "time-context"}

_READING = re.compile(
    r"Time sampled while preparing turn (?P<turn>\d+), step (?P<step>\d+): (?P<timestamp>\S+)\n"
    r"Elapsed since the preceding (?P<baseline>model-visible message|step context): "
    r"(?P<elapsed>.+)\."
)


def is_reading(event: Mapping[str, Any]) -> bool:
    """A ``user/message`` attributed to the time-context plugin."""
    if event.get("type") != "user/message":
        return False
    source = (event.get("data") or {}).get("source") or {}
    return source.get("kind") == "plugin" and source.get("plugin") == "time-context"


def reading_events(events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [event for event in events if is_reading(event)]


def reading_texts(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """The text of every reading in ``events`` (one text block each)."""
    return [
        "".join(block.get("text", "") for block in event["data"]["content"])
        for event in reading_events(events)
    ]


def parse_reading(text: str) -> dict[str, str]:
    """``turn``, ``step``, ``timestamp``, ``baseline`` and ``elapsed`` of a reading."""
    match = _READING.fullmatch(text)
    assert match is not None, f"not a two-line reading: {text!r}"
    return match.groupdict()


def step_one_text(turn: int, timestamp: str, elapsed: str) -> str:
    return (
        f"Time sampled while preparing turn {turn}, step 1: {timestamp}\n"
        f"Elapsed since the preceding model-visible message: {elapsed}."
    )


def later_step_text(turn: int, step: int, timestamp: str, elapsed: str) -> str:
    return (
        f"Time sampled while preparing turn {turn}, step {step}: {timestamp}\n"
        f"Elapsed since the preceding step context: {elapsed}."
    )


def run_turn(
    host: HostDriver, agent: AgentDriver, *step_ms: int, prompt: str = "hello"
) -> None:
    """Run one turn of ``len(step_ms) + 1`` steps to its end.

    Step ``k`` (for each entry of ``step_ms``) calls a tool after thinking for
    ``step_ms[k]`` milliseconds of virtual time, so step ``k + 1`` is prepared
    that much later; the final step answers with text at once. The tool is not
    registered: the host reports that as the tool result and the turn goes on.
    """
    replies = [reply_tools(("lookup", {}), thinking_s=ms / 1000) for ms in step_ms]
    agent.script(*replies, reply_text("done"))
    agent.prompt(prompt)
    for ms in step_ms:
        if ms:
            host.advance(ms / 1000)


def seeded_turn(
    turn: int, time_ms: int, *, first_seq: int = 0, reading: str | None = None
) -> list[dict[str, Any]]:
    """The events of one completed one-step turn, as a conforming host logs
    them, all at ``time_ms``: for seeding sessions "left by an earlier
    process". With ``reading`` the step was prepared with that reading."""
    prompt = {"content": [{"type": "text", "text": "earlier"}], "source": {"kind": "user"}}
    bodies: list[tuple[str, dict[str, Any]]] = [
        ("turn/start", {"turn": turn, "trigger": {"kind": "message", "source": {"kind": "user"}}}),
        ("user/message", prompt),
    ]
    if reading is not None:
        content = [{"type": "text", "text": reading}]
        bodies.append(("user/message", {"content": content, "source": dict(READING_SOURCE)}))
    bodies += [
        ("step/start", {"turn": turn, "step": 1}),
        ("assistant/message",
         {"turn": turn, "step": 1, "content": [{"type": "text", "text": "ok"}]}),
        ("step/end", {"turn": turn, "step": 1}),
        ("turn/end", {"turn": turn, "reason": {"kind": "completed"}}),
    ]
    events: list[dict[str, Any]] = []
    for offset, (kind, data) in enumerate(bodies):
        event: dict[str, Any] = {"type": kind, "seq": first_seq + offset, "time": time_ms,
                                 "data": data}
        if kind.endswith("/message"):
            event["surfaceOp"] = "append"
        events.append(event)
    return events

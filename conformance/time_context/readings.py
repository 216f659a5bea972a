"""Driving turns and reading time-context readings out of what a host observed.

Readings are found by attribution (a ``user/message`` whose source names the
plugin, the event type and source TC-016 states); tests that check the exact
source object do so separately. A reading's text is the text of all its blocks:
how many blocks hold the two lines is left open by the README. Turns are
driven through the public driver only: scripted model replies whose
``thinking_s`` lets virtual time pass between the steps of one turn.

Readme-level tests that need a reading the implementation did not append in the
test itself (the ``./invariant`` companion's inputs) take one the
implementation wrote (:func:`written_readings`) and edit only the parts the
README's templates fix literally (:func:`edited`), never a reading spelled the
official way.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dsh_conformance.expect import readme
from pytest_dsh import AgentDriver, HostDriver, reply_text, reply_tools

__all__ = [
    "READING_SOURCE",
    "START_MS",
    "edited",
    "expect_readings",
    "is_reading",
    "later_step_text",
    "parse_reading",
    "reading_events",
    "reading_texts",
    "run_turn",
    "seeded_turn",
    "step_one_text",
    "text_of",
    "written_readings",
]

#: Wall clock of a default host: 2026-01-01T00:00:00.000Z.
START_MS = 1_767_225_600_000

#: The exact source of every reading (TC-016 gives it literally).
READING_SOURCE: Mapping[str, str] = {"kind": "plugin", "plugin": "time-context"}

# The two template lines (TC-036..TC-039); the timestamp's arrangement is left open.
_READING = re.compile(
    r"Time sampled while preparing turn (?P<turn>\d+), step (?P<step>\d+): (?P<timestamp>.+)\n"
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


def text_of(event: Mapping[str, Any]) -> str:
    """The text of a message event: its text blocks, concatenated."""
    content = (event.get("data") or {}).get("content") or []
    return "".join(
        str(block.get("text", "")) for block in content
        if isinstance(block, Mapping) and block.get("type") == "text"
    )


def reading_texts(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """The text of every reading in ``events``."""
    return [text_of(event) for event in reading_events(events)]


def expect_readings(
    events: Sequence[Mapping[str, Any]], count: int, sentences: str, situation: str
) -> list[str]:
    """The texts of the readings in ``events``, of which ``situation`` needs
    exactly ``count``; otherwise the test fails saying so (not with an
    IndexError further on)."""
    texts = reading_texts(events)
    assert len(texts) == count, readme(
        sentences, f"{count} reading(s) {situation}; readings appended", texts)
    return texts


def parse_reading(text: str) -> dict[str, str]:
    """``turn``, ``step``, ``timestamp``, ``baseline`` and ``elapsed`` of a reading."""
    match = _READING.fullmatch(text)
    assert match is not None, readme(
        "TC-033, TC-036..TC-039", "every reading to be the two template lines 'Time sampled "
        "while preparing turn <turn>, step <step>: <timestamp>' and 'Elapsed since the "
        "preceding ...: <duration-or-unavailable>.'", text)
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


def written_readings(
    implementation: Any, *, start_ms: int = START_MS, zone: str = "UTC", steps: int = 1
) -> list[dict[str, Any]]:
    """The data of the readings the implementation itself appends in a fresh
    session for the ``steps`` steps of turn 1, all prepared at ``start_ms`` in
    ``zone`` (a host of their own, closed again)."""
    host = implementation.open_host(start_ms=start_ms)
    try:
        host.load_plugin("time-context", {"timeZone": zone})
        agent = host.create_agent()
        run_turn(host, agent, *[0] * (steps - 1))
        readings = reading_events(agent.events())
    finally:
        host.close()
    assert len(readings) == steps, readme(
        "TC-013, TC-033", f"a reading before each of the {steps} step(s) of a turn (the "
        "companion is probed with readings the implementation wrote itself); readings",
        [text_of(event) for event in readings])
    return [copy.deepcopy(dict(event["data"])) for event in readings]


def edited(data: Mapping[str, Any], edit: Callable[[str], str]) -> dict[str, Any]:
    """A copy of a reading's data with ``edit`` applied to the text of every text
    block; the edit must change something (the part it rewrites is one the
    README's templates fix, so a conforming reading has it)."""
    copied = copy.deepcopy(dict(data))
    before = [block.get("text") for block in copied.get("content", [])]
    for block in copied.get("content", []):
        if isinstance(block, dict) and block.get("type") == "text":
            block["text"] = edit(str(block.get("text", "")))
    after = [block.get("text") for block in copied.get("content", [])]
    assert after != before, readme(
        "TC-036..TC-039", "the reading to follow the README's template (the edit looks for a "
        "part the template fixes)", before)
    return copied

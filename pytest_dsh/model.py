"""The scripted model: each step of a turn answers from a script.

A reply is either text (the turn completes) or tool calls (the host runs them
and prepares another step). ``thinking_s`` makes the model take virtual time,
which keeps the agent busy, e.g. to test that maintenance is refused mid-turn.
With an empty script the model answers ``"ok"``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, final

from pytest_dsh.contract import SessionEvent
from pytest_dsh.session import derive_history

__all__ = ["ModelReply", "ScriptedModel", "ToolRequest", "reply_text", "reply_tools"]


@dataclass(frozen=True, slots=True)
class ToolRequest:
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ModelReply:
    text: str | None = None
    tool_calls: tuple[ToolRequest, ...] = field(default=())
    thinking_s: float = 0.0

    def __post_init__(self) -> None:
        if (self.text is None) == (not self.tool_calls):
            raise ValueError("a model reply is either text or tool calls")
        if self.thinking_s < 0:
            raise ValueError("thinking_s cannot be negative")


def reply_text(text: str, *, thinking_s: float = 0.0) -> ModelReply:
    """A reply that ends the turn with ``text``."""
    return ModelReply(text=text, thinking_s=thinking_s)


def reply_tools(*calls: tuple[str, Mapping[str, Any]], thinking_s: float = 0.0) -> ModelReply:
    """A reply that calls tools: ``reply_tools(("schedule_list", {}))``."""
    return ModelReply(
        tool_calls=tuple(ToolRequest(name, dict(args)) for name, args in calls),
        thinking_s=thinking_s,
    )


class _RawLog(Protocol):
    @property
    def log(self) -> Sequence[SessionEvent]: ...


@final
class ScriptedModel:
    """Replies in order; ``requests`` gives, per step, the seqs of the history
    events that step sent.

    A step records only the session and the raw log's length at that moment
    (O(1) per step): the raw log is append-only, so the history a step sent is
    the history of that prefix, derived when a test asks for it.
    """

    def __init__(self) -> None:
        self._script: deque[ModelReply] = deque()
        self._sent: list[tuple[_RawLog, int]] = []

    def record_request(self, session: _RawLog) -> None:
        """Note that a step sends ``session``'s current history to the model."""
        # The host's own read (never faulted): a failing plugin read is not the model's.
        self._sent.append((session, len(session.log)))

    @property
    def requests(self) -> list[list[int]]:
        """Per recorded step, the seqs of the history events it sent."""
        return [
            [event["seq"] for event in derive_history(session.log[:length])]
            for session, length in self._sent
        ]

    def extend(self, replies: Sequence[ModelReply]) -> None:
        self._script.extend(replies)

    def next_reply(self) -> ModelReply:
        return self._script.popleft() if self._script else reply_text("ok")

    @property
    def pending(self) -> int:
        return len(self._script)

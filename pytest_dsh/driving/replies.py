"""A scripted model's replies, as a test writes them for either host.

A reply is either text (the turn completes) or tool calls (the host runs them
and prepares another step); ``thinking_s`` makes the model take virtual time.
The fake host's :class:`~pytest_dsh.fake_host.model.ScriptedModel` and the Node
bridge's model read the same values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ModelReply", "ToolRequest", "reply_text", "reply_tools"]


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

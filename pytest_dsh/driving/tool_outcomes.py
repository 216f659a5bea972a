"""What a host reports of a tool call or a tool registration, on both hosts.

A :class:`ToolOutcome` is the host's answer to one call; ``is_error`` marks a
host-level failure, never a plugin's own error value. :func:`argument_error` is
the one check both drivers make before they copy or send a call's arguments,
so a value no host accepts is answered the same way in process and in Node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pytest_dsh.driving.json_limits import json_value_problem

__all__ = [
    "RegistrationState",
    "ToolOutcome",
    "ToolRegistration",
    "argument_error",
    "host_error",
]

#: What became of one registration: ``active`` (in the registry, its disposer
#: not called), ``refused`` (the name was taken: no disposer), ``disposed``
#: (its disposer ran), ``dropped`` (removed with its agent, disposer never called).
RegistrationState = Literal["active", "refused", "disposed", "dropped"]


@dataclass(frozen=True, slots=True)
class ToolRegistration:
    """One ``register`` call on an agent's tool registry, in call order.
    ``host_tool`` marks a tool the host itself registered (``preregister_tool``)."""

    name: str
    state: RegistrationState
    output_schema: dict[str, Any] | None = None
    host_tool: bool = False


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What the host reports for one tool call.

    ``is_error`` is true only for host-level failures (unknown tool, invalid
    arguments, a handler that raised, a value outside the output schema); plugin
    error *values* such as ``{"code": ...}`` are ordinary results.
    """

    is_error: bool
    value: Any
    text: str
    error: str | None = None


def argument_error(arguments: Any) -> ToolOutcome | None:
    """The host error for tool arguments no host accepts, or None.

    Drivers call it before they copy or send arguments, so a value that would
    break copying or serialisation is answered like any invalid argument.
    """
    problem = json_value_problem(arguments)
    return None if problem is None else host_error(f"invalid arguments: {problem}")


def host_error(message: str) -> ToolOutcome:
    """A host-level failure whose text and error are ``message``."""
    return ToolOutcome(is_error=True, value=None, text=message, error=message)

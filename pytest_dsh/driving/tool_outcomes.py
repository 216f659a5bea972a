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
    "ExecutionMode",
    "ExportShape",
    "RegistrationState",
    "ToolCallDescription",
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


#: How the host schedules a call among its sibling calls: ``exclusive`` (alone)
#: or ``parallel`` (the tool declared the call concurrency-safe).
ExecutionMode = Literal["exclusive", "parallel"]


@dataclass(frozen=True, slots=True)
class ToolCallDescription:
    """What the host would make of a pending call of a registered tool, from
    what the plugin registered: its execution mode, and the card a UI shows
    for it (the tool's ``presentCall``; None: the host's generic one)."""

    execution_mode: ExecutionMode
    card: dict[str, Any] | None


#: Where a module keeps its Cordis plugin: named exports with ``apply``, a
#: default export that is such an object or a plugin function, or none.
ExportForm = Literal["named-apply", "default-object", "default-function", "none"]


@dataclass(frozen=True, slots=True)
class ExportShape:
    """A plugin module's exports as a Cordis loader reads them
    (``host.export_shape``): where the plugin is, its declared ``name``
    (None when it declares none), the services it injects, whether it
    declares a ``Config`` schema, and every export name (sorted)."""

    form: ExportForm
    name: str | None
    inject: tuple[str, ...]
    has_config: bool
    exports: tuple[str, ...]


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

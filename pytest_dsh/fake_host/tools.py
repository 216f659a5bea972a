"""Tool registration and execution, as a DSH host does it.

Arguments are validated against the tool's JSON Schema (draft 2020-12) *before*
the handler runs; a violation is a host error (``invalid arguments: ...``), not a
plugin value. So is a value no schema check can safely walk (too deep, an
integer beyond a JSON number, not JSON at all: see :mod:`pytest_dsh.driving.json_limits`).
When the tool declares an output schema, the handler's value is validated too:
a plugin that returns a shape outside its own schema, or raises, produces a host
error the suite can see.

What a host reports of a call or a registration is shared by both hosts:
:mod:`pytest_dsh.driving.tool_outcomes` (its names are re-exported here).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast, final

import jsonschema

from pytest_dsh.contract import ToolDefinition
from pytest_dsh.contract.frozen_json import FrozenDict
from pytest_dsh.driving.json_limits import losslessly_serializable
from pytest_dsh.driving.tool_outcomes import (
    RegistrationState,
    ToolOutcome,
    ToolRegistration,
    argument_error,
    host_error,
)
from pytest_dsh.fake_host.schema_check import Check, Undecided, compile_check

if TYPE_CHECKING:
    from pytest_dsh.contract import Agent

__all__ = [
    "AbortSignal",
    "AgentToolRegistry",
    "ToolCallContext",
]

#: DSH's registry refuses a call whose arguments JSON cannot carry unchanged.
NOT_LOSSLESS = "tool execution arguments must be losslessly JSON-serializable"


@final
class AbortSignal:
    """A settable :class:`~pytest_dsh.contract.Signal`."""

    def __init__(self) -> None:
        self._aborted = False

    @property
    def aborted(self) -> bool:
        return self._aborted

    def abort(self) -> None:
        self._aborted = True


@dataclass(frozen=True, slots=True)
class ToolCallContext:
    agent: Agent
    signal: AbortSignal
    call_id: str


@dataclass(frozen=True, slots=True)
class _SchemaValidator:
    """``jsonschema``'s validator, and the fast check compiled from the same
    schema when it stays within the fast dialect (pytest_dsh.fake_host.schema_check)."""

    full: jsonschema.Draft202012Validator
    fast: Check | None


@functools.cache
def _checked_validator(schema_json: str) -> _SchemaValidator:
    # Checking a schema against the meta-schema is costly; agents register the
    # same schemas over and over, so each distinct schema is checked and
    # compiled once.
    schema = json.loads(schema_json)
    jsonschema.Draft202012Validator.check_schema(schema)
    return _SchemaValidator(jsonschema.Draft202012Validator(schema), compile_check(schema))


#: Read-only schemas (a plugin may share one frozen catalog between agents)
#: cannot change after registration, so their validator is found by identity,
#: without serialising the schema again. The schema is kept: its id stays valid.
_BY_IDENTITY: dict[int, tuple[Mapping[str, Any], _SchemaValidator]] = {}


def _validator(schema: Mapping[str, Any]) -> _SchemaValidator:
    if type(schema) is FrozenDict:
        known = _BY_IDENTITY.get(id(schema))
        if known is not None and known[0] is schema:
            return known[1]
        validator = _checked_validator(json.dumps(schema, sort_keys=True))
        if len(_BY_IDENTITY) < 256:  # a handful of catalogs; never a growing cache
            _BY_IDENTITY[id(schema)] = (schema, validator)
        return validator
    return _checked_validator(json.dumps(schema, sort_keys=True))


def _violations(validator: _SchemaValidator, instance: Any) -> list[str]:
    if validator.fast is not None:
        try:
            if validator.fast(instance):
                return []
        except (Undecided, RecursionError):
            pass
        # Invalid or undecided: jsonschema gives the verdict and the messages.
    return _full_violations(validator.full, instance)


def _full_violations(validator: jsonschema.Draft202012Validator, instance: Any) -> list[str]:
    try:
        if validator.is_valid(instance):
            return []
        messages = []
        for error in sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(part) for part in error.absolute_path) or "(root)"
            messages.append(f"{where}: {error.message}")
    except (RecursionError, ValueError, TypeError) as exc:
        # jsonschema renders the offending value into its message; a value it
        # cannot render is still a violation, reported without the value.
        return [f"(root): cannot be validated ({type(exc).__name__})"]
    return messages


@final
class AgentToolRegistry:
    """The tools registered on one agent."""

    def __init__(self) -> None:
        self._tools: dict[str, ToolDefinition] = {}
        self._validators: dict[str, tuple[_SchemaValidator, _SchemaValidator | None]] = {}
        # Every register call, refused ones included, for tests (registrations()).
        self._journal: list[ToolRegistration] = []

    def register(self, tool: ToolDefinition, *, host_tool: bool = False) -> Callable[[], None]:
        if tool.name in self._tools:
            output = None if tool.output_schema is None else copy.deepcopy(dict(tool.output_schema))
            self._journal.append(ToolRegistration(tool.name, "refused", output, host_tool))
            raise ValueError(f"tool {tool.name!r} is already registered on this agent")
        validators = (
            _validator(tool.parameters),
            None if tool.output_schema is None else _validator(tool.output_schema),
        )
        self._tools[tool.name] = tool
        self._validators[tool.name] = validators
        index = len(self._journal)
        # The compiled validator's schema is already a private parsed copy, shared
        # by every agent registering the same schema: registrations() copies it.
        output = None if validators[1] is None else cast(dict[str, Any], validators[1].full.schema)
        self._journal.append(ToolRegistration(tool.name, "active", output, host_tool))

        def dispose() -> None:
            if self._tools.get(tool.name) is tool:
                del self._tools[tool.name]
                del self._validators[tool.name]
            # Called at all, even after the agent dropped the tool: it ran.
            self._mark(index, "disposed")

        return dispose

    def _mark(self, index: int, state: RegistrationState) -> None:
        entry = self._journal[index]
        if entry.state == "active" or (entry.state == "dropped" and state == "disposed"):
            self._journal[index] = dataclasses.replace(entry, state=state)

    def registrations(self) -> list[ToolRegistration]:
        """Every registration attempt on this registry, in call order."""
        return [
            entry if entry.output_schema is None
            else dataclasses.replace(entry, output_schema=copy.deepcopy(entry.output_schema))
            for entry in self._journal
        ]

    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> ToolDefinition | None:
        return self._tools.get(name)

    def clear(self) -> None:
        """The agent stopped being live: its tools go without their disposers."""
        self._tools.clear()
        self._validators.clear()
        for index in range(len(self._journal)):
            self._mark(index, "dropped")

    async def execute(
        self,
        name: str,
        arguments: Any,
        call: ToolCallContext,
        *,
        vetted: bool = False,
        lossless: bool | None = None,
    ) -> ToolOutcome:
        """Run tool ``name`` as DSH's registry does. ``vetted``: the caller
        already had ``argument_error`` accept ``arguments`` (or a plain copy of
        them, which it judges alike), so it is not asked again. ``lossless``:
        the caller's answer of ``losslessly_serializable(arguments)``, when it
        has one (None: asked here)."""
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            return host_error(f"unknown tool {name!r} (registered: {known})")
        if not vetted:
            refused = argument_error(arguments)
            if refused is not None:
                return refused
        if not (losslessly_serializable(arguments) if lossless is None else lossless):
            # As DSH's registry: its lossless snapshot of the arguments fails first.
            return host_error(NOT_LOSSLESS)
        arguments_validator, output_validator = self._validators[name]
        problems = _violations(arguments_validator, arguments)
        if problems:
            return host_error("invalid arguments: " + "; ".join(problems))
        try:
            value = await tool.handler(arguments, call)
        except Exception as exc:  # the host contains it, and reports it
            return host_error(f"tool {name!r} raised {type(exc).__name__}: {exc}")
        if output_validator is not None:
            problems = _violations(output_validator, value)
            if problems:
                return host_error(
                    f"tool {name!r} returned a value outside its output schema: "
                    + "; ".join(problems)
                )
        try:
            text = tool.render(value)
        except Exception as exc:
            return host_error(f"tool {name!r} could not render its value: {exc}")
        return ToolOutcome(is_error=False, value=value, text=text)

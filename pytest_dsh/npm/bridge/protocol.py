"""The bridge protocol, declared once in ``protocol.json`` beside ``server.mjs``.

Both halves read the same file: the Node server refuses an op or a parameter
the file does not declare, and this side sends nothing it does not declare
(an undeclared op is a bug in the kit, :class:`UndeclaredOpError`). The
``protocol`` number travels in the bridge's greeting and in the ``hello``
request; halves that disagree stop with one :class:`BridgeProtocolError`.

Shapes are a small subset of JSON Schema (``type``, ``properties``,
``required``, ``items``, ``$ref`` into ``types``; ``{}`` is any value), checked
by :func:`shape_problem` where a test asks for it, not on every request.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_dsh.errors import DshKitError, ImplementationError

__all__ = [
    "PROTOCOL_FILE",
    "BridgeProtocol",
    "BridgeProtocolError",
    "OpSpec",
    "UndeclaredOpError",
    "kit_protocol",
    "load_protocol",
    "shape_problem",
]

#: The declaration's file name inside a bridge folder.
PROTOCOL_FILE: Final = "protocol.json"

_JSON_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
    "array": (list, tuple),
    "object": (dict,),
}


class BridgeProtocolError(ImplementationError):
    """The Node bridge and this kit do not speak the same protocol version."""


class UndeclaredOpError(DshKitError, TypeError):
    """The kit asked for an op, or passed a parameter, that ``protocol.json``
    does not declare: a programming error, caught before anything is sent."""


@dataclass(frozen=True, slots=True)
class OpSpec:
    """One declared op: its parameters, the required ones and its result's shape."""

    name: str
    params: Mapping[str, Any]
    required: frozenset[str]
    result: Mapping[str, Any]
    test_only: bool


@dataclass(frozen=True, slots=True)
class BridgeProtocol:
    """A parsed ``protocol.json``."""

    version: int
    ops: Mapping[str, OpSpec]
    #: Request fields any op may carry (``id``, ``op``, ``faults``, ``tz``, ...).
    envelope: frozenset[str]
    greeting: Mapping[str, Any]
    reply: Mapping[str, Any]
    types: Mapping[str, Any]

    def check_request(self, op: str, args: Mapping[str, Any]) -> None:
        """Raise :class:`UndeclaredOpError` unless ``op`` is declared, every
        argument is one of its parameters (or an envelope field) and every
        required parameter is there."""
        spec = self.ops.get(op)
        if spec is None:
            raise UndeclaredOpError(f"bridge op {op!r} is not declared in {PROTOCOL_FILE}")
        unknown = [name for name in args if name not in spec.params and name not in self.envelope]
        if unknown:
            raise UndeclaredOpError(
                f"bridge op {op!r} declares no parameter {', '.join(map(repr, sorted(unknown)))} "
                f"in {PROTOCOL_FILE}"
            )
        missing = spec.required.difference(args)
        if missing:
            raise UndeclaredOpError(
                f"bridge op {op!r} needs {', '.join(map(repr, sorted(missing)))} ({PROTOCOL_FILE})"
            )

    def check_greeting(self, greeting: Mapping[str, Any], where: str) -> None:
        """Raise :class:`BridgeProtocolError` unless the bridge's greeting
        announces this protocol's version."""
        theirs = greeting.get("protocol")
        if theirs == self.version and not isinstance(theirs, bool):
            return
        spoken = "no declared protocol" if theirs is None else f"protocol {theirs!r}"
        raise BridgeProtocolError(
            f"the Node bridge at {where} speaks {spoken}; this kit speaks protocol "
            f"{self.version} ({PROTOCOL_FILE}): the bridge folder comes from another "
            f"version of pytest-dsh. Point DSH_BRIDGE_DIR at this kit's bridge (or unset it "
            f"to let the kit install its own), or run `npm ci --prefix bridge` in the "
            f"checkout the kit was installed from"
        )

    def result_problem(self, op: str, value: Any) -> str | None:
        """Why ``value`` is not the declared result of ``op`` (None when it is)."""
        return shape_problem(value, self.ops[op].result, self.types)

    def sync_problem(self, sync: Any) -> str | None:
        """Why ``sync`` is not a declared reply's ``sync`` (None when it is)."""
        declared = self.reply.get("properties", {}).get("sync", {})
        return shape_problem(sync, declared, self.types, "sync")


def shape_problem(
    value: Any, schema: Mapping[str, Any], types: Mapping[str, Any], where: str = "$"
) -> str | None:
    """The first place where ``value`` departs from ``schema`` (None: it conforms)."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return shape_problem(value, types[ref.rsplit("/", 1)[-1]], types, where)
    wanted = schema.get("type")
    if wanted is not None:
        names = [wanted] if isinstance(wanted, str) else list(wanted)
        fits = any(
            isinstance(value, _JSON_TYPES[name])
            and not (isinstance(value, bool) and name in ("integer", "number"))
            and not (name == "integer" and isinstance(value, float) and not value.is_integer())
            for name in names
        )
        if not fits:
            return f"{where}: {type(value).__name__} is not {' or '.join(names)}"
    if isinstance(value, dict):
        for key in schema.get("required", ()):
            if key not in value:
                return f"{where}: {key!r} is missing"
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                problem = shape_problem(value[key], sub, types, f"{where}.{key}")
                if problem is not None:
                    return problem
    if isinstance(value, (list, tuple)) and "items" in schema:
        for index, item in enumerate(value):
            problem = shape_problem(item, schema["items"], types, f"{where}[{index}]")
            if problem is not None:
                return problem
    return None


def load_protocol(path: Path) -> BridgeProtocol:
    """Parse the declaration at ``path``."""
    raw = json.loads(path.read_text("utf-8"))
    ops = {
        name: OpSpec(
            name,
            dict(entry.get("params", {})),
            frozenset(entry.get("required", ())),
            dict(entry.get("result", {})),
            bool(entry.get("test_only", False)),
        )
        for name, entry in raw["ops"].items()
    }
    return BridgeProtocol(
        version=int(raw["protocol"]),
        ops=ops,
        envelope=frozenset(raw["request"]["envelope"]),
        greeting=raw["greeting"],
        reply=raw["reply"],
        types=raw.get("types", {}),
    )


@functools.cache
def kit_protocol() -> BridgeProtocol:
    """The protocol this kit speaks: the declaration shipped with its bridge."""
    from pytest_dsh.npm._install import bridge_source

    return load_protocol(bridge_source() / PROTOCOL_FILE)

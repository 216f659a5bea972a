"""JSON text both ways on the bridge channel, at any depth: written as
``JSON.stringify`` writes it, and read back deeper than ``json.loads`` goes.

A model sends a tool call's arguments as text, and the Node host parses that
text itself. The driver writes the text here, so a scripted call nested deeper
than Python's recursion limit (which ``json.dumps`` cannot walk) still reaches
the official host as the model would send it. What the host then does with it
is the host's business: its argument check answers, as it would for a model.

The other way, a plugin in Node may append or return a value nested deeper
than ``json.loads`` can read (about a thousand levels); :func:`parse` reads
the bridge's reply line with an explicit stack instead of failing.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import math
import re
from collections.abc import Callable
from typing import Any

__all__ = ["STRICT", "parse", "stringify"]

_dumps_string = json.encoder.encode_basestring_ascii
# The decoder's own string reader (escapes, surrogates); typeshed leaves it out.
_scan_string: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_NUMBER = json.scanner.NUMBER_RE
_WHITESPACE = re.compile(r"[ \t\n\r]*")
#: The literals ``json.loads`` accepts (it also reads the non-finite ones).
_LITERALS: dict[str, Any] = {
    "null": None, "true": True, "false": False,
    "NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf,
}


#: ``json.dumps(value, separators=(",", ":"), allow_nan=False)`` without building
#: an encoder per call (json.dumps builds one whenever an option is not its
#: default): the driver writes every event of a mirrored log through it.
_COMPACT = json.JSONEncoder(separators=(",", ":"), allow_nan=False)
#: ``json.dumps(value, allow_nan=False)``, likewise (each request's line).
STRICT = json.JSONEncoder(allow_nan=False)


def stringify(value: Any, *, revivable: bool = False) -> str:
    """``JSON.stringify(value)``: compact separators, a non-finite float as
    ``null`` (with ``revivable``, as ``{"$number": "NaN"}`` and the like, which
    the bridge revives as JS numbers). Shallow values take ``json.dumps``;
    deeper ones, or ones with a non-finite float, an explicit stack, so no
    depth is too deep."""
    try:
        return _COMPACT.encode(value)
    except (RecursionError, ValueError):
        return _stringify_iteratively(value, revivable)


def _non_finite(value: float, revivable: bool) -> str:
    if not revivable:
        return "null"
    spelled = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return f'{{"$number":"{spelled}"}}'


def _scalar(value: Any, revivable: bool) -> str:
    if value is None or value is True or value is False:
        return json.dumps(value)
    if isinstance(value, str):
        return str(_dumps_string(value))
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return float.__repr__(value) if math.isfinite(value) else _non_finite(value, revivable)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _stringify_iteratively(value: Any, revivable: bool) -> str:
    parts: list[str] = []
    # Each entry is a string to write, or a value still to encode.
    stack: list[tuple[bool, Any]] = [(False, value)]
    while stack:
        is_text, item = stack.pop()
        if is_text:
            parts.append(item)
        elif isinstance(item, dict):
            pending: list[tuple[bool, Any]] = [(True, "{")]
            for index, (key, member) in enumerate(item.items()):
                if not isinstance(key, str):
                    raise TypeError(f"keys must be str, not {type(key).__name__}")
                prefix = "," if index else ""
                pending += [(True, f"{prefix}{_dumps_string(key)}:"), (False, member)]
            pending.append((True, "}"))
            stack.extend(reversed(pending))
        elif isinstance(item, list | tuple):
            pending = [(True, "[")]
            for index, member in enumerate(item):
                if index:
                    pending.append((True, ","))
                pending.append((False, member))
            pending.append((True, "]"))
            stack.extend(reversed(pending))
        else:
            parts.append(_scalar(item, revivable))
    return "".join(parts)


def parse(text: str | bytes) -> Any:
    """``json.loads(text)``, at any depth: shallow text takes ``json.loads``;
    text nested deeper than its recursion goes is read with an explicit
    stack. Invalid text raises ``ValueError`` either way."""
    try:
        return json.loads(text)
    except RecursionError:
        return _parse_iteratively(text.decode("utf-8") if isinstance(text, bytes) else text)


def _skip(text: str, pos: int) -> int:
    match = _WHITESPACE.match(text, pos)
    return pos if match is None else match.end()


def _key(text: str, pos: int) -> tuple[str, int]:
    """A member's key and the position of its value."""
    if not text.startswith('"', pos):
        raise ValueError(f"expected a property name in double quotes at char {pos}")
    key, pos = _scan_string(text, pos + 1)
    pos = _skip(text, pos)
    if not text.startswith(":", pos):
        raise ValueError(f"expected ':' at char {pos}")
    return key, _skip(text, pos + 1)


def _scalar_at(text: str, pos: int) -> tuple[Any, int]:
    if text.startswith('"', pos):
        return _scan_string(text, pos + 1)
    for literal, value in _LITERALS.items():
        if text.startswith(literal, pos):
            return value, pos + len(literal)
    number = _NUMBER.match(text, pos)
    if number is None:
        raise ValueError(f"expected a value at char {pos}")
    integer, fraction, exponent = number.groups()
    if fraction or exponent:
        return float(integer + (fraction or "") + (exponent or "")), number.end()
    return int(integer), number.end()


def _parse_iteratively(text: str) -> Any:
    # Open containers, innermost last, each with the key its next value takes.
    open_: list[tuple[list[Any] | dict[str, Any], str]] = []
    pos = _skip(text, 0)
    while True:
        value: Any
        if text.startswith("{", pos):
            pos = _skip(text, pos + 1)
            if not text.startswith("}", pos):
                key, pos = _key(text, pos)
                open_.append(({}, key))
                continue
            value, pos = {}, pos + 1
        elif text.startswith("[", pos):
            pos = _skip(text, pos + 1)
            if not text.startswith("]", pos):
                open_.append(([], ""))
                continue
            value, pos = [], pos + 1
        else:
            value, pos = _scalar_at(text, pos)
        # Hand the value to its container; close every container that ends here.
        while True:
            pos = _skip(text, pos)
            if not open_:
                if pos != len(text):
                    raise ValueError(f"extra data at char {pos}")
                return value
            container, key = open_[-1]
            if isinstance(container, list):
                container.append(value)
            else:
                container[key] = value
            if text.startswith(",", pos):
                pos = _skip(text, pos + 1)
                if isinstance(container, dict):
                    key, pos = _key(text, pos)
                    open_[-1] = (container, key)
                break
            closer = "]" if isinstance(container, list) else "}"
            if not text.startswith(closer, pos):
                raise ValueError(f"expected ',' or {closer!r} at char {pos}")
            pos += 1
            open_.pop()
            value = container

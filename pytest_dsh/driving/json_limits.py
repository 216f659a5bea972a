"""What a host accepts as a JSON value from outside: tool arguments a model
sent, a plugin's config.

A model can send any JSON text, and Python can build values no JSON text
describes. Both hosts accept a value only when it is JSON-shaped and within two
limits, and refuse it with a host error otherwise, before any recursive code
(schema validation, copying, a plugin's own rendering) touches it:

- nesting at most :data:`MAX_JSON_DEPTH` levels: deep enough for anything the
  plugins' schemas describe (they need two), shallow enough that no recursive
  walk of the value can exhaust the interpreter's stack;
- integers within the range of a JSON number as DSH parses it (an IEEE double):
  a longer literal is ``Infinity`` in JavaScript and cannot even be printed by
  Python (``int`` to ``str`` is capped at 4,300 digits).

The check is iterative, so it is itself safe for any depth.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final, TypeVar

__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_JSON_INT_BITS",
    "json_copy",
    "json_value_problem",
    "losslessly_serializable",
]

T = TypeVar("T")

#: Deepest accepted nesting of arrays and objects (a scalar is depth 0).
MAX_JSON_DEPTH: Final = 64
#: Widest accepted integer: beyond it a double is infinite.
MAX_JSON_INT_BITS: Final = 1024


def json_value_problem(value: Any, *, max_depth: int = MAX_JSON_DEPTH) -> str | None:
    """Why ``value`` is not an acceptable JSON value, or None when it is.

    The message names the first offending place as a ``/``-separated path
    (``(root)`` for the value itself).
    """
    if _plainly_acceptable(value, max_depth):
        return None
    # Something is wrong (or unusual): walk again, building the path this time.
    return _first_problem(value, max_depth)


def _first_problem(value: Any, max_depth: int) -> str | None:
    pending: list[tuple[Any, tuple[str, ...], int]] = [(value, (), 0)]
    while pending:
        item, path, depth = pending.pop()
        if isinstance(item, dict):
            if depth >= max_depth:
                return f"{_where(path)}: nested deeper than {max_depth} levels"
            for key, child in item.items():
                if not isinstance(key, str):
                    return f"{_where(path)}: object key {type(key).__name__} is not a string"
                pending.append((child, (*path, key), depth + 1))
        elif isinstance(item, list | tuple):
            if depth >= max_depth:
                return f"{_where(path)}: nested deeper than {max_depth} levels"
            pending.extend(
                (child, (*path, str(index)), depth + 1) for index, child in enumerate(item)
            )
        elif isinstance(item, bool) or item is None or isinstance(item, str | float):
            continue
        elif isinstance(item, int):
            if item.bit_length() > MAX_JSON_INT_BITS:
                return (
                    f"{_where(path)}: integer of about {int(item.bit_length() * 0.30103)} "
                    "digits is beyond the range of a JSON number"
                )
        else:
            return f"{_where(path)}: {type(item).__name__} is not a JSON value"
    return None


_PLAIN_SCALARS: Final = frozenset({str, float, bool, type(None)})


def _plainly_acceptable(value: Any, max_depth: int) -> bool:
    """True when ``value`` is acceptable and built of plain types only; False
    means "look closer" (a problem, or a subclass the full walk judges). The
    common case, so it builds no path: one type test per element."""
    plain = _PLAIN_SCALARS
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        kind = type(item)
        if kind in plain:
            continue
        if kind is int:
            if item.bit_length() > MAX_JSON_INT_BITS:
                return False
            continue
        if kind is dict:
            for key in item:
                if type(key) is not str:
                    return False
            children = item.values()
        elif kind is list or kind is tuple:
            children = item
        else:
            return False
        if depth >= max_depth:
            return False
        for child in children:
            child_kind = type(child)
            if child_kind in plain:
                continue
            if child_kind is int:
                if child.bit_length() > MAX_JSON_INT_BITS:
                    return False
                continue
            pending.append((child, depth + 1))
    return True


def losslessly_serializable(value: Any) -> bool:
    """False when a JSON-shaped ``value`` holds a float JSON text cannot carry
    back unchanged: ``-0.0`` (written ``0``, read back as ``0``), ``NaN`` or
    an infinity. DSH's tool registry snapshots a call's arguments as lossless
    JSON before anything runs and refuses such a call; so does the fake host.
    Iterative, so safe for any depth."""
    pending: list[Any] = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is dict:
            pending.extend(item.values())
        elif kind is list or kind is tuple:
            pending.extend(item)
        elif isinstance(item, float) and (
            not math.isfinite(item) or (item == 0.0 and math.copysign(1.0, item) < 0)
        ):
            return False
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return True


def _where(path: tuple[str, ...]) -> str:
    # Keys come from the outside; keep a hostile key from flooding a message.
    text = "/".join(part if len(part) <= 40 else part[:37] + "..." for part in path)
    return text[-200:] if text else "(root)"


def json_copy(value: T) -> T:
    """A deep copy of a JSON value (a session's events) that, unlike
    :func:`copy.deepcopy`, copes with any nesting the log accepted."""
    copied: T = json.loads(json.dumps(value, ensure_ascii=False))
    return copied

"""JSON text as ``JSON.stringify`` writes it, for values of any depth.

A model sends a tool call's arguments as text, and the Node host parses that
text itself. The driver writes the text here, so a scripted call nested deeper
than Python's recursion limit (which ``json.dumps`` cannot walk) still reaches
the official host as the model would send it. What the host then does with it
is the host's business: its argument check answers, as it would for a model.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["stringify"]

_dumps_string = json.encoder.encode_basestring_ascii


def stringify(value: Any, *, revivable: bool = False) -> str:
    """``JSON.stringify(value)``: compact separators, a non-finite float as
    ``null`` (with ``revivable``, as ``{"$number": "NaN"}`` and the like, which
    the bridge revives as JS numbers). Shallow values take ``json.dumps``;
    deeper ones, or ones with a non-finite float, an explicit stack, so no
    depth is too deep."""
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
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

"""A direct tool call's arguments checked, copied and judged lossless in one walk.

Before the fake host runs a driver's ``call_tool`` it asks three things of
the arguments, each with a walk of its own: whether any host accepts them
(:func:`~pytest_dsh.driving.tool_outcomes.argument_error`), a copy the test
cannot change afterwards, and whether every float survives a JSON round trip
(DSH's registry refuses the call otherwise,
:func:`~pytest_dsh.driving.json_limits.losslessly_serializable`). Almost
every call passes plain dicts, lists and scalars, for which one walk answers
all three. Anything else (a subclass, a value shared or repeated inside the
arguments, nesting at the depth limit, an integer wider than a JSON number)
is left to the three walks, so that their answers and messages stay theirs.
"""

from __future__ import annotations

import math
from typing import Any, Final

from pytest_dsh.driving.json_limits import MAX_JSON_DEPTH, MAX_JSON_INT_BITS

__all__ = ["plain_copy"]

_ATOMS: Final = frozenset({str, bool, type(None)})


class _NotPlain(Exception):
    """The arguments need the three separate walks."""


def plain_copy(arguments: Any) -> tuple[Any, bool] | None:
    """``(copy, lossless)`` for arguments built of plain JSON types within the
    host's limits (``argument_error`` accepts them and the copy is exactly
    what ``copy.deepcopy`` makes), or None when they need the separate walks."""
    walk = _Walk()
    try:
        copied = walk.copy(arguments, 0)
    except (_NotPlain, RecursionError):
        return None
    return copied, walk.lossless


class _Walk:
    __slots__ = ("_seen", "lossless")

    def __init__(self) -> None:
        self.lossless = True
        # Ids of the containers already copied: one met twice is shared (or a
        # cycle), which copy.deepcopy keeps shared and the depth check judges
        # by its repetitions; both are the separate walks' to decide.
        self._seen: set[int] = set()

    def copy(self, value: Any, depth: int) -> Any:
        kind = type(value)
        if kind in _ATOMS:
            return value
        if kind is int:
            if value.bit_length() > MAX_JSON_INT_BITS:
                raise _NotPlain
            return value
        if kind is float:
            if not math.isfinite(value) or (value == 0.0 and math.copysign(1.0, value) < 0):
                self.lossless = False
            return value
        if kind is not dict and kind is not list:
            raise _NotPlain
        if depth >= MAX_JSON_DEPTH or id(value) in self._seen:
            raise _NotPlain
        self._seen.add(id(value))
        inner = depth + 1
        if kind is dict:
            copied: dict[Any, Any] = {}
            for key, item in value.items():
                if type(key) is not str:
                    raise _NotPlain
                copied[key] = item if type(item) in _ATOMS else self.copy(item, inner)
            return copied
        return [item if type(item) in _ATOMS else self.copy(item, inner) for item in value]

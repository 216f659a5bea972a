"""A value's repr with its sets in sorted order.

A set's repr lists its items in iteration order, which for strings follows
the interpreter's hash seed: a failure message that quotes an observed set
would read differently from one run of the same package to the next. This
repr sorts each set's items (by their own repr), inside lists, tuples and
dicts too; everything else is the value's own repr."""

from __future__ import annotations

from typing import Final

__all__ = ["stable_repr"]

#: Nesting this deep is quoted with the plain repr (its sets unsorted).
_MAX_DEPTH: Final = 50


def stable_repr(value: object, _depth: int = 0) -> str:
    """``repr(value)``, with every set's items sorted by repr."""
    if _depth > _MAX_DEPTH:
        return repr(value)
    inner = _depth + 1
    kind = type(value)
    if kind in (set, frozenset):
        assert isinstance(value, (set, frozenset))
        if not value:
            return f"{kind.__name__}()"
        items = ", ".join(sorted(stable_repr(item, inner) for item in value))
        return f"{{{items}}}" if kind is set else f"frozenset({{{items}}})"
    if kind is list:
        assert isinstance(value, list)
        return "[" + ", ".join(stable_repr(item, inner) for item in value) + "]"
    if kind is tuple:
        assert isinstance(value, tuple)
        if len(value) == 1:
            return f"({stable_repr(value[0], inner)},)"
        return "(" + ", ".join(stable_repr(item, inner) for item in value) + ")"
    if kind is dict:
        assert isinstance(value, dict)
        return "{" + ", ".join(
            f"{stable_repr(k, inner)}: {stable_repr(v, inner)}" for k, v in value.items()) + "}"
    return repr(value)

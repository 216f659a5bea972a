"""A value's repr with its sets in sorted order.

A set's repr lists its items in iteration order, which for strings follows
the interpreter's hash seed: a failure message that quotes an observed set
would read differently from one run of the same package to the next. This
repr sorts each set's items (by their own repr), inside lists, tuples and
dicts too, and inside the values that show their parts with Python's own
repr: subclasses of the four that keep their base's repr, dataclasses and
named tuples. A class with a repr of its own keeps it (it may show its parts
in any form, so they cannot be replaced); everything else is the value's own
repr."""

from __future__ import annotations

import dataclasses
from typing import Any, Final

__all__ = ["stable_repr"]

#: Nesting this deep is quoted with the plain repr (its sets unsorted).
_MAX_DEPTH: Final = 50


def stable_repr(value: object, _depth: int = 0) -> str:
    """``repr(value)``, with every set's items sorted by repr."""
    if _depth > _MAX_DEPTH:
        return repr(value)
    inner = _depth + 1
    kind = type(value)
    shown = kind.__repr__
    if shown is set.__repr__ or shown is frozenset.__repr__:
        assert isinstance(value, (set, frozenset))
        name = kind.__name__
        if not value:
            return f"{name}()"
        items = ", ".join(sorted(stable_repr(item, inner) for item in value))
        return f"{{{items}}}" if kind is set else f"{name}({{{items}}})"
    if shown is list.__repr__:
        assert isinstance(value, list)
        return "[" + ", ".join(stable_repr(item, inner) for item in value) + "]"
    if shown is tuple.__repr__:
        assert isinstance(value, tuple)
        if len(value) == 1:
            return f"({stable_repr(value[0], inner)},)"
        return "(" + ", ".join(stable_repr(item, inner) for item in value) + ")"
    if shown is dict.__repr__:
        assert isinstance(value, dict)
        return "{" + ", ".join(
            f"{stable_repr(k, inner)}: {stable_repr(v, inner)}" for k, v in value.items()) + "}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = [(field.name, getattr(value, field.name))
                  for field in dataclasses.fields(value) if field.repr]
        return _named_parts(value, kind.__qualname__, fields, inner)
    names = getattr(kind, "_fields", None)
    if isinstance(value, tuple) and isinstance(names, tuple):
        named = [(str(name), item) for name, item in zip(names, value, strict=False)]
        return _named_parts(value, kind.__name__, named, inner)
    return repr(value)


def _named_parts(value: object, name: str, parts: list[tuple[str, Any]], inner: int) -> str:
    """``name(field=part, ...)`` with each part's stable repr, when the value's
    own repr is exactly that form with plain reprs (a dataclass's or a named
    tuple's generated repr); the value's own repr otherwise."""
    text = repr(value)
    if text != f"{name}({', '.join(f'{field}={part!r}' for field, part in parts)})":
        return text
    return f"{name}({', '.join(f'{field}={stable_repr(part, inner)}' for field, part in parts)})"

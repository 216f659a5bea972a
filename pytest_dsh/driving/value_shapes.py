"""How a tool value's shape is named in a failure message.

A check that reads a value of another shape than it expects (an object
holding the records where an array of records is read) fails for that shape,
not for the requirement it tested. The suite's assertion messages
(``dsh_conformance.shapes``) and the report of a test that crashed reading such
a value (``pytest_plugin.reporting.raised``) name the shape with these
functions, so both say the same words. Conservative: a value is described
only when its shape alone explains the failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = ["json_kind", "records_wrapped"]

#: Keys that make an object a record, a delete value, an error value or a
#: message, not a wrapper around a list of records.
_VALUE_KEYS: Final = frozenset({"id", "code", "deleted", "type", "role", "source"})


def json_kind(value: object) -> str:
    """The JSON name of ``value``'s type: an object, an array, a string..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    return f"a {type(value).__name__}"


def records_wrapped(value: object) -> str | None:
    """``the list value is not an array of records: an object holding one
    under 'records'`` for an object that is no record, delete, error value or
    message and holds exactly one array, of objects with an ``id`` each (or
    nothing else but an empty array); ``None`` otherwise."""
    if not isinstance(value, Mapping) or _VALUE_KEYS & set(value):
        return None
    arrays = [key for key, item in value.items() if isinstance(item, (list, tuple))]
    if len(arrays) != 1:
        return None
    items = value[arrays[0]]
    if not items and len(value) != 1:
        return None
    if not all(isinstance(item, Mapping) and "id" in item for item in items):
        return None
    return f"the list value is not an array of records: an object holding one under {arrays[0]!r}"

"""Why an observed value does not meet a check, when the reason is its shape.

A value of another shape than the one a check reads (an object holding the
records where an array of records is read, the closed code under another key
than ``code``) fails the check, but the failure is about the shape, not about
the requirement the check happened to test. The failure message says so
(``..., but the list value is not an array of records; observed ...``), so that
it reads as what it is and all the failures of one shape are one cause in the
report, whatever sentence each check was about.

Used by :mod:`dsh_conformance.expect` for assertion messages and by the kit's
report for a test that crashed reading such a value. Conservative: a value is
diagnosed only when its shape alone explains the failure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from dsh_conformance.layout_free import CLOSED_CODES, NOT_FOUND_CODE

__all__ = ["code_elsewhere", "json_kind", "records_wrapped", "shape_problem"]

_CODES: Final = CLOSED_CODES | {NOT_FOUND_CODE}
_CODE_WORD: Final = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")

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


def code_elsewhere(requirement: str, value: object) -> str | None:
    """``the closed code is under 'failure', not 'code'`` when ``requirement``
    names one closed code, ``value`` has no ``code`` and holds that code under
    another key."""
    if not isinstance(value, Mapping) or "code" in value:
        return None
    named = {word for word in _CODE_WORD.findall(requirement) if word in _CODES}
    if len(named) != 1:
        return None
    keys = [key for key, item in value.items()
            if key != "code" and isinstance(item, str) and item in named]
    if not keys:
        return None
    return f"the closed code is under {keys[0]!r}, not 'code'"


def shape_problem(requirement: str, observed: object) -> str | None:
    """Why ``observed`` fails a check of ``requirement`` by its shape alone,
    or ``None``."""
    return code_elsewhere(requirement, observed) or records_wrapped(observed)

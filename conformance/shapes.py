"""Why an observed value does not meet a check, when the reason is its shape.

A value of another shape than the one a check reads (an object holding the
records where an array of records is read, the closed code under another key
than ``code``) fails the check, but the failure is about the shape, not about
the requirement the check happened to test. The failure message says so
(``..., but the list value is not an array of records; observed ...``), so that
it reads as what it is and all the failures of one shape are one cause in the
report, whatever sentence each check was about.

Used by :mod:`dsh_conformance.expect` for assertion messages. The names of
value shapes themselves (``records_wrapped``, ``json_kind``) are the kit's
:mod:`pytest_dsh.driving.value_shapes`, which the report of a crashed test uses
too. Conservative: a value is diagnosed only when its shape alone explains the
failure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from dsh_conformance.layout_free import CLOSED_CODES, NOT_FOUND_CODE
from pytest_dsh.driving.value_shapes import records_wrapped

__all__ = ["code_elsewhere", "shape_problem"]

_CODES: Final = CLOSED_CODES | {NOT_FOUND_CODE}
_CODE_WORD: Final = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")

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

"""Parse a rendered reading timestamp back to an instant, as ``Date.parse`` does.

The invariant re-reads ``YYYY-MM-DDTHH:MM:SS`` plus ``Z`` or ``±HH:MM`` (the
``[Zone]`` label stripped) with JavaScript's ISO date-time parser, whose
range checks are looser than a calendar's. Reproduced here:

=========================  ===========================================
field                      accepted
=========================  ===========================================
month                      01-12
day                        01-31 in every month; overflow rolls over
                           (``2026-02-30`` is March 2)
hour:minute:second         00-23, 00-59, 00-59; also ``24:00:00``
                           (midnight at the end of the day)
offset hour:minute         00-23, 00-59
=========================  ===========================================

Anything else is not a number (``None`` here).
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["parse_rendered_timestamp"]

_SHAPE: Final = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:(Z)|([+-])(\d{2}):(\d{2}))",
    re.ASCII,
)


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (day may overflow)."""
    shifted = year - (1 if month <= 2 else 0)
    era = shifted // 400
    year_of_era = shifted - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468 + (day - 1)


def parse_rendered_timestamp(text: str) -> int | None:
    """Epoch ms of ``text``, or ``None`` where ``Date.parse`` gives ``NaN``."""
    match = _SHAPE.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(match[i]) for i in range(1, 7))
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    if not (hour <= 23 and minute <= 59 and second <= 59) and (hour, minute, second) != (
        24,
        0,
        0,
    ):
        return None
    offset_ms = 0
    if match[7] is None:
        offset_hour, offset_minute = int(match[9]), int(match[10])
        if offset_hour > 23 or offset_minute > 59:
            return None
        offset_ms = (offset_hour * 60 + offset_minute) * 60_000
        if match[8] == "-":
            offset_ms = -offset_ms
    local_ms = (
        _days_from_civil(year, month, day) * 86_400_000
        + ((hour * 60 + minute) * 60 + second) * 1000
    )
    return local_ms - offset_ms

"""Positive-interval scheduling: is a new reading due at ``now``?

State lives only in the raw log. ``last`` is the durable append time of the
newest reading in the session, in any turn, shadowed by compaction or not, left
by this process or an earlier one, from a committed or a failed attempt.

A reading is due when any row of this table holds (interval 0 means always):

===========================  ==========
condition                    due
===========================  ==========
``interval == 0``            yes
no earlier reading           yes
``now < last`` (clock back)  yes
``now - last >= interval``   yes
otherwise                    suppressed
===========================  ==========

The boundary is inclusive: exactly ``interval`` ms after ``last`` is due.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .reading import is_reading

__all__ = ["latest_reading_time_ms", "reading_due"]


def latest_reading_time_ms(events: Sequence[Mapping[str, Any]]) -> int | None:
    """Durable time of the newest reading in the raw log, or ``None``."""
    for event in reversed(events):
        if is_reading(event):
            return int(event["time"])
    return None


def reading_due(now_ms: int, last_ms: int | None, interval_ms: int) -> bool:
    """Apply the table above."""
    if interval_ms == 0 or last_ms is None or now_ms < last_ms:
        return True
    return now_ms - last_ms >= interval_ms

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
from typing import Any, final

from dsh_reference.log_cursor import LogCursor

from .reading import is_reading

__all__ = ["LatestReading", "latest_reading_time_ms", "reading_due"]


def latest_reading_time_ms(events: Sequence[Mapping[str, Any]]) -> int | None:
    """Durable time of the newest reading in the raw log, or ``None``."""
    for event in reversed(events):
        if is_reading(event):
            return int(event["time"])
    return None


@final
class LatestReading:
    """:func:`latest_reading_time_ms`, kept up to date with a growing log.

    Scanning backwards costs O(events since the newest reading), which grows
    without bound while an interval keeps suppressing readings; this projection
    reads each event once. A log that does not extend what it read (it shrank,
    or its last-read event is another object or was edited) is rescanned from
    the start (see :mod:`dsh_reference.log_cursor`).
    """

    __slots__ = ("_cursor", "_latest", "rescans")

    def __init__(self) -> None:
        self._cursor = LogCursor()
        self._latest: int | None = None
        #: How many reads had to start from the first event (a measure).
        self.rescans = 0

    def read(self, events: Sequence[Mapping[str, Any]]) -> int | None:
        """Durable time of the newest reading in ``events``, or ``None``."""
        if not self._cursor.extends_read_prefix(events):
            self._cursor.reset()
            self._latest = None
        if self._cursor.read == 0 and len(events):
            self.rescans += 1
        for index in range(self._cursor.read, len(events)):
            event = events[index]
            if is_reading(event):
                self._latest = int(event["time"])
        self._cursor.advance_to(events)
        return self._latest


def reading_due(now_ms: int, last_ms: int | None, interval_ms: int) -> bool:
    """Apply the table above."""
    if interval_ms == 0 or last_ms is None or now_ms < last_ms:
        return True
    return now_ms - last_ms >= interval_ms

"""The schedule fold kept up to date with a growing log.

Theory of operation. The runtime asks for the fold before every management
call and every owner decision. Folding the whole log each time makes every
call O(log length); a :class:`ScheduleProjection` instead keeps one
:class:`~dsh_reference.schedule.core.fold.ScheduleFold` and folds only the
events appended since its last read. It stays a pure projection of the log it
is handed: whenever that log does not extend the prefix it already folded (it
shrank, its last-read event is another object or was edited, or the seed
length changed), it refolds from the start (see :mod:`dsh_reference.log_cursor`).
A log that does not fold raises :class:`ScheduleLogError` on every read, as a
full fold would, and is refolded on the next read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import final

from dsh_reference.log_cursor import LogCursor

from .fold import ScheduleFold, check_seed_length, event_field
from .protocol import SCHEDULE_CHANGE_EVENT_TYPE

__all__ = ["ChangeEventWatch", "ScheduleProjection"]


@final
class ScheduleProjection:
    """The fold of ``events[seed_length:]``, advanced incrementally between reads."""

    __slots__ = ("_cursor", "_seed", "_state", "reads", "refolds")

    def __init__(self) -> None:
        self._cursor = LogCursor()
        self._state: ScheduleFold | None = None
        self._seed = 0
        #: Reads so far, and how many of them folded from the start (measures,
        #: for benchmarks and tests).
        self.reads = 0
        self.refolds = 0

    @property
    def folded_through(self) -> int:
        """How many events of the log the last read's state has folded: the
        same state object at the same position holds the same fold."""
        return self._cursor.read

    def read(self, events: Sequence[object], seed_length: object = 0) -> ScheduleFold:
        """The fold of ``events[seed_length:]``; raises :class:`ScheduleLogError`
        exactly when :func:`fold_schedule_events` would. The returned state is
        owned by the projection: read it before the next call."""
        self.reads += 1
        seed = check_seed_length(events, seed_length)
        state = self._state
        if state is None or seed != self._seed or not self._cursor.extends_read_prefix(events):
            state = ScheduleFold()
            self._seed = seed
            self._cursor.reset()
            self._cursor.advance_to(events, seed)
            self.refolds += 1
        self._state = None  # untrusted until this read completes
        state.apply_all(events, self._cursor.read)
        self._cursor.advance_to(events)
        self._state = state
        return state


@final
class ChangeEventWatch:
    """Whether a log holds any ``schedule/change`` event at all (seed included,
    valid or not), answered in O(1) amortised per call."""

    __slots__ = ("_cursor", "_found")

    def __init__(self) -> None:
        self._cursor = LogCursor()
        self._found = False

    def any_in(self, events: Sequence[object]) -> bool:
        if not self._cursor.extends_read_prefix(events):
            self._cursor.reset()
            self._found = False
        if not self._found:
            for index in range(self._cursor.read, len(events)):
                if event_field(events[index], "type") == SCHEDULE_CHANGE_EVENT_TYPE:
                    self._found = True
                    break
        self._cursor.advance_to(events)
        return self._found

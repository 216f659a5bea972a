"""Where an incremental projection stopped reading an append-only log, and
whether the log it is handed now still extends what it read.

Theory of operation. A projection (the schedule fold, time-context's newest
reading) folds a log once, then only the events appended since its last read.
It must never trust itself over a log it has not seen: a crash and resume, a
fork, a store that lost its tail, or a caller handing another session's log all
look like "a log", and the projection has to notice and start again. Three
cheap checks decide whether the log still extends the prefix already folded:

* its length did not shrink below what was read;
* the event at the last read position is the *same object*, with the same
  ``seq`` (a log rebuilt from storage holds copies, so identity differs);
* a fingerprint of that event's JSON text is unchanged (an event edited in place).

Anything else means "refold from the start". Every check costs O(1) in the
length of the log: the fingerprint reads one event. A host's read-only event
(:class:`~pytest_dsh.contract.frozen_json.FrozenEvent`) cannot change in
place, so for it the identity check alone decides. An earlier event edited in
place while the last one stays intact is not detected; logs are append-only by
contract, and these checks guard against the realistic failures listed above.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Final, final

from pytest_dsh.contract.frozen_json import FrozenEvent, event_text

__all__ = ["LogCursor", "event_fingerprint"]

_UNSET: Final = object()


def event_fingerprint(event: object) -> int:
    """A hash of ``event``'s JSON text (its ``repr`` when it is not JSON)."""
    stored = event_text(event)  # a fake host's read-only event keeps its text
    if stored is not None:
        return hash(stored)
    try:
        # Key order is part of the text: reordering keys in place is an edit too.
        text = json.dumps(event, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        text = repr(event)
    return hash(text)


def _seq(event: object) -> object:
    if isinstance(event, dict | Mapping):  # dict first: a C check, not the ABC's
        return event.get("seq")
    return getattr(event, "seq", None)


@final
class LogCursor:
    """How far a projection has read, and the identity of the last event read."""

    __slots__ = ("_last", "_last_fingerprint", "_last_read_only", "_last_seq", "read")

    def __init__(self) -> None:
        #: Number of events of the log already folded into the projection.
        self.read = 0
        self._last: object = _UNSET
        self._last_seq: object = None
        self._last_fingerprint = 0
        self._last_read_only = False

    def extends_read_prefix(self, events: Sequence[object]) -> bool:
        """Whether ``events`` still starts with the prefix this cursor read."""
        if len(events) < self.read:
            return False
        if self.read == 0:
            return True
        last = events[self.read - 1]
        if last is not self._last:
            return False
        return self._last_read_only or (
            _seq(last) == self._last_seq
            and event_fingerprint(last) == self._last_fingerprint
        )

    def advance_to(self, events: Sequence[object], end: int | None = None) -> None:
        """Record that ``events[:end]`` (all of it by default) has been read."""
        end = len(events) if end is None else end
        if end == self.read and self._last is not _UNSET:
            return
        self.read = end
        if end == 0:
            self._last = _UNSET
            return
        last = events[end - 1]
        self._last = last
        self._last_read_only = type(last) is FrozenEvent
        if self._last_read_only:
            return  # identity is enough: its seq and text cannot change
        self._last_seq = _seq(last)
        self._last_fingerprint = event_fingerprint(last)

    def reset(self) -> None:
        """Forget everything: the next read starts from the first event."""
        self.read = 0
        self._last = _UNSET
        self._last_seq = None
        self._last_fingerprint = 0
        self._last_read_only = False

"""Session logs of the fake host: raw events, derived history, compaction.

The raw log is append-only and never loses anything. Compaction appends a
replacement ``user/message`` whose ``sourceEventSeqs`` lists the events it
summarises; :meth:`FakeSession.history` hides those (they are *shadowed*) while
:attr:`FakeSession.events` keeps them, as DSH does.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, final

from pytest_dsh.contract import (
    AppendRejectedError,
    SessionEvent,
    SessionHeader,
)
from pytest_dsh.json_limits import json_copy

__all__ = ["MESSAGE_EVENT_TYPES", "FakeSession", "derive_history"]

#: Event types that are model-visible messages on the derived surface.
MESSAGE_EVENT_TYPES: Final = frozenset(
    {"user/message", "assistant/message", "tool/result", "steering/message"}
)

AppendGuard = Callable[["FakeSession", SessionEvent], None]


def derive_history(events: Sequence[SessionEvent]) -> list[SessionEvent]:
    """Message events of the model-visible surface, compaction applied."""
    shadowed: set[int] = set()
    for event in events:
        shadowed.update(event.get("sourceEventSeqs", ()))
    return [
        event
        for event in events
        if event["type"] in MESSAGE_EVENT_TYPES and event["seq"] not in shadowed
    ]


@final
class EventsView(Sequence[SessionEvent]):
    """The first ``length`` events of an append-only list, read-only (compares
    equal to a tuple or list of the same events)."""

    __slots__ = ("_events", "_length")

    def __init__(self, events: list[SessionEvent], length: int) -> None:
        self._events = events
        self._length = length

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._length)
            if step > 0:
                return tuple(self._events[start:stop:step])
            return tuple(self._events[i] for i in range(start, stop, step))
        if not -self._length <= index < self._length:
            raise IndexError("event index out of range")
        return self._events[index % self._length if index < 0 else index]

    def __iter__(self) -> Iterator[SessionEvent]:
        return itertools.islice(self._events, self._length)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (tuple, list, EventsView)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EventsView({list(self)!r})"


def _json_snapshot(data: Any) -> Any:
    # DSH stores a lossless JSON snapshot: later mutation of the caller's object
    # must not change the log, and non-JSON values are refused at append time.
    try:
        return json.loads(json.dumps(data, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        raise AppendRejectedError(f"event data is not JSON: {exc}") from exc


@final
class FakeSession:
    """A live session. ``append`` consults the host's guards (fault plan and
    registered invariants) before storing anything."""

    def __init__(
        self,
        header: SessionHeader,
        events: list[SessionEvent],
        *,
        now_ms: Callable[[], int],
        guard: AppendGuard,
        read_guard: Callable[[], None] | None = None,
    ) -> None:
        self._header = header
        self._events = events
        self._now_ms = now_ms
        self._guard = guard
        self._read_guard = read_guard
        self.live = True

    @property
    def id(self) -> str:
        return self._header["id"]

    @property
    def header(self) -> SessionHeader:
        return self._header

    @property
    def events(self) -> Sequence[SessionEvent]:
        """The raw log as a plugin reads it (the fault plan may make it raise)."""
        if self._read_guard is not None:
            self._read_guard()
        # O(1): the raw list only ever grows, so a prefix view is a stable snapshot.
        return EventsView(self._events, len(self._events))

    @property
    def log(self) -> Sequence[SessionEvent]:
        """The raw log as the host itself reads it (never faulted)."""
        return EventsView(self._events, len(self._events))

    @property
    def seed_length(self) -> int:
        return self._header.get("seedLength", 0)

    def append(self, type: str, data: Any, **envelope: Any) -> SessionEvent:
        if not isinstance(type, str) or not type:
            raise AppendRejectedError("event type must be a non-empty string")
        if not self.live:
            raise AppendRejectedError(f"session {self.id!r} is not live")
        event: SessionEvent = {
            "type": type,
            "seq": len(self._events),
            "time": self._now_ms(),
            "data": _json_snapshot(data),
        }
        for key, value in envelope.items():
            event[key] = copy.deepcopy(value)  # type: ignore[literal-required]
        self._guard(self, event)
        self._events.append(event)
        return event

    def history(self) -> list[SessionEvent]:
        return derive_history(self._events)

    def snapshot(self) -> list[SessionEvent]:
        """A deep copy of the raw log (what a test may inspect or keep)."""
        return json_copy(self._events)  # deepcopy would fail on deep data

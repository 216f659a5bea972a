"""Session logs of the fake host: raw events, derived history, compaction.

The raw log is append-only and never loses anything, and nobody can edit it:
each event is a read-only snapshot (:mod:`pytest_dsh.contract.frozen_json`) that the
session, the durable store and every reader share. Compaction appends a
replacement ``user/message`` whose ``sourceEventSeqs`` lists the events it
summarises; :meth:`FakeSession.history` hides those (they are *shadowed*) while
:attr:`FakeSession.events` keeps them, as DSH does.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from json.encoder import encode_basestring
from typing import Any, Final, cast, final

from pytest_dsh.contract import (
    AppendRejectedError,
    SessionEvent,
    SessionHeader,
)
from pytest_dsh.contract.frozen_json import (
    FrozenDict,
    built_event,
    freeze_event,
    frozen_event,
    thaw_events,
)
from pytest_dsh.driving.faults import FaultPlan
from pytest_dsh.fake_host import gc_shelter

__all__ = ["MESSAGE_EVENT_TYPES", "FakeSession", "derive_history"]

#: Event types that are model-visible messages on the derived surface.
MESSAGE_EVENT_TYPES: Final = frozenset(
    {"user/message", "assistant/message", "tool/result", "steering/message"}
)

#: The text of an event's envelope up to its seq, per event type the host appends.
_TYPE_PREFIXES: dict[str, str] = {}

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
        if type(index) is int and 0 <= index < self._length:
            return self._events[index]  # the common case, first
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

    def __reversed__(self) -> Iterator[SessionEvent]:
        # The list's own reverse iterator, past what was appended after this
        # view was taken (usually nothing), instead of one __getitem__ per event.
        return itertools.islice(reversed(self._events), len(self._events) - self._length, None)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (tuple, list, EventsView)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EventsView({list(self)!r})"


@final
class LogWithCandidate(Sequence[SessionEvent]):
    """A log followed by one more event, without copying the log (what a
    write-through store persists before the event is appended)."""

    __slots__ = ("_candidate", "_log")

    def __init__(self, log: Sequence[SessionEvent], candidate: SessionEvent) -> None:
        self._log = log
        self._candidate = candidate

    def __len__(self) -> int:
        return len(self._log) + 1

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            logged = len(self._log)
            if step != 1:
                return tuple(self[i] for i in range(start, stop, step))
            tail = (self._candidate,) if start <= logged < stop else ()
            return (*self._log[start : min(stop, logged)], *tail)
        length = len(self)
        if not -length <= index < length:
            raise IndexError("event index out of range")
        index %= length
        return self._candidate if index == len(self._log) else self._log[index]


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
        faults: FaultPlan | None = None,
    ) -> None:
        self._header = cast(SessionHeader, freeze_event(header))
        self._id: str = self._header["id"]
        # Seeded and resumed events become read-only snapshots too.
        self._events = [freeze_event(event) for event in events]
        gc_shelter.grew(len(self._events))
        # The view of the log as it is now: every read until the next append
        # shares it (a view never changes, so sharing is safe).
        self._view = EventsView(self._events, len(self._events))
        self._now_ms = now_ms
        self._guard = guard
        #: The plan whose event-read faults a plugin's reads consult.
        self._faults = faults
        self.live = True

    @property
    def id(self) -> str:
        return self._id

    @property
    def header(self) -> SessionHeader:
        return self._header

    @property
    def events(self) -> Sequence[SessionEvent]:
        """The raw log as a plugin reads it (the fault plan may make it raise)."""
        faults = self._faults
        if faults is not None and faults.planned:  # nothing planned: nothing to count
            faults.check_event_read()
        return self.log

    @property
    def log(self) -> Sequence[SessionEvent]:
        """The raw log as the host itself reads it (never faulted)."""
        # O(1): the raw list only ever grows, so a prefix view is a stable snapshot.
        view = self._view
        if view._length != len(self._events):
            view = self._view = EventsView(self._events, len(self._events))
        return view

    @property
    def seed_length(self) -> int:
        return self._header.get("seedLength", 0)

    def append(self, type: str, data: Any, **envelope: Any) -> SessionEvent:
        if not isinstance(type, str) or not type:
            raise AppendRejectedError("event type must be a non-empty string")
        if not self.live:
            raise AppendRejectedError(f"session {self.id!r} is not live")
        events = self._events
        # DSH stores a lossless JSON snapshot: later mutation of the caller's
        # object must not change the log, and non-JSON data is refused here.
        try:
            event: SessionEvent = frozen_event(  # type: ignore[assignment]
                type, len(events), self._now_ms(), data, envelope
            )
        except (TypeError, ValueError, RecursionError) as exc:
            raise AppendRejectedError(f"event data is not JSON: {exc}") from exc
        self._guard(self, event)
        events.append(event)
        gc_shelter.grew()
        return event

    def append_built(
        self, type: str, data: FrozenDict, data_text: str, *, surface: bool = False
    ) -> SessionEvent:
        """Append an event the host built itself (:mod:`pytest_dsh.fake_host.host_events`):
        ``data`` is already read-only and ``data_text`` its JSON text, so only
        the envelope is written here; the guards run as for :meth:`append`,
        and the event is the same as the one :meth:`append` would store."""
        if not self.live:
            raise AppendRejectedError(f"session {self.id!r} is not live")
        events = self._events
        seq = len(events)
        time = self._now_ms()
        if time.__class__ is not int:  # pragma: no cover - the virtual clock counts in ints
            return self.append(type, data, **({"surfaceOp": "append"} if surface else {}))
        prefix = _TYPE_PREFIXES.get(type)
        if prefix is None:
            prefix = _TYPE_PREFIXES[type] = '{"type":' + encode_basestring(type) + ',"seq":'
        fields = {"type": type, "seq": seq, "time": time, "data": data}
        if surface:
            fields["surfaceOp"] = "append"
        event: SessionEvent = built_event(  # type: ignore[assignment]
            fields,
            f'{prefix}{seq},"time":{time},"data":{data_text}'
            + (',"surfaceOp":"append"}' if surface else "}"),
        )
        self._guard(self, event)
        events.append(event)
        gc_shelter.grew()
        return event

    def log_with(self, candidate: SessionEvent) -> Sequence[SessionEvent]:
        """The raw log followed by ``candidate`` (O(1): nothing is copied)."""
        return LogWithCandidate(self.log, candidate)

    def history(self) -> list[SessionEvent]:
        return derive_history(self._events)

    def snapshot(self, start: int = 0) -> list[SessionEvent]:
        """A plain, mutable deep copy of the raw log from index ``start`` (what
        a test may inspect or keep), parsed from the events' stored JSON texts."""
        return thaw_events(self._events[start:] if start else self._events)

"""Session logs of the fake host: raw events, derived history, compaction.

The raw log is append-only and never loses anything. Compaction appends a
replacement ``user/message`` whose ``sourceEventSeqs`` lists the events it
summarises; :meth:`FakeSession.history` hides those (they are *shadowed*) while
:attr:`FakeSession.events` keeps them, as DSH does.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from typing import Any, Final, final

from pytest_dsh.contract import (
    AppendRejectedError,
    SessionEvent,
    SessionHeader,
)

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


def _json_snapshot(data: Any) -> Any:
    # DSH stores a lossless JSON snapshot: later mutation of the caller's object
    # must not change the log, and non-JSON values are refused at append time.
    try:
        return json.loads(json.dumps(data, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError) as exc:
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
        return tuple(self._events)

    @property
    def log(self) -> Sequence[SessionEvent]:
        """The raw log as the host itself reads it (never faulted)."""
        return tuple(self._events)

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
        return copy.deepcopy(self._events)

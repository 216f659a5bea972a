"""An ordered record of what a host did, for tests that assert order.

Tracing is off until a test starts it (``host.start_trace()``); then every
flush, append, follow-up, maintenance claim, refused claim and release,
``when_idle`` call, and every timer a plugin arms or cancels is recorded, in
the order it happened, on both hosts.
A Schedule dispatch (a ``schedule/change`` whose operation is ``dispatch``) is
recorded twice: as its ``append``, then as a ``dispatch`` naming the schedule
id, so a test sees deliveries among flushes and claims without reading events.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, final

__all__ = ["HostTrace", "TraceEntry", "TraceKind", "dispatched_id"]

TraceKind = Literal[
    "flush", "append", "followup", "claim", "claim-refused", "release", "when-idle",
    "timer-arm", "timer-cancel", "dispatch",
]


def dispatched_id(event: Mapping[str, Any]) -> str | None:
    """The schedule id an appended event dispatches, or None when it is no dispatch."""
    data = event.get("data")
    if event.get("type") != "schedule/change" or not isinstance(data, Mapping):
        return None
    if data.get("operation") != "dispatch":
        return None
    schedule_id = data.get("id")
    return schedule_id if isinstance(schedule_id, str) else ""


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """One thing the host did. ``subject`` is the session id (empty for
    timers); ``detail`` is the event type of an append, the outcome of a
    flush, the requested delay in ms of an armed timer, the schedule id of a
    dispatch, why a claim was refused (``busy`` or ``fault``), otherwise
    empty."""

    kind: TraceKind
    subject: str
    detail: str = ""


@final
@dataclass(slots=True)
class HostTrace:
    enabled: bool = False
    entries: list[TraceEntry] = field(default_factory=list)

    def start(self) -> None:
        """Forget what was recorded and record from now on."""
        self.enabled = True
        self.entries = []

    def record(self, kind: TraceKind, subject: str, detail: str = "") -> None:
        if self.enabled:
            self.entries.append(TraceEntry(kind, subject, detail))

"""An ordered record of what a host did, for tests that assert order.

Tracing is off until a test starts it (``host.start_trace()``); then every
flush, append, follow-up, maintenance claim and release, and every timer a
plugin arms or cancels is recorded, in the order it happened, on both hosts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, final

__all__ = ["HostTrace", "TraceEntry", "TraceKind"]

TraceKind = Literal[
    "flush", "append", "followup", "claim", "release", "timer-arm", "timer-cancel"
]


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """One thing the host did. ``subject`` is the session id (empty for
    timers); ``detail`` is the event type of an append, the outcome of a
    flush, the requested delay in ms of an armed timer, otherwise empty."""

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

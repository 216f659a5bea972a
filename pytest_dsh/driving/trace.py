"""An ordered record of what a host did, for tests that assert order.

Tracing is off until a test starts it (``host.start_trace()``); then every
flush, append, follow-up, maintenance claim, refused claim and release,
``when_idle`` call, and every timer a plugin arms or cancels is recorded, in
the order it happened, on both hosts.
A Schedule dispatch is recorded twice: as its ``append``, then as a
``dispatch`` giving the event's ``seq``, so a test sees deliveries among
flushes and claims and finds each one's event in the log. A dispatch is
recognised without reading its payload (an implementation chooses its own
layout): it is a ``schedule/change`` appended while the session's agent holds
a maintenance claim, where the README puts dispatches; tools run in turns,
never inside a claim, so creates and deletes are no dispatch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, final

__all__ = ["HostTrace", "TraceEntry", "TraceKind"]

TraceKind = Literal[
    "flush", "append", "followup", "claim", "claim-refused", "release", "when-idle",
    "timer-arm", "timer-cancel", "dispatch",
]


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """One thing the host did. ``subject`` is the session id (empty for
    timers); ``detail`` is the event type of an append, the outcome of a
    flush, the requested delay in ms of an armed timer, the log ``seq`` of a
    dispatch event, why a claim was refused (``busy`` or ``fault``), otherwise
    empty."""

    kind: TraceKind
    subject: str
    detail: str = ""


@final
@dataclass(slots=True)
class HostTrace:
    enabled: bool = False
    entries: list[TraceEntry] = field(default_factory=list)
    #: Sessions whose agent holds a maintenance claim now (kept while not recording).
    claimed: set[str] = field(default_factory=set)

    def start(self) -> None:
        """Forget what was recorded and record from now on."""
        self.enabled = True
        self.entries = []

    def record(self, kind: TraceKind, subject: str, detail: str = "") -> None:
        if kind == "claim":
            self.claimed.add(subject)
        elif kind == "release":
            self.claimed.discard(subject)
        if self.enabled:
            self.entries.append(TraceEntry(kind, subject, detail))

    def record_append(self, subject: str, event_type: str, seq: int) -> None:
        """An appended event; a ``schedule/change`` appended inside the
        session's maintenance claim is a dispatch, recorded after it."""
        self.record("append", subject, event_type)
        if event_type == "schedule/change" and subject in self.claimed:
            self.record("dispatch", subject, str(seq))

"""Durable storage for the fake host.

The store keeps, per session, the header and the events that a successful
``flush`` made durable. Everything appended after the last successful flush is
the *non-durable suffix*: :meth:`~pytest_dsh.fake_host.host.FakeHost.crash` drops it.

The fault plan that makes it misbehave is shared by both hosts:
:mod:`pytest_dsh.driving.faults` (its names are re-exported here).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import final

from pytest_dsh.contract import SessionEvent, SessionHeader
from pytest_dsh.contract.frozen_json import FrozenDict, event_text
from pytest_dsh.driving.faults import Durability
from pytest_dsh.errors import DshKitError

__all__ = [
    "DurableStore",
    "PersistenceDetachedError",
    "PersistenceRejectedError",
]


class PersistenceRejectedError(DshKitError, RuntimeError):
    """A flush listener or the backend failed."""


class PersistenceDetachedError(DshKitError, RuntimeError):
    """The session is not live in the store."""


@dataclass(slots=True)
class _DurableSession:
    header: str
    events: list[str] = field(default_factory=list)
    #: The header object last persisted: a session's header is read-only, so
    #: the same object needs no new serialisation.
    source: object = None


def _encode(value: object) -> str:
    # Durable means serialised: what is stored is text, so nothing a caller
    # later does to its objects can reach it, and a value that cannot be
    # serialised fails the flush instead of corrupting the store.
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:
        raise PersistenceRejectedError(
            f"the store cannot serialise the session: {type(exc).__name__}: {exc}"
        ) from None


@final
class DurableStore:
    """In-memory durable session storage (survives :meth:`FakeHost.crash`).

    Each session is kept as serialised JSON (a header and one text per event),
    as a file store would keep it. :meth:`persist` is all-or-nothing: when any
    new event cannot be serialised it raises :class:`PersistenceRejectedError`
    and the durable log is unchanged.
    """

    def __init__(self) -> None:
        self._sessions: dict[str, _DurableSession] = {}
        #: ``"flush"``: only a successful flush makes events durable (DSH's
        #: default backend). ``"per-event"``: every accepted append is durable
        #: at once, as with a backend that writes each event through; the host
        #: then calls :meth:`persist` from its append path.
        self.durability: Durability = "flush"

    def session_ids(self) -> list[str]:
        return list(self._sessions)

    def persist(self, header: SessionHeader, events: Sequence[SessionEvent]) -> None:
        """Make ``events`` the durable log of the session ``header`` names.

        Only the suffix beyond what is already durable is serialised: a live
        log always extends its own durable prefix, and re-serialising whole long
        logs on every flush would make long sessions quadratic.
        """
        stored = self._sessions.get(header["id"])
        if stored is not None and stored.source is header:
            # The common case, a live log that grew since its last flush: the
            # same read-only header, so only the new events' texts are added.
            kept, total = len(stored.events), len(events)
            if kept == total:
                return  # nothing new: already durable
            if kept < total:
                stored.events.extend(
                    [event_text(event) or _encode(event) for event in events[kept:]]
                )
                return
        header_text = _encode(header)
        if stored is None or len(stored.events) > len(events) or stored.header != header_text:
            stored, kept = _DurableSession(header_text), 0
        else:
            kept = len(stored.events)
        # An appended event carries its JSON text (pytest_dsh.contract.frozen_json): the
        # store keeps that very string instead of serialising the event again.
        suffix = [event_text(event) or _encode(event) for event in events[kept:]]
        stored.events.extend(suffix)
        stored.source = header if isinstance(header, FrozenDict) else None
        self._sessions[header["id"]] = stored

    def has(self, session_id: str) -> bool:
        return session_id in self._sessions

    def claim_new(self, session_id: str) -> None:
        """Any id may start a session in memory (a file store checks here)."""

    def close(self) -> None:
        """Nothing to release (a file store releases its root's lock)."""

    def load(self, session_id: str) -> tuple[SessionHeader, list[SessionEvent]]:
        try:
            stored = self._sessions[session_id]
        except KeyError:
            known = ", ".join(sorted(self._sessions)) or "none"
            raise KeyError(
                f"no durable session {session_id!r} (durable sessions: {known})"
            ) from None
        return json.loads(stored.header), [json.loads(text) for text in stored.events]

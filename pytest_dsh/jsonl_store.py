"""Durable sessions as JSONL files on disk, in DSH's session-file shape.

A session lives at ``<root>/_no-cwd/<id>/session.jsonl``, as the official JSONL
backend (``@deepseek-ai/dsh-session-persistence-jsonl``) lays it out: a header
line ``{"type":"session","version":0,"id","createdAt","delegationDepth"}``
(plus ``seedLength`` for a fork) and then one event per line, each a compact
JSON object. Either side can resume a session the other wrote.

:class:`JsonlStore` has the interface of
:class:`~pytest_dsh.persistence.DurableStore`, so a fake host uses it by
assignment (``host.store = JsonlStore(root, now_ms=host.clock.now_ms)``):

- ``persist`` appends the new events and ``fsync``\\ s the file (and, for a new
  session, its folder) before returning: a flush the host records as durable is
  on disk. It is all or nothing from a reader's point of view: lines are
  serialised first, written in one call, and a failure truncates the file back
  to its previous length before :class:`PersistenceRejectedError` is raised.
- ``load`` tolerates a torn tail, what a crash in the middle of a write
  leaves: a last line without its newline, or one that is not valid UTF-8 or
  JSON, is ignored (and cut off by the next ``persist``). A bad line anywhere
  else is corruption and raises :class:`SessionFileError` naming the line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, final

from pytest_dsh.contract import SessionEvent, SessionHeader
from pytest_dsh.frozen_json import event_text
from pytest_dsh.persistence import Durability, PersistenceRejectedError

__all__ = ["SESSION_FILE", "JsonlStore", "SessionFileError"]

#: The file name inside a session's folder.
SESSION_FILE: Final = "session.jsonl"
#: The folder for sessions that belong to no working directory.
_NO_CWD: Final = "_no-cwd"


class SessionFileError(ValueError):
    """A session file is corrupt before its last line."""


def _line(value: object) -> bytes:
    cached = event_text(value)  # an appended event's own strict, compact text
    if cached is not None:
        return cached.encode("utf-8") + b"\n"
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise PersistenceRejectedError(
            f"the store cannot serialise the session: {type(exc).__name__}: {exc}"
        ) from None
    return text.encode("utf-8") + b"\n"


@final
class JsonlStore:
    """Sessions as JSONL files under ``root`` (see the module docstring)."""

    def __init__(self, root: str | os.PathLike[str], *, now_ms: Callable[[], int]) -> None:
        self.root = Path(root)
        self._now_ms = now_ms
        #: As for :class:`~pytest_dsh.persistence.DurableStore`.
        self.durability: Durability = "flush"
        #: Durable event count and file length per session this store has read.
        self._known: dict[str, tuple[int, int]] = {}

    def path(self, session_id: str) -> Path:
        if not session_id or "/" in session_id or session_id in (".", ".."):
            raise ValueError(f"session id {session_id!r} cannot name a session folder")
        return self.root / _NO_CWD / session_id / SESSION_FILE

    def session_ids(self) -> list[str]:
        folder = self.root / _NO_CWD
        if not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir() if (p / SESSION_FILE).is_file())

    def has(self, session_id: str) -> bool:
        return self.path(session_id).is_file()

    # -- writing ----------------------------------------------------------------------

    def persist(self, header: SessionHeader, events: Sequence[SessionEvent]) -> None:
        """Make ``events`` the durable log of the session ``header`` names."""
        path = self.path(header["id"])
        if path.is_file():
            count, length = self._state(header["id"])
            if count <= len(events):
                self._append(path, length, events[count:], header["id"], count)
                return
        self._rewrite(path, header, events)

    def _state(self, session_id: str) -> tuple[int, int]:
        known = self._known.get(session_id)
        if known is None:
            _, events, length = self._read(self.path(session_id))
            known = (len(events), length)
            self._known[session_id] = known
        return known

    def _append(
        self, path: Path, length: int, new: Sequence[SessionEvent], session_id: str, count: int
    ) -> None:
        data = b"".join(_line(event) for event in new)
        with path.open("r+b") as handle:
            handle.truncate(length)  # cut a torn tail off before writing after it
            handle.seek(length)
            try:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            except OSError as exc:
                handle.truncate(length)
                raise PersistenceRejectedError(f"writing {path.name} failed: {exc}") from None
        self._known[session_id] = (count + len(new), length + len(data))

    def _rewrite(self, path: Path, header: SessionHeader, events: Sequence[SessionEvent]) -> None:
        head: dict[str, Any] = {
            "type": "session",
            "version": 0,
            "id": header["id"],
            "createdAt": self._now_ms(),
            "delegationDepth": 0,
        }
        if "seedLength" in header:
            head["seedLength"] = header["seedLength"]
        data = _line(head) + b"".join(_line(event) for event in events)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        try:
            with temporary.open("wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, path)
            _fsync_folder(path.parent)
            _fsync_folder(path.parent.parent)
        except OSError as exc:
            temporary.unlink(missing_ok=True)
            raise PersistenceRejectedError(f"writing {path.name} failed: {exc}") from None
        self._known[header["id"]] = (len(events), len(data))

    # -- reading ----------------------------------------------------------------------

    def load(self, session_id: str) -> tuple[SessionHeader, list[SessionEvent]]:
        path = self.path(session_id)
        if not path.is_file():
            known = ", ".join(self.session_ids()) or "none"
            raise KeyError(f"no durable session {session_id!r} (durable sessions: {known})")
        head, events, length = self._read(path)
        self._known[session_id] = (len(events), length)
        header: SessionHeader = {"id": str(head["id"])}
        if "seedLength" in head:
            header["seedLength"] = int(head["seedLength"])
        return header, events

    def _read(self, path: Path) -> tuple[dict[str, Any], list[SessionEvent], int]:
        """The header, the events and the byte length of the sound prefix."""
        data = path.read_bytes()
        lines = data.split(b"\n")
        # After the last newline: empty for a complete file, else a torn write.
        complete, tail = lines[:-1], lines[-1]
        length = len(data) - len(tail)
        parsed: list[Any] = []
        for number, raw in enumerate(complete, start=1):
            try:
                parsed.append(json.loads(raw.decode("utf-8")))
            except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                if number == len(complete) and not tail:
                    length -= len(raw) + 1  # a torn last line that did get its newline
                    break
                raise SessionFileError(f"{path}:{number}: not a JSON line ({exc})") from None
        if not parsed or not isinstance(parsed[0], dict) or parsed[0].get("type") != "session":
            raise SessionFileError(f"{path}:1: the first line is not a session header")
        head, events = parsed[0], parsed[1:]
        for number, event in enumerate(events, start=2):
            if not isinstance(event, dict) or not isinstance(event.get("type"), str):
                raise SessionFileError(f"{path}:{number}: not an event object")
        return head, events, length


def _fsync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)

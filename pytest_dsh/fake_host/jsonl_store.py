"""Durable sessions as JSONL files on disk, in DSH's session-file shape.

A session lives at ``<root>/_no-cwd/<id>/session.jsonl``, as the official JSONL
backend (``@deepseek-ai/dsh-session-persistence-jsonl``) lays it out: a header
line ``{"type":"session","version":0,"id","createdAt","delegationDepth"}``
(plus ``seedLength`` for a fork) and then one event per line, each a compact
JSON object. Either side can resume a session the other wrote.

:class:`JsonlStore` has the interface of
:class:`~pytest_dsh.fake_host.persistence.DurableStore`; a host asks for it with
``open_host(..., jsonl_root=PATH)``.

- **One writer per root.** The store takes the root's lock
  (:mod:`pytest_dsh.driving.jsonl_root`, the same lock a bridge host takes)
  when it is created and keeps it until :meth:`JsonlStore.close`; a second
  host on the same root, in this process or another, is refused with
  :class:`StoreLockedError`. The kernel drops the lock when its process dies,
  so a lock file left by a killed process is stale by construction.
- **Sessions never collide.** A new session is created exclusively (hard link
  of a fully written temporary file): an id that already names a session file
  under the root is refused with :class:`SessionExistsError`, never
  overwritten. :meth:`JsonlStore.claim_new` makes the same check up front.
- **A flush is on disk, all or nothing.** ``persist`` serialises first, then
  ``fsync``\\ s the file (and, for a new session, every folder it created, each
  into its parent, and the session's folder) before returning, so a flush the
  host records as durable is on disk. One new event is appended
  in place (a crash mid-write leaves a torn last line, which ``load`` ignores);
  several are written with the old content to a temporary file that replaces
  the session file, so a crash leaves the old file or the new one. A failure
  leaves the file as it was and raises :class:`PersistenceRejectedError`.
- **Only inside the root.** Temporary files are created exclusively and
  never through a symbolic link; the session file is opened for appending only
  when it is a regular file with one name; a session folder (``_no-cwd`` or
  ``<id>``) planted as a symbolic link is refused with :class:`StoreRootError`.
- ``load`` tolerates a torn tail, what a crash in the middle of a write
  leaves: a last line without its newline, or one that is not valid UTF-8 or
  JSON, is ignored (and cut off by the next ``persist``). A bad line anywhere
  else is corruption and raises :class:`SessionFileError` naming the line.

Every refusal is a :class:`SessionStoreError` (a
:class:`PersistenceRejectedError`, so a flush that meets one is recorded
``rejected`` with the message as its reason): :class:`StoreRootError`,
:class:`StoreLockedError`, :class:`SessionIdError`,
:class:`SessionExistsError`, :class:`SessionFileError`. That list is closed.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import stat
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Final, final

from pytest_dsh.contract import SessionEvent, SessionHeader
from pytest_dsh.contract.frozen_json import event_text
from pytest_dsh.driving.faults import Durability
from pytest_dsh.driving.jsonl_root import (
    LOCK_FILE,
    RootLockedError,
    RootUnusableError,
    fsync_folder,
    lock_root,
    make_folders,
    unlock_root,
)
from pytest_dsh.fake_host.persistence import PersistenceRejectedError

__all__ = [
    "LOCK_FILE",
    "SESSION_FILE",
    "JsonlStore",
    "SessionExistsError",
    "SessionFileError",
    "SessionIdError",
    "SessionStoreError",
    "StoreLockedError",
    "StoreRootError",
]

#: The file name inside a session's folder.
SESSION_FILE: Final = "session.jsonl"
#: The folder for sessions that belong to no working directory.
_NO_CWD: Final = "_no-cwd"
#: A session id is one folder name: at most this many UTF-8 bytes.
_MAX_ID_BYTES: Final = 200

#: Test seam: called as ``hook(point, path, data)`` at each step of a write:
#: ``"append"`` before one line is appended in place, ``"replace"`` and
#: ``"create"`` once the temporary file is written and synced, before it takes
#: (or, for a new session, becomes) the session file.
WriteHook = Callable[[str, Path, bytes], None]


class SessionStoreError(PersistenceRejectedError):
    """The JSONL store refused: see the subclasses (a closed set)."""


class StoreRootError(SessionStoreError, RootUnusableError):
    """The root cannot hold sessions (a file, not writable, ...)."""


class StoreLockedError(SessionStoreError, RootLockedError):
    """Another host (this process or another) writes under the same root."""


class SessionIdError(SessionStoreError, ValueError):
    """A session id that cannot name a session folder."""


class SessionExistsError(SessionStoreError):
    """A new session's id already names a session file under the root."""


class SessionFileError(SessionStoreError, ValueError):
    """A session file is corrupt before its last line."""


def check_session_id(session_id: object) -> str:
    """``session_id`` when it can name a session folder, else :class:`SessionIdError`."""
    if not isinstance(session_id, str):
        raise SessionIdError(f"session id {session_id!r} is not a string")
    problem = None
    if not session_id or session_id in (".", ".."):
        problem = "is empty or a relative folder name"
    elif any(ch in "/\\" or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in session_id):
        problem = "contains a path separator or a control character"
    elif len(session_id.encode("utf-8", "surrogatepass")) > _MAX_ID_BYTES:
        problem = f"is longer than {_MAX_ID_BYTES} UTF-8 bytes"
    else:
        try:
            session_id.encode("utf-8")
        except UnicodeEncodeError:
            problem = "is not valid Unicode text"
    if problem is not None:
        raise SessionIdError(
            f"session id {session_id!r} cannot name a session folder: it {problem}"
        )
    return session_id


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


def _lock_root(root: Path) -> int:
    """Hold the root's lock (:mod:`pytest_dsh.driving.jsonl_root`), its refusals
    as this store's errors."""
    try:
        return lock_root(root)
    except RootUnusableError as exc:
        raise StoreRootError(str(exc)) from None
    except RootLockedError as exc:
        raise StoreLockedError(str(exc)) from None


@final
class JsonlStore:
    """Sessions as JSONL files under ``root`` (see the module docstring).

    Holds the root's lock from construction to :meth:`close` (also a context
    manager; the lock is released when the store is garbage collected)."""

    def __init__(self, root: str | os.PathLike[str], *, now_ms: Callable[[], int]) -> None:
        self.root = Path(root)
        self._lock = _lock_root(self.root)
        self._release = weakref.finalize(self, unlock_root, self._lock)
        self._now_ms = now_ms
        #: As for :class:`~pytest_dsh.fake_host.persistence.DurableStore`.
        self.durability: Durability = "flush"
        #: Durable event count and file length per session this store has read.
        self._known: dict[str, tuple[int, int]] = {}
        #: Test seam (see :data:`WriteHook`).
        self.write_hook: WriteHook | None = None

    def close(self) -> None:
        """Release the root's lock (idempotent); the store is unusable after."""
        self._release()

    @property
    def closed(self) -> bool:
        return not self._release.alive

    def __enter__(self) -> JsonlStore:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _check_folders(self, path: Path) -> None:
        """The store writes only inside the root: a session's folders planted
        as symbolic links are refused, never followed."""
        for folder in (path.parent.parent, path.parent):
            if folder.is_symlink():
                raise StoreRootError(
                    f"{str(folder)!r} is a symbolic link; the JSONL store writes only "
                    f"inside {str(self.root)!r}: remove it"
                )

    def _check_open(self) -> None:
        if self.closed:
            raise StoreRootError(f"the JSONL store of {str(self.root)!r} is closed")

    def path(self, session_id: str) -> Path:
        return self.root / _NO_CWD / check_session_id(session_id) / SESSION_FILE

    def session_ids(self) -> list[str]:
        folder = self.root / _NO_CWD
        if not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir() if (p / SESSION_FILE).is_file())

    def has(self, session_id: str) -> bool:
        return self.path(session_id).is_file()

    def claim_new(self, session_id: str) -> None:
        """Refuse, up front, an id a new session cannot take: one that cannot
        name a folder (:class:`SessionIdError`) or already names a session file
        (:class:`SessionExistsError`)."""
        self._check_open()
        if self.has(session_id):
            raise SessionExistsError(
                f"session {session_id!r} already exists under {str(self.root)!r}; "
                "resume it, or give the new session another id"
            )

    # -- writing ----------------------------------------------------------------------

    def persist(self, header: SessionHeader, events: Sequence[SessionEvent]) -> None:
        """Make ``events`` the durable log of the session ``header`` names."""
        self._check_open()
        session_id = header["id"]
        path = self.path(session_id)
        known = self._known.get(session_id)
        if known is None:
            self._create(path, header, events)
            return
        count, length = known
        if count > len(events):
            raise PersistenceRejectedError(
                f"session {session_id!r}: {len(events)} events do not extend the "
                f"{count} already durable"
            )
        new = events[count:]
        data = b"".join(_line(event) for event in new)
        if len(new) == 1:
            self._append(path, length, data)
        else:
            self._replace(path, length, data)
        self._known[session_id] = (len(events), length + len(data))

    def _append(self, path: Path, length: int, data: bytes) -> None:
        """One line appended in place: a crash mid-write leaves a torn tail."""
        if self.write_hook is not None:
            self.write_hook("append", path, data)
        try:
            self._check_folders(path)
            with _open_session_file(path) as handle:
                handle.truncate(length)  # cut a torn tail off before writing after it
                handle.seek(length)
                try:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                except OSError:
                    handle.truncate(length)
                    raise
        except OSError as exc:
            raise PersistenceRejectedError(f"writing {path} failed: {exc}") from None

    def _replace(self, path: Path, length: int, data: bytes) -> None:
        """The sound prefix plus ``data`` replace the file: old or new, never between."""
        temporary: Path | None = None
        try:
            self._check_folders(path)
            temporary, handle = _temporary(path)
            with handle, path.open("rb") as old:
                handle.write(old.read(length))
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            if self.write_hook is not None:
                self.write_hook("replace", path, data)
            os.replace(temporary, path)
            fsync_folder(path.parent)
        except OSError as exc:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    temporary.unlink(missing_ok=True)
            raise PersistenceRejectedError(f"writing {path} failed: {exc}") from None

    def _create(self, path: Path, header: SessionHeader, events: Sequence[SessionEvent]) -> None:
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
        temporary: Path | None = None
        try:
            self._check_folders(path)
            # Every new folder fsynced into its parent, up to the root: the
            # session is reachable once it is recorded durable.
            make_folders(path.parent)
            temporary, handle = _temporary(path)
            with handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            if self.write_hook is not None:
                self.write_hook("create", path, data)
            os.link(temporary, path)  # exclusive: fails when the session exists
            fsync_folder(path.parent)
        except FileExistsError:
            raise SessionExistsError(
                f"session {header['id']!r} already exists under {str(self.root)!r}; "
                "it was not written by this store, which refuses to overwrite it"
            ) from None
        except OSError as exc:
            raise PersistenceRejectedError(f"writing {path} failed: {exc}") from None
        finally:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    temporary.unlink(missing_ok=True)
        self._known[header["id"]] = (len(events), len(data))

    # -- reading ----------------------------------------------------------------------

    def load(self, session_id: str) -> tuple[SessionHeader, list[SessionEvent]]:
        self._check_open()
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


def _temporary(path: Path) -> tuple[Path, Any]:
    """A new temporary file beside ``path``, created exclusively and never
    through a symbolic link (a planted one is a name taken), open for writing."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        name = path.with_name(f"{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            return name, os.fdopen(os.open(name, flags, 0o666), "wb")
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


def _open_session_file(path: Path) -> Any:
    """``path`` open for update, never through a symbolic link, and only a
    regular file with no other name (so no file elsewhere is written)."""
    descriptor = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode) or status.st_nlink != 1:
        os.close(descriptor)
        raise OSError(errno.EPERM, "not a regular file with a single name", str(path))
    return os.fdopen(descriptor, "r+b")

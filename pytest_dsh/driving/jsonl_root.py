"""One writer per JSONL root, whichever host writes it.

Both hosts keep sessions under a JSONL root in DSH's session-file layout, so
a fake host and a bridge host could otherwise write the same session files.
Whoever opens a root takes an exclusive ``flock`` on ``<root>/.pytest-dsh.lock``
(which names the owner's pid) and keeps it until the host closes: the fake
host's store for its own writes, the bridge driver on behalf of the Node
process that writes. A second host on the root, in this process or another,
is refused with :class:`RootLockedError`. The kernel drops the lock when its
process dies, so a lock file left by a killed process is stale by
construction and the next host takes it over.

The root is operator input. The lock file is opened without following a
symbolic link and must be a regular file with no other name, so nothing
planted there is truncated; the descriptor is close-on-exec, and a child
forked by the owner gives up its copy at once (:func:`os.register_at_fork`),
so the root is free when its owner dies. Every folder created on the way is
fsynced into its parent (:func:`make_folders`), so a session recorded
durable under a new root stays reachable. Any failure closes what it opened
and raises one :class:`JsonlRootError`; a lock file it created is left empty
(removing it could free a root another host had just opened it to lock).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from pathlib import Path
from typing import Final

from pytest_dsh.errors import DshKitError

__all__ = [
    "LOCK_FILE",
    "JsonlRootError",
    "RootLockedError",
    "RootUnusableError",
    "fsync_folder",
    "lock_root",
    "make_folders",
    "unlock_root",
]

#: The lock file at the root (a file, so DSH's session listing skips it).
LOCK_FILE: Final = ".pytest-dsh.lock"

#: Lock descriptors this process holds (see :func:`_drop_in_child`).
_HELD: set[int] = set()


class JsonlRootError(DshKitError):
    """A JSONL root a host cannot use (see the subclasses)."""


class RootUnusableError(JsonlRootError):
    """The root cannot hold sessions (a file, not writable, ...)."""


class RootLockedError(JsonlRootError):
    """Another host (this process or another) writes under the same root."""


def fsync_folder(folder: Path) -> None:
    """Make ``folder``'s entries durable."""
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def make_folders(folder: Path) -> None:
    """Create ``folder`` and its missing parents, each fsynced into its parent
    (an ``OSError`` on failure; a folder that exists is left as it is)."""
    missing: list[Path] = []
    current = folder
    while not os.path.lexists(current):
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by someone else
            os.mkdir(path)
        fsync_folder(path.parent)
    if not folder.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder))


def _check_root(root: Path) -> None:
    if root.is_symlink() and not root.exists():
        raise RootUnusableError(
            f"JSONL root {str(root)!r} is a symbolic link to a missing folder "
            f"({os.readlink(root)!r}); create that folder or name another root"
        )
    if root.exists() and not root.is_dir():
        raise RootUnusableError(f"JSONL root {str(root)!r} is not a folder")


def _open_lock(path: Path) -> int:
    """The lock file's descriptor (created exclusively when missing)."""
    flags = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    try:
        return os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        pass
    try:
        return os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RootUnusableError(
                f"the lock file {str(path)!r} is a symbolic link; the kit never "
                "writes through one: remove it"
            ) from None
        raise


def _check_lock_file(path: Path, descriptor: int) -> None:
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        raise RootUnusableError(f"the lock file {str(path)!r} is not a regular file: remove it")
    if status.st_nlink != 1:
        raise RootUnusableError(
            f"the lock file {str(path)!r} has other names (hard links); the kit never "
            "writes a file another name shares: remove it"
        )


def _holder(descriptor: int) -> str:
    """Who holds the lock, as the refusal names it."""
    try:
        text = os.pread(descriptor, 64, 0).decode("ascii", "replace").strip()
    except OSError:
        text = ""
    if not text.isdecimal():
        return "pid unknown"
    pid = int(text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return f"pid {pid}, which has exited: a process it started still holds the lock"
    except OSError:
        pass  # alive, owned by another user
    return f"pid {pid}"


def lock_root(root: Path) -> int:
    """Create ``root`` if needed and hold its lock; the lock's descriptor
    (release it with :func:`unlock_root`)."""
    _check_root(root)
    path = root / LOCK_FILE
    descriptor = -1
    locked = False
    try:
        make_folders(root)
        descriptor = _open_lock(path)
        _check_lock_file(path, descriptor)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RootLockedError(
                f"JSONL root {str(root)!r} is in use by another host ({_holder(descriptor)}); "
                "one writer per root: close the other host or give each its own root"
            ) from None
        locked = True
        os.ftruncate(descriptor, 0)
        pid = f"{os.getpid()}\n".encode("ascii")
        if os.pwrite(descriptor, pid, 0) != len(pid):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    except BaseException as exc:
        if descriptor >= 0:
            if locked:  # no torn pid for a later refusal to misname
                with contextlib.suppress(OSError):
                    os.ftruncate(descriptor, 0)
            os.close(descriptor)
        if isinstance(exc, OSError):
            raise RootUnusableError(
                f"JSONL root {str(root)!r} cannot hold sessions: {exc}"
            ) from None
        raise
    _HELD.add(descriptor)
    return descriptor


def unlock_root(descriptor: int) -> None:
    """Release a root :func:`lock_root` locked (once per descriptor)."""
    _HELD.discard(descriptor)
    os.close(descriptor)


def _drop_in_child() -> None:
    # A forked child shares the lock with its parent: were it to keep it, the
    # root would stay locked after the owner died. The number stays open (on
    # /dev/null) so the child's own unlock_root closes nothing else.
    for descriptor in _HELD:
        with contextlib.suppress(OSError):
            placeholder = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
            os.dup2(placeholder, descriptor, inheritable=False)
            os.close(placeholder)


os.register_at_fork(after_in_child=_drop_in_child)

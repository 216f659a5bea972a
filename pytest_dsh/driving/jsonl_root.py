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
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Final

__all__ = ["LOCK_FILE", "JsonlRootError", "RootLockedError", "RootUnusableError", "lock_root"]

#: The lock file at the root (a file, so DSH's session listing skips it).
LOCK_FILE: Final = ".pytest-dsh.lock"


class JsonlRootError(Exception):
    """A JSONL root a host cannot use (see the subclasses)."""


class RootUnusableError(JsonlRootError):
    """The root cannot hold sessions (a file, not writable, ...)."""


class RootLockedError(JsonlRootError):
    """Another host (this process or another) writes under the same root."""


def lock_root(root: Path) -> int:
    """Create ``root`` if needed and hold its lock; the lock's descriptor
    (close it to release the root)."""
    if root.exists() and not root.is_dir():
        raise RootUnusableError(f"JSONL root {str(root)!r} is not a folder")
    try:
        root.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(root / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise RootUnusableError(
            f"JSONL root {str(root)!r} cannot hold sessions: {exc}"
        ) from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        owner = os.pread(descriptor, 64, 0).decode("ascii", "replace").strip() or "unknown"
        os.close(descriptor)
        raise RootLockedError(
            f"JSONL root {str(root)!r} is in use by another host (pid {owner}); "
            "one writer per root: close the other host or give each its own root"
        ) from None
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, f"{os.getpid()}\n".encode("ascii"), 0)
    return descriptor

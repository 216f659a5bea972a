"""Reading the files the operator hands the kit (a package's ``package.json``,
an install's records, a cell of the version matrix): regular files only, at
most a given size, every problem one :class:`UnreadableFileError` naming the
file and what is wrong. A FIFO, a device or a symbolic link to one is refused
before a byte is read, so nothing blocks and nothing reads without end."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from pytest_dsh.errors import DshKitError

__all__ = ["UnreadableFileError", "decode_json", "describe_kind", "read_json", "read_regular"]


class UnreadableFileError(DshKitError, ValueError):
    """``path`` cannot be used; ``problem`` says why (``is not JSON ...``)."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


def describe_kind(mode: int) -> str:
    """``a FIFO``, ``a character device``...: what a non-regular file is."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of ``path`` (symbolic links followed) if it is a regular file
    of at most ``limit`` bytes; else :class:`UnreadableFileError`."""
    try:
        found = os.stat(path)
        if not stat.S_ISREG(found.st_mode):
            raise UnreadableFileError(
                path, f"is not a regular file (it is {describe_kind(found.st_mode)})"
            )
        # O_NONBLOCK: a file swapped for a FIFO since the stat opens at once.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise UnreadableFileError(path, "does not exist") from None
    except OSError as exc:
        raise UnreadableFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as handle:
        opened = os.fstat(handle.fileno())
        if not stat.S_ISREG(opened.st_mode):
            raise UnreadableFileError(
                path, f"is not a regular file (it is {describe_kind(opened.st_mode)})"
            )
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise UnreadableFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise UnreadableFileError(path, f"is larger than {limit} bytes")
    return data


def decode_json(data: bytes, path: Path) -> object:
    """``data`` (the content of ``path``) as JSON, strictly UTF-8."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFileError(
            path, f"is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnreadableFileError(
            path, f"is not JSON (line {exc.lineno} column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise UnreadableFileError(path, "is nested too deeply to read") from None


def read_json(path: Path, limit: int) -> object:
    """:func:`read_regular` then :func:`decode_json`."""
    return decode_json(read_regular(path, limit), path)

"""Where ``--dsh-report`` writes, checked before the suite runs and written
without touching anything else.

The report path is operator input. :func:`check_report_target` refuses, at
start, a path the reports cannot take: a device or a file where a folder is
named, a folder where a file is named, a symbolic link or a non-regular file
where a report would go, a folder that cannot be created or written. Then
:func:`write_reports` writes each report to a temporary file created
exclusively beside it (never through a symbolic link) and renames it into
place, so a planted link is replaced, never followed, and a failure (a full
disk) leaves the earlier report, not a truncated one.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import secrets
import stat
from collections.abc import Callable, Mapping
from typing import Final

from pytest_dsh.errors import DshKitError
from pytest_dsh.pytest_plugin.reporting.html import render_html
from pytest_dsh.pytest_plugin.reporting.markdown import render_markdown
from pytest_dsh.pytest_plugin.reporting.views import ReportDocument

__all__ = ["ReportPathError", "ReportWriteError", "check_report_target", "render_json",
           "report_paths", "write_reports"]


def render_json(document: ReportDocument) -> str:
    """report.json: the JSON document, as built."""
    return json.dumps(document.json, indent=1, ensure_ascii=False) + "\n"


_RENDERERS: Final[Mapping[str, Callable[[ReportDocument], str]]] = {
    ".html": render_html,
    ".md": render_markdown,
    ".json": render_json,
}


class ReportPathError(DshKitError):
    """The report path cannot take the reports (found before the suite runs)."""


class ReportWriteError(DshKitError):
    """A report could not be written at the end of the run; ``written`` holds
    the reports that were."""

    def __init__(self, message: str, written: list[pathlib.Path]) -> None:
        super().__init__(message)
        self.written = written


def report_paths(target: pathlib.Path) -> list[pathlib.Path]:
    """``target`` itself when its suffix names a format (``.html``, ``.md``,
    ``.json``), else ``report.html``, ``report.json`` and ``report.md`` in
    the folder ``target``."""
    if target.suffix in _RENDERERS:
        return [target]
    return [target / f"report{suffix}" for suffix in (".html", ".json", ".md")]


def _folder(target: pathlib.Path) -> pathlib.Path:
    return target.parent if target.suffix in _RENDERERS else target


def check_report_target(target: pathlib.Path) -> None:
    """Refuse, with :class:`ReportPathError`, a report path the run could not
    write; creates the report folder (as the run would)."""
    folder = _folder(target)
    if folder.is_symlink() and not folder.exists():
        raise ReportPathError(f"{str(folder)!r} is a symbolic link to a missing folder")
    if folder.exists() and not folder.is_dir():
        raise ReportPathError(
            f"{str(folder)!r} is not a folder; name a folder for report.html, report.json "
            "and report.md, or a file ending in .html, .json or .md"
        )
    existing = folder
    while not os.path.lexists(existing) and existing.parent != existing:
        existing = existing.parent
    if existing != folder and not existing.is_dir():
        raise ReportPathError(
            f"{str(existing)!r} is not a folder, so {str(folder)!r} cannot be created"
        )
    for path in report_paths(target):
        _check_report_file(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        descriptor, probe = _create_new(folder, ".dsh-report-probe")
        os.close(descriptor)
        os.unlink(probe)
    except OSError as exc:
        raise ReportPathError(f"cannot write in {str(folder)!r}: {exc.strerror or exc}") from None


def _check_report_file(path: pathlib.Path) -> None:
    try:
        status = path.lstat()
    except FileNotFoundError:
        return
    except OSError as exc:  # a path under a file, a name too long, ...
        raise ReportPathError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(status.st_mode):
        raise ReportPathError(
            f"{str(path)!r} is a symbolic link; the report never writes through one: "
            "remove it or name another path"
        )
    if stat.S_ISDIR(status.st_mode):
        raise ReportPathError(f"{str(path)!r} is a folder, where the report file would go")
    if not stat.S_ISREG(status.st_mode):
        raise ReportPathError(f"{str(path)!r} is not a regular file (a device, a FIFO, ...)")


def write_reports(document: ReportDocument, target: pathlib.Path) -> list[pathlib.Path]:
    """Write the reports :func:`report_paths` names; the paths written.

    Every report is attempted; if any fails, :class:`ReportWriteError` names
    each failure (one line) and carries the paths that were written."""
    written: list[pathlib.Path] = []
    failed: list[str] = []
    for path in report_paths(target):
        try:
            data = _RENDERERS[path.suffix](document).encode("utf-8")
            _replace(path, data)
        except OSError as exc:
            failed.append(f"{path} ({exc.strerror or exc})")
        else:
            written.append(path)
    if failed:
        raise ReportWriteError("not written: " + "; ".join(failed), written)
    return written


def _create_new(folder: pathlib.Path, stem: str) -> tuple[int, pathlib.Path]:
    """A new file in ``folder``, created exclusively and never through a
    symbolic link, with the mode the umask gives (unlike ``mkstemp``'s 0600)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        name = folder / f"{stem}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(name, flags, 0o666), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder}")


def _replace(path: pathlib.Path, data: bytes) -> None:
    """``data`` becomes ``path``: written to a new temporary file beside it
    (exclusive, never through a symbolic link), synced, renamed over it; on
    failure ``path`` is as it was."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, name = _create_new(path.parent, f".{path.name}")
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view):]
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise

"""The npm install cache: where it is, what it holds, and pruning it.

``python -m pytest_dsh.npm.cache [--cache PATH] {size,list,prune}``

- ``size``: the cache's folder and its disk use (hard links counted once, as
  ``du`` does), by kind of entry.
- ``list``: every entry: kind, name, own disk use, when last used, whether a
  live process uses it, and what it holds.
- ``prune``: remove the package installs no live process uses (``--older-than
  DAYS``: only those unused for DAYS; ``--all``: the host installs too), the
  staging folders of dead runs, and the shared runtimes no install links any
  more; prints each removal and what it freed. An install in use (a process
  holds its shared lock) is never removed.

Exit status: 0 done, 2 usage error or a cache that cannot be used.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import re
import secrets
import shutil
import stat
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pytest_dsh.npm._install import (
    IN_USE,
    MANIFEST,
    RUNTIMES,
    STAGING,
    _lock_if_unused,
    _locked,
    _read_manifest,
    _store_files,
    clean_stale_staging,
    default_cache_root,
)

__all__ = ["CacheEntry", "PruneResult", "disk_use", "entries", "main", "prune"]

_DAY: Final = 86400.0
#: An install's folder name: its packages (or ``base-<host>``) and its key.
_INSTALL_NAME: Final = re.compile(r"[A-Za-z0-9._+-]+-[0-9a-f]{16}")


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """One entry of the cache (``own_bytes``: its disk use, files shared with
    an entry listed before it not counted; for a removed entry, what its
    removal freed). ``kind``: ``install`` (packages under test),
    ``host`` (a host profile's base), ``runtime`` (a shared runtime of the
    store), ``staging`` (an unfinished or set-aside install) or ``other``
    (not the kit's: never removed)."""

    path: Path
    kind: str
    own_bytes: int
    last_used: float
    in_use: bool
    detail: str


@dataclass(frozen=True, slots=True)
class PruneResult:
    removed: tuple[CacheEntry, ...]
    kept_in_use: tuple[CacheEntry, ...]
    freed_bytes: int


def _walk(folder: Path) -> Iterator[os.stat_result]:
    """The ``lstat`` of ``folder`` and of everything under it."""
    with contextlib.suppress(OSError):
        yield os.lstat(folder)
    for here, folders, files in os.walk(folder):
        for name in (*folders, *files):
            with contextlib.suppress(OSError):
                yield os.lstat(os.path.join(here, name))


def _blocks(found: os.stat_result) -> int:
    return getattr(found, "st_blocks", found.st_size // 512) * 512


def disk_use(folder: Path, seen: set[tuple[int, int]] | None = None) -> int:
    """Bytes ``folder`` takes on disk, each file counted once however many
    hard links it has (and not at all when already in ``seen``)."""
    counted = set() if seen is None else seen
    total = 0
    for found in _walk(folder):
        key = (found.st_dev, found.st_ino)
        if key not in counted:
            counted.add(key)
            total += _blocks(found)
    return total


def _frees(folder: Path) -> int:
    """Bytes removing ``folder`` gives back: its files linked nowhere else."""
    return sum(
        _blocks(found) for found in _walk(folder)
        if stat.S_ISDIR(found.st_mode) or found.st_nlink == 1
    )


def _in_use(folder: Path) -> bool:
    if not (folder / IN_USE).is_file():
        return False
    try:
        handle = _lock_if_unused(folder)
    except OSError:
        return True  # unreadable: never report it free
    if handle is None:
        return True
    handle.close()
    return False


def _last_used(folder: Path) -> float:
    for name in (IN_USE, MANIFEST, ""):
        with contextlib.suppress(OSError):
            return (folder / name).stat().st_mtime if name else folder.stat().st_mtime
    return 0.0


def _runtime_links(entry: Path) -> int:
    """How many other links the store entry's most-linked file has (0: no
    install uses it)."""
    files = _store_files(entry) or {}
    most = 0
    for relative, item in files.items():
        if isinstance(item, list) and item[:1] == ["f"]:
            with contextlib.suppress(OSError):
                most = max(most, os.lstat(entry / "package" / relative).st_nlink - 1)
    return most


def _describe(folder: Path) -> tuple[str, str]:
    record = _read_manifest(folder, any_format=True)
    if record is None:
        if _INSTALL_NAME.fullmatch(folder.name) and (folder / IN_USE).is_file():
            return "install", f"damaged: {MANIFEST} is missing or malformed"
        return "other", "not an install of this kit (left alone)"
    host = record.get("host")
    if record.get("base") is True:
        return "host", f"DSH host {host}"
    packages = record.get("packages")
    names = ", ".join(f"{k}={v}" for k, v in packages.items()) if isinstance(
        packages, dict) else "?"
    current = "" if _read_manifest(folder) is not None else "; another kit version's layout"
    return "install", f"{names} on DSH host {host}{current}"


def entries(root: Path) -> list[CacheEntry]:
    """Every entry of the cache at ``root``, runtimes first (own disk use:
    an install's files that are links into the runtime store are the store's)."""
    seen: set[tuple[int, int]] = set()
    found: list[CacheEntry] = []
    store = root / RUNTIMES
    if store.is_dir():
        for entry in sorted(store.iterdir()):
            if entry.name.startswith("."):
                continue
            links = _runtime_links(entry)
            detail = f"linked by {links} host or package install(s)" if links else (
                "linked by no install")
            found.append(CacheEntry(entry, "runtime", disk_use(entry, seen),
                                    _last_used(entry), links > 0, detail))
    if not root.is_dir():
        return found
    for folder in sorted(root.iterdir()):
        if folder.name.startswith(".") or folder.name == RUNTIMES or folder.is_symlink() or (
            not folder.is_dir()
        ):
            continue
        kind, detail = _describe(folder)
        found.append(CacheEntry(folder, kind, disk_use(folder, seen), _last_used(folder),
                                kind != "other" and _in_use(folder), detail))
    staging = root / STAGING
    if staging.is_dir():
        for folder in sorted(staging.iterdir()):
            found.append(CacheEntry(folder, "staging", disk_use(folder, seen),
                                    _last_used(folder), False, "unfinished or set aside"))
    return found


def _remove(root: Path, folder: Path) -> bool:
    """Remove an install no process uses: locked exclusively, moved aside
    (so a process about to pin it finds it gone and installs it anew), then
    deleted. False when a process uses it."""
    try:
        handle = _lock_if_unused(folder)
    except OSError:
        return False
    if handle is None:
        return False
    with handle:
        aside = root / STAGING / f"{folder.name}.pruned.{secrets.token_hex(4)}"
        aside.parent.mkdir(parents=True, exist_ok=True)
        try:
            folder.rename(aside)
        except OSError:
            return False
    shutil.rmtree(aside, ignore_errors=True)
    return True


def prune(
    root: Path,
    *,
    older_than_days: float | None = None,
    include_hosts: bool = False,
    now: float | None = None,
) -> PruneResult:
    """Remove what no run needs: package installs no live process uses
    (unused for ``older_than_days`` when given; host installs too with
    ``include_hosts``, and always those of another kit's layout), staging
    folders of dead runs, then the runtimes no install links any more."""
    moment = time.time() if now is None else now
    removed: list[CacheEntry] = []
    kept: list[CacheEntry] = []
    freed = 0
    for entry in entries(root):
        if entry.kind not in {"install", "host"}:
            continue
        current_host = entry.kind == "host" and _read_manifest(entry.path) is not None
        if current_host and not include_hosts:
            continue
        if older_than_days is not None and moment - entry.last_used < older_than_days * _DAY:
            continue
        frees = _frees(entry.path)
        if _remove(root, entry.path):
            removed.append(dataclasses.replace(entry, own_bytes=frees))
            freed += frees
        else:
            kept.append(entry)
    staging = root / STAGING
    frees_by = {path: _frees(path) for path in staging.iterdir()} if staging.is_dir() else {}
    for path in clean_stale_staging(root, now=moment):
        removed.append(CacheEntry(path, "staging", frees_by.get(path, 0), moment, False,
                                  "a dead run's staging folder"))
        freed += frees_by.get(path, 0)
    store = root / RUNTIMES
    if store.is_dir():
        with _locked(root / f".{RUNTIMES}.lock"):
            for stored in sorted(store.iterdir()):
                if stored.name.startswith(".") or _runtime_links(stored) > 0:
                    continue
                frees = _frees(stored)
                aside = root / STAGING / f"{stored.name}.pruned.{secrets.token_hex(4)}"
                aside.parent.mkdir(parents=True, exist_ok=True)
                try:
                    stored.rename(aside)
                except OSError:
                    continue
                if aside.is_dir() and not aside.is_symlink():
                    shutil.rmtree(aside, ignore_errors=True)
                else:
                    aside.unlink(missing_ok=True)
                removed.append(CacheEntry(stored, "runtime", frees, moment, False,
                                          "linked by no install"))
                freed += frees
    return PruneResult(tuple(removed), tuple(kept), freed)


def _size(count: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} B"


def _when(moment: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(moment))


def _say_size(root: Path) -> None:
    found = entries(root)
    print(f"npm cache: {root}")
    print(f"total: {_size(disk_use(root))} on disk (hard links counted once)")
    for kind, label in (("runtime", "shared runtimes"), ("host", "host installs"),
                        ("install", "package installs"), ("staging", "staging"),
                        ("other", "not the kit's")):
        of_kind = [entry for entry in found if entry.kind == kind]
        if of_kind:
            total = sum(entry.own_bytes for entry in of_kind)
            print(f"  {label}: {len(of_kind)}, {_size(total)}")


def _say_list(root: Path) -> None:
    print(f"npm cache: {root}")
    for entry in entries(root):
        use = ", in use" if entry.in_use and entry.kind != "runtime" else ""
        when = "stored" if entry.kind == "runtime" else "last used"
        print(f"{entry.kind:8} {entry.path.name}  {_size(entry.own_bytes)}, {when} "
              f"{_when(entry.last_used)}{use}: {entry.detail}")


def _say_prune(root: Path, arguments: argparse.Namespace) -> None:
    result = prune(root, older_than_days=arguments.older_than, include_hosts=arguments.all)
    print(f"npm cache: {root}")
    for entry in result.removed:
        print(f"removed {entry.kind} {entry.path.name} ({_size(entry.own_bytes)} freed)")
    for entry in result.kept_in_use:
        print(f"kept {entry.kind} {entry.path.name}: a running process uses it")
    print(f"freed {_size(result.freed_bytes)}; the cache now takes {_size(disk_use(root))}")


def _days(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of days: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"not a number of days: {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_dsh.npm.cache",
        description="Show or prune the npm install cache of pytest-dsh.",
    )
    parser.add_argument("--cache", metavar="PATH", type=Path, default=None,
                        help="the cache folder (default: $DSH_NPM_CACHE, else the user "
                             "cache directory's pytest-dsh/npm)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("size", help="the cache's folder and disk use")
    commands.add_parser("list", help="every entry, its size, last use and content")
    pruning = commands.add_parser(
        "prune", help="remove installs no running process uses and runtimes nothing links")
    pruning.add_argument("--older-than", metavar="DAYS", type=_days, default=None,
                         help="only installs not used for DAYS days")
    pruning.add_argument("--all", action="store_true",
                         help="the host installs too (the next run installs them again)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    root = (arguments.cache or default_cache_root()).expanduser().absolute()
    if os.path.lexists(root) and not root.is_dir():
        print(f"the npm cache {root} cannot be used: it is not a folder", file=sys.stderr)
        return 2
    if not root.exists():
        print(f"npm cache: {root} (does not exist: nothing cached)")
        return 0
    try:
        {"size": _say_size, "list": _say_list}.get(arguments.command, lambda r: None)(root)
        if arguments.command == "prune":
            _say_prune(root, arguments)
    except OSError as exc:
        print(f"the npm cache {root} cannot be used: {exc.filename or root}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

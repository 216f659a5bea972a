"""What a package SPEC names: a folder, a tarball, or a registry package.

A SPEC is what ``npm install`` accepts. The kit must know the package's own
name before installing (the bridge imports the package by that name), so local
specs are read here: a folder's ``package.json``, a tarball's
``package/package.json``. Registry specs (``name``, ``name@range``,
``@scope/name@range``) carry their name; any other form (git, URL) is named by
npm itself at install time.

Everything here is the operator's input, checked before npm or the bridge sees
it: a spec that starts with ``-`` (npm would read it as an option), a package
name npm would refuse or that Node resolves to a built-in module (``fs``:
the bridge would load Node's own module instead of the package), a
``package.json`` that is not a regular file of JSON text, and a folder that
holds a file npm cannot pack (a FIFO, a device, a symbolic link to nothing or
to a special file) are each one :class:`PackageNotFoundError` naming the file
and what is wrong.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import stat
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pytest_dsh.npm._files import UnreadableFileError, decode_json, describe_kind, read_regular
from pytest_dsh.npm.errors import PackageNotFoundError

__all__ = [
    "MAX_MANIFEST_BYTES", "NODE_BUILTINS", "ROLES", "PackageSpec", "check_name", "parse_spec",
]

#: The plugin roles a package may fill, as the driver names the plugins.
ROLES: Final = ("schedule", "time-context")

_REGISTRY = re.compile(r"^(?P<name>(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*)(?:@(?P<range>.+))?$")
_TARBALL_SUFFIXES: Final = (".tgz", ".tar.gz", ".tar")
#: Folders never packed by npm, so never part of a folder's fingerprint.
_SKIPPED_FOLDERS: Final = frozenset({"node_modules", ".git"})
#: The entries of a tarball searched for its ``package.json``.
_MAX_TAR_ENTRIES: Final = 100_000
#: The largest ``package.json`` read (npm's own are a few kB).
MAX_MANIFEST_BYTES: Final = 1 << 20
#: Node's built-in modules a bare name resolves to before any package
#: (``require('module').builtinModules`` of Node 22, top-level names; those
#: reachable only as ``node:NAME``, like ``node:test``, leave the name free).
NODE_BUILTINS: Final = frozenset({
    "assert", "async_hooks", "buffer", "child_process", "cluster", "console", "constants",
    "crypto", "dgram", "diagnostics_channel", "dns", "domain", "events", "fs", "http", "http2",
    "https", "inspector", "module", "net", "os", "path", "perf_hooks", "process", "punycode",
    "querystring", "readline", "repl", "stream", "string_decoder", "sys", "timers", "tls",
    "trace_events", "tty", "url", "util", "v8", "vm", "wasi", "worker_threads", "zlib",
})
#: npm's rule for a package name: URL-safe, no leading ``.`` or ``_``, at most
#: 214 characters (upper case is accepted, as npm does for older packages).
_NAME = re.compile(r"^(?:@[A-Za-z0-9~-][A-Za-z0-9._~-]*/)?[A-Za-z0-9~-][A-Za-z0-9._~-]*$")
_RESERVED_NAMES: Final = frozenset({"node_modules", "favicon.ico"})


@dataclass(frozen=True, slots=True)
class PackageSpec:
    """One requested package.

    ``dependency`` is the value written into the install's ``package.json``;
    ``fingerprint`` changes when a local folder or tarball changes (so the
    cache reinstalls it) and is empty for registry specs."""

    role: str
    text: str
    name: str | None
    version: str | None
    dependency: str
    fingerprint: str

    @property
    def local(self) -> bool:
        return self.dependency.startswith("file:")

    @property
    def label(self) -> str:
        """How the package is shown: ``name@version`` when known, else the spec."""
        if self.name is None:
            return self.text
        return f"{self.name}@{self.version}" if self.version else self.name


def _looks_local(text: str) -> bool:
    if text.startswith((".", "/", "~", "file:")):
        return True
    return "://" not in text and text.endswith(_TARBALL_SUFFIXES)


def check_name(name: str) -> str | None:
    """Why ``name`` cannot be a package under test, or None when it can."""
    bare = name.removeprefix("node:")
    if name.startswith("node:") or bare in NODE_BUILTINS or bare.split("/")[0] in NODE_BUILTINS:
        return (
            f"the name {name!r} is a Node built-in module: the bridge would load Node's "
            "own module instead of the package; rename the package"
        )
    if not name or len(name) > 214 or not _NAME.match(name) or name in _RESERVED_NAMES:
        return (
            f"the name {name!r} is not a valid npm package name (at most 214 URL-safe "
            "characters, not starting with '.' or '_', optionally @scope/)"
        )
    return None


def _manifest_fields(manifest: object, where: str) -> tuple[str, str | None]:
    if not isinstance(manifest, dict):
        kind = "null" if manifest is None else type(manifest).__name__
        raise PackageNotFoundError(f"{where}: is not a JSON object (it is {kind})")
    name = manifest.get("name")
    if not isinstance(name, str) or not name:
        raise PackageNotFoundError(f"{where}: has no name (a package.json needs a \"name\" string)")
    problem = check_name(name)
    if problem is not None:
        raise PackageNotFoundError(f"{where}: {problem}")
    version = manifest.get("version")
    return name, version if isinstance(version, str) else None


def _hash_file(path: Path, digest: hashlib._Hash) -> None:
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)


def _special(path: Path) -> str | None:
    """Why npm cannot pack ``path`` (an entry of a package folder), or None."""
    mode = path.lstat().st_mode
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if not stat.S_ISLNK(mode):
        return f"is {describe_kind(mode)}"
    try:
        target = path.stat().st_mode
    except FileNotFoundError:
        return f"is a symbolic link to nothing ({os.readlink(path)})"
    except OSError as exc:  # a loop, say
        return f"is a symbolic link that cannot be followed ({exc.strerror or exc})"
    if stat.S_ISREG(target) or stat.S_ISDIR(target):
        return None
    return f"is a symbolic link to {describe_kind(target)} ({os.readlink(path)})"


def _folder_fingerprint(role: str, text: str, folder: Path) -> str:
    """A digest of the folder's files (``node_modules`` and ``.git`` left out);
    a file npm cannot pack is refused by name. Symbolic links are read at
    their target; a linked folder counts by its link text (never walked)."""
    digest = hashlib.sha256()

    def refuse(path: Path, problem: str) -> PackageNotFoundError:
        return PackageNotFoundError(f"{role}={text}: {path}: {problem}")

    def unreadable(error: OSError) -> None:
        raise refuse(Path(error.filename or folder), f"cannot be read ({error.strerror or error})")

    for root, folders, files in os.walk(folder, onerror=unreadable):
        folders[:] = sorted(name for name in folders if name not in _SKIPPED_FOLDERS)
        for name in [*folders, *sorted(files)]:
            path = Path(root, name)
            try:
                problem = _special(path)
                if problem is not None:
                    raise refuse(path, problem)
                digest.update(str(path.relative_to(folder)).encode())
                if path.is_symlink() and path.is_dir():
                    digest.update(b"-> " + os.readlink(path).encode())
                elif name in files:
                    _hash_file(path, digest)
            except OSError as exc:
                raise refuse(path, f"cannot be read ({exc.strerror or exc})") from None
    return digest.hexdigest()


def _read_manifest_file(role: str, text: str, path: Path) -> object:
    try:
        return decode_json(read_regular(path, MAX_MANIFEST_BYTES), path)
    except UnreadableFileError as exc:
        raise PackageNotFoundError(f"{role}={text}: {exc}") from None


def _read_folder(role: str, text: str, folder: Path) -> PackageSpec:
    manifest_path = folder / "package.json"
    if not os.path.lexists(manifest_path):
        raise PackageNotFoundError(f"{role}={text}: the folder {folder} has no package.json")
    manifest = _read_manifest_file(role, text, manifest_path)
    name, version = _manifest_fields(manifest, f"{role}={text}: {manifest_path}")
    fingerprint = _folder_fingerprint(role, text, folder)
    return PackageSpec(role, text, name, version, f"file:{folder}", fingerprint)


def _read_tarball(role: str, text: str, path: Path) -> PackageSpec:
    try:
        with tarfile.open(path) as archive:
            # Read entry by entry, up to a bound: a tarball of millions of
            # entries is not listed whole to find one file.
            member = next(
                (m for m in itertools.islice(archive, _MAX_TAR_ENTRIES)
                 if m.isfile() and m.name.count("/") == 1 and m.name.endswith("/package.json")),
                None,
            )
            raw = archive.extractfile(member) if member is not None else None
            if member is None or raw is None:
                raise PackageNotFoundError(
                    f"{role}={text}: {path} is not an npm package tarball (no package/package.json)"
                )
            where = Path(f"{path}: {member.name}")
            data = raw.read(MAX_MANIFEST_BYTES + 1)
            if len(data) > MAX_MANIFEST_BYTES:
                raise PackageNotFoundError(
                    f"{role}={text}: {where}: is larger than {MAX_MANIFEST_BYTES} bytes"
                )
            manifest = decode_json(data, where)
        digest = hashlib.sha256()
        _hash_file(path, digest)
    except UnreadableFileError as exc:
        raise PackageNotFoundError(f"{role}={text}: {exc}") from None
    except (tarfile.TarError, OSError, EOFError, ValueError) as exc:
        raise PackageNotFoundError(f"{role}={text}: cannot read the tarball {path}: {exc}") from exc
    name, version = _manifest_fields(manifest, f"{role}={text}: {path}: package/package.json")
    return PackageSpec(role, text, name, version, f"file:{path}", digest.hexdigest())


def parse_spec(role: str, text: str, *, base: Path | None = None) -> PackageSpec:
    """The package ``text`` names, for ``role``. Relative paths are taken from
    ``base`` (default: the working directory). Raises
    :class:`~pytest_dsh.npm.errors.PackageNotFoundError` for a local path that
    does not exist or is not a package."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; roles: {', '.join(ROLES)}")
    text = text.strip()
    if not text:
        raise PackageNotFoundError(f"{role}: an empty package spec")
    if text.startswith("-"):
        raise PackageNotFoundError(
            f"{role}={text}: the spec starts with '-', so npm would read it as an option; "
            f"name a folder or tarball whose name starts with '-' as ./{text}"
        )
    if text.startswith("node:"):
        raise PackageNotFoundError(f"{role}={text}: {check_name(text)}")
    path_text = text.removeprefix("file:")
    candidate = Path(path_text).expanduser()
    if not candidate.is_absolute():
        candidate = (base or Path.cwd()) / candidate
    if _looks_local(text) or candidate.exists():
        # A symlink (an `npm link` target, say) is read and packed at its target.
        resolved = candidate.resolve()
        if resolved.is_dir():
            return _read_folder(role, text, resolved)
        if resolved.is_file() and resolved.name.endswith(_TARBALL_SUFFIXES):
            return _read_tarball(role, text, resolved)
        if resolved.exists():
            raise PackageNotFoundError(
                f"{role}={text}: {resolved} is neither a package folder nor a .tgz tarball"
            )
        raise PackageNotFoundError(f"{role}={text}: no such folder or tarball ({resolved})")
    match = _REGISTRY.match(text)
    if match:
        problem = check_name(match["name"])
        if problem is not None:
            raise PackageNotFoundError(f"{role}={text}: {problem}")
        version = match["range"]
        return PackageSpec(role, text, match["name"], version, version or "latest", "")
    # git URLs, tarball URLs, aliases: npm resolves the name at install time.
    return PackageSpec(role, text, None, None, text, "")

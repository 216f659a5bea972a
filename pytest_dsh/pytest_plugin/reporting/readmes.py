"""Which README text the suite checks: each vendored README of
``dsh_conformance/spec`` with the version its ``versions.json`` gives it and a
short hash of its content, so a report says exactly what it was measured
against (and a changed file shows even when its label was not updated)."""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["readme_line", "readme_versions"]

_HASH_LENGTH = 12


@functools.cache
def _versions() -> tuple[tuple[str, str, str, str], ...]:
    try:
        folder = importlib.resources.files("dsh_spec")
        labels: dict[str, Any] = json.loads(folder.joinpath("versions.json").read_text("utf-8"))
        found = []
        for name, label in labels.items():
            digest = hashlib.sha256(folder.joinpath(name).read_bytes()).hexdigest()
            found.append((str(label["plugin"]), name, str(label["version"]), digest))
    except (ModuleNotFoundError, FileNotFoundError, ValueError, KeyError):
        return ()  # the suite is not installed, or ships no labels
    return tuple(found)


def readme_versions() -> list[dict[str, str]]:
    """``[{plugin, file, version, sha256}]``, ``sha256`` shortened; empty
    when the conformance suite is not installed."""
    return [
        {"plugin": plugin, "file": name, "version": version, "sha256": digest[:_HASH_LENGTH]}
        for plugin, name, version, digest in _versions()
    ]


def readme_line(readmes: Sequence[Mapping[str, Any]]) -> str | None:
    """``READMEs checked: schedule @deepseek-ai/dsh-schedule 0.1.0-rc.8 (sha256 …); …``."""
    if not readmes:
        return None
    return "READMEs checked: " + "; ".join(
        f"{r['plugin']} {r['version']} (sha256 {r['sha256']})" for r in readmes
    )

"""Which README text the suite checks: each vendored README of the spec room
(``dsh_spec.versions``) with its version and a short hash of its content, so a
report says exactly what it was measured against (and a changed file shows
even when its label was not updated)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from dsh_spec.versions import VendoredReadme, vendored_readmes

__all__ = ["readme_line", "readme_versions"]

_HASH_LENGTH = 12


@functools.cache
def _versions() -> tuple[VendoredReadme, ...]:
    return vendored_readmes()


def readme_versions() -> list[dict[str, str]]:
    """``[{plugin, file, version, sha256}]``, ``sha256`` shortened."""
    return [
        {
            "plugin": readme.plugin,
            "file": readme.file,
            "version": readme.version,
            "sha256": readme.sha256[:_HASH_LENGTH],
        }
        for readme in _versions()
    ]


def readme_line(readmes: Sequence[Mapping[str, Any]]) -> str | None:
    """``READMEs checked: schedule @deepseek-ai/dsh-schedule 0.1.0-rc.8 (sha256 …); …``."""
    if not readmes:
        return None
    return "READMEs checked: " + "; ".join(
        f"{r['plugin']} {r['version']} (sha256 {r['sha256']})" for r in readmes
    )

"""The tests a DSH host decided (:mod:`pytest_dsh.npm.host_limits`), as the
reports list them: apart from the plugin's failures, never counted against
it, and never hidden."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_dsh.pytest_plugin.reporting.results import HOST_LIMIT, HOST_LIMIT_LIFTED

__all__ = ["HOST_LIMIT_OUTCOMES", "host_limit_line", "host_limited"]

HOST_LIMIT_OUTCOMES = (HOST_LIMIT, HOST_LIMIT_LIFTED)


def host_limited(document: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The rows whose outcome the host decided, lifted limits first."""
    rows = [t for t in document["tests"] if t["outcome"] in HOST_LIMIT_OUTCOMES]
    return sorted(rows, key=lambda t: (t["outcome"] != HOST_LIMIT_LIFTED, t["id"]))


def host_limit_line(rows: Sequence[Mapping[str, Any]]) -> str | None:
    """One line for the terminal and the report headers, or ``None``."""
    if not rows:
        return None
    lifted = sum(1 for t in rows if t["outcome"] == HOST_LIMIT_LIFTED)
    line = (
        f"host limits: {len(rows) - lifted} tests failed as the DSH host decides, "
        "not counted against the plugin (pytest_dsh/npm/host_limits.json)"
    )
    if lifted:
        line += f"; {lifted} passed anyway (host limit lifted: the table is stale for them)"
    return line

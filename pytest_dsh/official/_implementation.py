"""The official npm build as an implementation under test (``--dsh-impl=official``).

Plugins run inside a Node process (see :mod:`pytest_dsh.official._process`);
``expected_failures`` comes from ``expectations.json`` beside this module: test
ids (relative to ``dsh_conformance``) where the official build genuinely differs
from the README, each with the README sentence it deviates from and why.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, TypedDict, final

from pytest_dsh.official._driver import BridgeHostDriver
from pytest_dsh.official._process import locate_bridge, locate_node

__all__ = [
    "OFFICIAL_SCHEDULE_VERSION",
    "OFFICIAL_TIME_CONTEXT_VERSION",
    "Expectation",
    "OfficialImplementation",
    "load_expectations",
]

#: Exact versions pinned in ``bridge/package-lock.json``.
OFFICIAL_SCHEDULE_VERSION: Final = "0.1.0-rc.8"
OFFICIAL_TIME_CONTEXT_VERSION: Final = "0.0.1-rc.1"


class Expectation(TypedDict):
    """One known failure: the README sentence ids deviated from and the class
    of the difference (explained once in the file's ``classes`` table)."""

    sentences: list[str]
    reason: str


@functools.cache
def load_expectations() -> Mapping[str, Expectation]:
    """``expectations.json`` as ``{test_id: {sentences, reason}}`` (the class
    text is resolved and prefixed with the class name)."""
    text = (
        importlib.resources.files("pytest_dsh.official")
        .joinpath("expectations.json")
        .read_text("utf-8")
    )
    document = json.loads(text)
    classes: dict[str, str] = document["classes"]
    failures: dict[str, Expectation] = {}
    for test_id, entry in document["expected_failures"].items():
        kind = entry["class"]
        note = f" Here: {entry['note']}." if entry.get("note") else ""
        failures[test_id] = Expectation(
            sentences=list(entry["sentences"]), reason=f"[{kind}] {classes[kind]}{note}"
        )
    return failures


def _expected_failures() -> Mapping[str, str]:
    return {
        test_id: f"deviates from {', '.join(entry['sentences'])}: {entry['reason']}"
        for test_id, entry in load_expectations().items()
    }


@final
@dataclass(frozen=True)
class OfficialImplementation:
    """``@deepseek-ai/dsh-schedule`` and ``@deepseek-ai/dsh-time-context`` (the
    two-line build) driven through the Node bridge."""

    name: str = "official"
    version: str = OFFICIAL_SCHEDULE_VERSION
    capabilities: frozenset[str] = frozenset(
        {"schedule", "schedule-invariant", "time-context", "time-context-invariant", "process-zone"}
    )
    expected_failures: Mapping[str, str] = field(default_factory=_expected_failures)

    def check_ready(self) -> None:
        """Raise :class:`BridgeUnavailableError` once, before any test runs,
        when the bridge or its Node runtime is missing."""
        locate_node(locate_bridge())

    def open_host(
        self, *, start_ms: int, withhold: frozenset[str] = frozenset()
    ) -> BridgeHostDriver:
        return BridgeHostDriver(self.name, self.version, start_ms=start_ms, withhold=withhold)

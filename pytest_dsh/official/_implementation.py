"""The official npm build as an implementation under test (``--dsh-impl=official``).

It is one :class:`~pytest_dsh.npm.NodeImplementation`: the pinned official
packages, the npm overrides their install needs, and its own known failures
from ``expectations.json`` beside this module (a ``dsh-expectations/1`` file:
test ids, relative to ``dsh_conformance``, where the official build genuinely
differs from the README, each with the README sentences and why).
"""

from __future__ import annotations

import functools
import importlib.resources
from collections.abc import Mapping
from typing import Final

from pytest_dsh.npm import NodeImplementation
from pytest_dsh.npm.known_failures import Expectation, reasons
from pytest_dsh.npm.known_failures import load_expectations as load_expectations_file

__all__ = [
    "IMPLEMENTATION",
    "OFFICIAL_PACKAGES",
    "OFFICIAL_PACKAGE_NAMES",
    "OFFICIAL_SCHEDULE_VERSION",
    "OFFICIAL_TIME_CONTEXT_VERSION",
    "Expectation",
    "load_expectations",
]

#: Exact versions pinned in ``bridge/package-lock.json``.
OFFICIAL_SCHEDULE_VERSION: Final = "0.1.0-rc.8"
OFFICIAL_TIME_CONTEXT_VERSION: Final = "0.0.1-rc.1"

#: The official package of each role, by name.
OFFICIAL_PACKAGE_NAMES: Final = {
    "schedule": "@deepseek-ai/dsh-schedule",
    "time-context": "@deepseek-ai/dsh-time-context",
}
OFFICIAL_PACKAGES: Final = {
    "schedule": f"{OFFICIAL_PACKAGE_NAMES['schedule']}@{OFFICIAL_SCHEDULE_VERSION}",
    "time-context": f"{OFFICIAL_PACKAGE_NAMES['time-context']}@{OFFICIAL_TIME_CONTEXT_VERSION}",
}

#: The two-line time-context build declares its peers at ^0.0.1-rc.1 (no
#: dsh-agent 0.0.1 was ever published); it imports only cordis and schemastery
#: at run time, so its peers are pointed at the pinned rc.8 host packages.
_OVERRIDES: Final = {
    "@deepseek-ai/dsh-time-context": {
        name: f"${name}"
        for name in (
            "@deepseek-ai/dsh-agent",
            "@deepseek-ai/dsh-invariants",
            "@deepseek-ai/dsh-session",
            "@deepseek-ai/cordis",
        )
    }
}


@functools.cache
def load_expectations() -> Mapping[str, Expectation]:
    """``expectations.json`` as ``{test_id: {sentences, reason}}``."""
    return load_expectations_file(
        importlib.resources.files("pytest_dsh.official").joinpath("expectations.json")
    )


#: ``--dsh-impl=official``: the pinned official packages behind the bridge.
IMPLEMENTATION: Final = NodeImplementation(
    name="official",
    version=OFFICIAL_SCHEDULE_VERSION,
    packages=OFFICIAL_PACKAGES,
    capabilities=frozenset(
        {"schedule", "schedule-invariant", "time-context", "time-context-invariant", "process-zone"}
    ),
    expected_failures=reasons(load_expectations()),
    npm_overrides=_OVERRIDES,
)

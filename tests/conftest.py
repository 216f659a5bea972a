"""Shared by every folder of the kit's tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# The kit's own property tests assert no speed (benchmarks measure it), so a
# loaded machine must not fail them with a deadline or a too-slow health check.
# Loaded here, before any test module is imported, because ``@given`` takes the
# default settings when it decorates. The parent is the profile Hypothesis
# chose (``ci`` under CI keeps its derandomized runs); ``--hypothesis-profile``
# still wins, since Hypothesis loads it after this file.
settings.register_profile(
    "dsh-kit-tests",
    parent=settings.get_profile(settings.get_current_profile_name()),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("dsh-kit-tests")


@pytest.fixture(scope="session")
def bridge_node() -> Path:
    """The Node runtime of an installed bridge (``npm ci --prefix bridge``).
    Without one a test is skipped with the reason, except under CI, where the
    bridge is part of the set-up and its absence fails the test."""
    from pytest_dsh.npm.bridge import BridgeUnavailableError, locate_bridge, locate_node

    try:
        return locate_node(locate_bridge())
    except BridgeUnavailableError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install the bridge (npm ci --prefix bridge): {exc}")
        pytest.skip(str(exc))

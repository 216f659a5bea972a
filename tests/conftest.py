"""Shared by every folder of the kit's tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def bridge_node() -> Path:
    """The Node runtime of an installed bridge (``npm ci --prefix bridge``).
    Without one a test is skipped with the reason, except under CI, where the
    bridge is part of the set-up and its absence fails the test."""
    from pytest_dsh.official import BridgeUnavailableError, locate_bridge, locate_node

    try:
        return locate_node(locate_bridge())
    except BridgeUnavailableError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install the bridge (npm ci --prefix bridge): {exc}")
        pytest.skip(str(exc))

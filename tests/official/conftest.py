"""Fixtures for the bridge's own tests.

Tests that need the Node bridge skip when its ``node_modules`` is missing on a
developer machine, and fail under ``CI=true``: CI installs it with
``npm ci --prefix bridge``, so a missing bridge there is a broken build.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from pytest_dsh.npm.bridge import BridgeHostDriver
from pytest_dsh.official import IMPLEMENTATION, OfficialDomain, official_domain

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z


@pytest.fixture(scope="session")
def bridge_available(bridge_node: object) -> None:
    """The bridge is installed (see ``bridge_node`` in tests/conftest.py)."""


@pytest.fixture
def open_host(bridge_available: None) -> Iterator[Callable[..., BridgeHostDriver]]:
    opened: list[BridgeHostDriver] = []

    def open_one(
        start_ms: int = START_MS, withhold: frozenset[str] = frozenset()
    ) -> BridgeHostDriver:
        host = IMPLEMENTATION.open_host(start_ms=start_ms, withhold=withhold)
        opened.append(host)
        return host

    yield open_one
    for host in reversed(opened):
        host.close()


@pytest.fixture
def host(open_host: Callable[..., BridgeHostDriver]) -> BridgeHostDriver:
    return open_host()


@pytest.fixture(scope="session")
def domain(bridge_available: None) -> Iterator[OfficialDomain]:
    with official_domain() as calls:
        yield calls

"""Fixtures for the reliability tests: a host of either kind.

``any_host`` opens a host of the reference implementation in the fake host, or
of the official build in the Node bridge: the seams tested here exist on both
hosts and must behave the same. The bridge leg skips when the bridge is not
installed on a developer machine and fails under ``CI=true``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from pytest_dsh.driving.api import HostDriver

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z


@pytest.fixture(params=["reference", "official"])
def open_any_host(request: pytest.FixtureRequest) -> Iterator[Callable[[], HostDriver]]:
    opened: list[HostDriver] = []

    def open_one() -> HostDriver:
        if request.param == "official":
            request.getfixturevalue("bridge_node")
            from pytest_dsh.official import IMPLEMENTATION as OFFICIAL

            host: HostDriver = OFFICIAL.open_host(start_ms=START_MS)
        else:
            host = REFERENCE.open_host(start_ms=START_MS)
        opened.append(host)
        return host

    yield open_one
    for host in reversed(opened):
        host.close()


@pytest.fixture
def any_host(open_any_host: Callable[[], HostDriver]) -> HostDriver:
    return open_any_host()


def nested(depth: int) -> dict[str, object]:
    """``{"a": {"a": ... {}}}`` with ``depth`` levels, built without recursion."""
    root: dict[str, object] = {}
    node = root
    for _ in range(depth - 1):
        child: dict[str, object] = {}
        node["a"] = child
        node = child
    return root

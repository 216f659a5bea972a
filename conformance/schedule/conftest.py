"""Fixtures of the dsh-schedule suite.

``host`` is a fresh host (wall clock 2026-01-01T00:00:00.000Z) with the
``schedule`` plugin loaded; ``agent`` is a live root agent created after that,
so it has the three Schedule tools.
"""

from __future__ import annotations

import pytest

from pytest_dsh import AgentDriver, HostDriver


@pytest.fixture
def host(dsh_host: HostDriver) -> HostDriver:
    """A host with ``schedule`` loaded."""
    dsh_host.load_plugin("schedule")
    return dsh_host


@pytest.fixture
def agent(host: HostDriver) -> AgentDriver:
    """A root agent created after ``schedule`` loaded."""
    return host.create_agent()

"""An already aborted step signal is aborted before any pre-step listener runs,
on both hosts.

``agent.abort_next_pre_step()`` and ``agent.start_pre_step(..., aborted=True)``
prepare a step whose signal is already aborted (pytest_dsh.fake_host.driver). A plugin
listener that runs first (``tryfirst`` on the Python host, prepended on the
DSH host) must see ``signal.aborted`` true, as every later one does: a
listener that honours the abort before calling ``next()`` is what the README
asks of time-context (TC-013). If the host aborted the signal from a listener
of its own, a listener ahead of it would see a live signal, and a plugin
acting first could not pass the suite on that host.

The plugin on each host is a witness that logs ``test/first`` with what it
saw: a Python plugin here, the package ``tests/npm/witnesses/first-listener``
behind the bridge. These pin the kit's own driver contract, not a README.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_dsh import reply_text
from pytest_dsh.contract import hookimpl
from pytest_dsh.driving.api import AgentDriver, HostDriver
from pytest_dsh.driving.pending import PreStepOutcome
from pytest_dsh.fake_host.driver import PythonHostDriver

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z
WITNESS = Path(__file__).resolve().parents[1] / "npm" / "witnesses" / "first-listener"


class _FirstListener:
    @hookimpl(tryfirst=True)
    def dsh_pre_step(self, agent: Any, turn: int, step: int, signal: Any) -> None:
        agent.session.append("test/first", {"step": step, "aborted": signal.aborted})


@dataclass(frozen=True)
class _Factory:
    name: str = "first-listener"
    requires: frozenset[str] = frozenset()

    def load(self, services: object, config: object) -> object:
        return _FirstListener()


def _bridge_host(request: pytest.FixtureRequest) -> HostDriver:
    request.getfixturevalue("bridge_node")  # skipped, or failed under CI, without it
    if shutil.which("npm") is None:
        if os.environ.get("CI"):
            pytest.fail("CI must provide npm to install the witness plugin")
        pytest.skip("npm is not installed")
    from pytest_dsh.npm import NodeImplementation

    implementation = NodeImplementation(
        name="first-listener", version="1.0.0", packages={"time-context": str(WITNESS)},
    )
    return implementation.open_host(start_ms=START_MS)


@pytest.fixture(params=["python", "bridge"])
def host(request: pytest.FixtureRequest) -> Iterator[HostDriver]:
    """A host with the witness loaded as the only plugin (role time-context)."""
    opened: HostDriver
    if request.param == "python":
        opened = PythonHostDriver(
            "witness", "0", {"time-context": _Factory()}, start_ms=START_MS,
        )
    else:
        opened = _bridge_host(request)
    try:
        opened.load_plugin("time-context")
        yield opened
    finally:
        opened.close()


def seen(agent: AgentDriver) -> list[tuple[int, bool]]:
    return [(e["data"]["step"], e["data"]["aborted"])
            for e in agent.events() if e["type"] == "test/first"]


def ends(agent: AgentDriver) -> list[Any]:
    return [e["data"].get("reason", {}).get("kind")
            for e in agent.events() if e["type"] == "turn/end"]


def test_a_first_listener_sees_the_signal_of_an_aborted_step_already_aborted(
    host: HostDriver,
) -> None:
    agent = host.create_agent()
    agent.abort_next_pre_step()
    agent.script(reply_text("unused"))
    agent.prompt("hello")
    assert seen(agent) == [(1, True)]
    assert ends(agent) == ["aborted"]


def test_the_abort_is_for_the_next_step_only(host: HostDriver) -> None:
    agent = host.create_agent()
    agent.abort_next_pre_step()
    agent.script(reply_text("unused"), reply_text("done"))
    agent.prompt("hello")
    agent.prompt("again")
    assert seen(agent) == [(1, True), (1, False)]
    assert ends(agent) == ["aborted", "completed"]


def test_a_pre_step_started_aborted_is_aborted_for_a_first_listener(host: HostDriver) -> None:
    agent = host.create_agent()
    assert agent.start_pre_step(1, 1, aborted=True).result() == PreStepOutcome("aborted")
    assert seen(agent) == [(1, True)]


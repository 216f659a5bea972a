"""Pre-step watchers in ordinary order behave the same on both hosts.

``add_pre_step_watcher(..., order="ordinary")`` stands for a plugin listener in
ordinary order: after every first-in-order (prepended, ``tryfirst``) listener
and before every ordinary plugin listener, whenever the plugins load, and
before every ``"last"`` watcher (docs/fake-host.md). The parity tests run on
both hosts (see ``conftest.py``) with no plugin loaded, so the order is read
from the watchers alone: a watcher that raises stops every listener after it.
Neither official plugin has an ordinary pre-step listener, so the order against
plugin listeners is checked on the Python host with two witness plugins; the
bridge gets it from registering the watchers' one listener before any plugin
loads, without prepend. These pin the kit's own driver contract, not a README.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_dsh.contract import hookimpl
from pytest_dsh.driving.api import AgentDriver, HostDriver, PreStepWatcher
from pytest_dsh.driving.pending import PreStepOutcome
from pytest_dsh.fake_host.driver import PythonHostDriver

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z


def called(watcher: PreStepWatcher) -> list[tuple[int, int]]:
    return [(call.turn, call.step) for call in watcher.calls]


def fails(agent: AgentDriver, turn: int = 1, step: int = 1) -> None:
    outcome = agent.start_pre_step(turn, step).result()
    assert outcome.kind == "error", outcome
    assert outcome.message is not None and f"failed turn {turn} step {step}" in outcome.message


# -- on both hosts: ordinary watchers among themselves and against last watchers -----------


@pytest.mark.parametrize("ordinary_added", ["before", "after"])
def test_an_ordinary_watcher_runs_before_every_last_watcher(host, ordinary_added):
    if ordinary_added == "before":
        ordinary = host.add_pre_step_watcher("raise", order="ordinary")
        last = host.add_pre_step_watcher("record")
    else:
        last = host.add_pre_step_watcher("record")
        ordinary = host.add_pre_step_watcher("raise", order="ordinary")
    fails(host.create_agent())
    assert called(ordinary) == [(1, 1)]
    assert called(last) == []  # the ordinary watcher's failure came first


def test_a_failing_last_watcher_comes_after_an_ordinary_watcher(host):
    last = host.add_pre_step_watcher("raise")
    ordinary = host.add_pre_step_watcher("record", order="ordinary")
    fails(host.create_agent())
    assert called(last) == [(1, 1)]
    assert called(ordinary) == [(1, 1)]


def test_ordinary_watchers_run_in_the_order_they_were_added(host):
    first = host.add_pre_step_watcher("raise", only=(1, 1), order="ordinary")
    second = host.add_pre_step_watcher("raise", only=(1, 2), order="ordinary")
    agent = host.create_agent()
    fails(agent, 1, 1)
    assert (called(first), called(second)) == ([(1, 1)], [])
    fails(agent, 1, 2)  # the first lets step 2 through; the second fails it
    assert (called(first), called(second)) == ([(1, 1), (1, 2)], [(1, 2)])


def test_an_ordinary_watcher_records_and_aborts_like_a_last_watcher(host):
    ordinary = host.add_pre_step_watcher("abort", order="ordinary")
    last = host.add_pre_step_watcher("record")
    agent = host.create_agent()
    assert agent.start_pre_step(2, 3).result() == PreStepOutcome("aborted")
    [call] = ordinary.calls
    assert (call.agent_id, call.turn, call.step, call.aborted) == (agent.id, 2, 3, False)
    assert [c.aborted for c in last.calls] == [True]  # later, it sees the abort


def test_an_ordinary_watcher_keeps_its_place_after_a_crash(host):
    last = host.add_pre_step_watcher("record")
    ordinary = host.add_pre_step_watcher("raise", order="ordinary")
    host.crash()
    fails(host.create_agent())
    assert (called(ordinary), called(last)) == ([(1, 1)], [])


def test_an_ordinary_watcher_is_called_in_a_turn(host):
    ordinary = host.add_pre_step_watcher("record", order="ordinary")
    agent = host.create_agent()
    agent.prompt("hello")
    [call] = ordinary.calls
    assert (call.turn, call.step, call.aborted) == (1, 1, False)
    assert "step/start" in [event["type"] for event in agent.events()]


def test_an_unknown_order_is_refused(host):
    with pytest.raises(ValueError, match="order must be 'last' or 'ordinary'"):
        host.add_pre_step_watcher("record", order="first")  # type: ignore[arg-type]


# -- Python host: against plugin listeners ------------------------------------------------


class _FirstWitness:
    @hookimpl(tryfirst=True)
    def dsh_pre_step(self, agent: Any, turn: int, step: int, signal: Any) -> None:
        agent.session.append("test/first", {"step": step})


class _OrdinaryWitness:
    @hookimpl
    def dsh_pre_step(self, agent: Any, turn: int, step: int, signal: Any) -> None:
        agent.session.append("test/ordinary", {"step": step})


@dataclass(frozen=True)
class _WitnessFactory:
    name: str
    make: Callable[[], object]
    requires: frozenset[str] = field(default_factory=frozenset)

    def load(self, services: object, config: object) -> object:
        return self.make()


WITNESSES = {
    "first": _WitnessFactory("first", _FirstWitness),
    "ordinary": _WitnessFactory("ordinary", _OrdinaryWitness),
}


def witness_host() -> PythonHostDriver:
    return PythonHostDriver("witnesses", "0", WITNESSES, start_ms=START_MS)


def seen(watcher: PreStepWatcher, agent: AgentDriver) -> list[str]:
    """The witness events already in the log when the watcher was last called."""
    length = watcher.calls[-1].log_length
    return [e["type"] for e in agent.events()[:length] if e["type"].startswith("test/")]


def load_around(host: HostDriver, when: str, order: str) -> PreStepWatcher:
    """Load both witnesses, adding the watcher before, between or after them."""
    plan = {"before": 0, "between": 1, "after": 2}[when]
    watcher = None
    for index, name in enumerate(["first", "ordinary"]):
        if index == plan:
            watcher = host.add_pre_step_watcher(order=order)  # type: ignore[arg-type]
        host.load_plugin(name)
    return watcher if watcher is not None else host.add_pre_step_watcher(order=order)  # type: ignore[arg-type]


@pytest.mark.parametrize("when", ["before", "between", "after"])
def test_an_ordinary_watcher_sits_between_first_and_ordinary_plugin_listeners(when):
    host = witness_host()
    try:
        ordinary = load_around(host, when, "ordinary")
        last = host.add_pre_step_watcher("record")
        agent = host.create_agent()
        assert agent.start_pre_step(1, 1).result() == PreStepOutcome("entered")
        assert seen(ordinary, agent) == ["test/first"]
        assert seen(last, agent) == ["test/first", "test/ordinary"]
        host.crash()
        agent = host.create_agent()
        agent.start_pre_step(1, 1).result()
        assert seen(ordinary, agent) == ["test/first"]
    finally:
        host.close()


def test_a_last_watcher_follows_every_plugin_listener_whenever_added():
    host = witness_host()
    try:
        last = load_around(host, "before", "last")
        agent = host.create_agent()
        agent.start_pre_step(1, 1).result()
        assert seen(last, agent) == ["test/first", "test/ordinary"]
    finally:
        host.close()


# -- on both hosts: last watchers among themselves ----------------------------------------


def test_last_watchers_run_in_the_order_they_were_added(host):
    first = host.add_pre_step_watcher("raise", only=(1, 1))
    second = host.add_pre_step_watcher("raise", only=(1, 2))
    agent = host.create_agent()
    fails(agent, 1, 1)
    assert (called(first), called(second)) == ([(1, 1)], [])
    fails(agent, 1, 2)  # the first lets step 2 through; the second fails it
    assert (called(first), called(second)) == ([(1, 1), (1, 2)], [(1, 2)])


def test_last_watchers_keep_their_order_after_a_plugin_load_and_a_crash(host):
    first = host.add_pre_step_watcher("raise")
    second = host.add_pre_step_watcher("record")
    host.load_plugin("time-context", {"timeZone": "UTC"})
    host.crash()
    fails(host.create_agent())
    assert (called(first), called(second)) == ([(1, 1)], [])

"""Pre-step probes in ordinary order behave the same on both hosts.

``add_pre_step_probe(..., order="ordinary")`` stands for a plugin listener in
ordinary order: after every first-in-order (prepended, ``tryfirst``) listener
and before every ordinary plugin listener, whenever the plugins load, and
before every ``"last"`` probe (docs/fake-host.md). The parity tests run on
both hosts (see ``conftest.py``) with no plugin loaded, so the order is read
from the probes alone: a probe that raises stops every listener after it.
Neither official plugin has an ordinary pre-step listener, so the order against
plugin listeners is checked on the Python host with two witness plugins; the
bridge gets it from registering the probes' one listener before any plugin
loads, without prepend. These pin the kit's own driver contract, not a README.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_dsh.contract import hookimpl
from pytest_dsh.driving.api import AgentDriver, HostDriver, PreStepProbe
from pytest_dsh.driving.pending import PreStepOutcome
from pytest_dsh.fake_host.driver import PythonHostDriver

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z


def called(probe: PreStepProbe) -> list[tuple[int, int]]:
    return [(call.turn, call.step) for call in probe.calls]


def fails(agent: AgentDriver, turn: int = 1, step: int = 1) -> None:
    outcome = agent.start_pre_step(turn, step).result()
    assert outcome.kind == "error", outcome
    assert outcome.message is not None and f"failed turn {turn} step {step}" in outcome.message


# -- on both hosts: ordinary probes among themselves and against last probes -----------


@pytest.mark.parametrize("ordinary_added", ["before", "after"])
def test_an_ordinary_probe_runs_before_every_last_probe(host, ordinary_added):
    if ordinary_added == "before":
        ordinary = host.add_pre_step_probe("raise", order="ordinary")
        last = host.add_pre_step_probe("record")
    else:
        last = host.add_pre_step_probe("record")
        ordinary = host.add_pre_step_probe("raise", order="ordinary")
    fails(host.create_agent())
    assert called(ordinary) == [(1, 1)]
    assert called(last) == []  # the ordinary probe's failure came first


def test_a_failing_last_probe_comes_after_an_ordinary_probe(host):
    last = host.add_pre_step_probe("raise")
    ordinary = host.add_pre_step_probe("record", order="ordinary")
    fails(host.create_agent())
    assert called(last) == [(1, 1)]
    assert called(ordinary) == [(1, 1)]


def test_ordinary_probes_run_in_the_order_they_were_added(host):
    first = host.add_pre_step_probe("raise", only=(1, 1), order="ordinary")
    second = host.add_pre_step_probe("raise", only=(1, 2), order="ordinary")
    agent = host.create_agent()
    fails(agent, 1, 1)
    assert (called(first), called(second)) == ([(1, 1)], [])
    fails(agent, 1, 2)  # the first lets step 2 through; the second fails it
    assert (called(first), called(second)) == ([(1, 1), (1, 2)], [(1, 2)])


def test_an_ordinary_probe_records_and_aborts_like_a_last_probe(host):
    ordinary = host.add_pre_step_probe("abort", order="ordinary")
    last = host.add_pre_step_probe("record")
    agent = host.create_agent()
    assert agent.start_pre_step(2, 3).result() == PreStepOutcome("aborted")
    [call] = ordinary.calls
    assert (call.agent_id, call.turn, call.step, call.aborted) == (agent.id, 2, 3, False)
    assert [c.aborted for c in last.calls] == [True]  # later, it sees the abort


def test_an_ordinary_probe_keeps_its_place_after_a_crash(host):
    last = host.add_pre_step_probe("record")
    ordinary = host.add_pre_step_probe("raise", order="ordinary")
    host.crash()
    fails(host.create_agent())
    assert (called(ordinary), called(last)) == ([(1, 1)], [])


def test_an_ordinary_probe_is_called_in_a_turn(host):
    ordinary = host.add_pre_step_probe("record", order="ordinary")
    agent = host.create_agent()
    agent.prompt("hello")
    [call] = ordinary.calls
    assert (call.turn, call.step, call.aborted) == (1, 1, False)
    assert "step/start" in [event["type"] for event in agent.events()]


def test_an_unknown_order_is_refused(host):
    with pytest.raises(ValueError, match="order must be 'last' or 'ordinary'"):
        host.add_pre_step_probe("record", order="first")  # type: ignore[arg-type]


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


def seen(probe: PreStepProbe, agent: AgentDriver) -> list[str]:
    """The witness events already in the log when the probe was last called."""
    length = probe.calls[-1].log_length
    return [e["type"] for e in agent.events()[:length] if e["type"].startswith("test/")]


def load_around(host: HostDriver, when: str, order: str) -> PreStepProbe:
    """Load both witnesses, adding the probe before, between or after them."""
    plan = {"before": 0, "between": 1, "after": 2}[when]
    probe = None
    for index, name in enumerate(["first", "ordinary"]):
        if index == plan:
            probe = host.add_pre_step_probe(order=order)  # type: ignore[arg-type]
        host.load_plugin(name)
    return probe if probe is not None else host.add_pre_step_probe(order=order)  # type: ignore[arg-type]


@pytest.mark.parametrize("when", ["before", "between", "after"])
def test_an_ordinary_probe_sits_between_first_and_ordinary_plugin_listeners(when):
    host = witness_host()
    try:
        ordinary = load_around(host, when, "ordinary")
        last = host.add_pre_step_probe("record")
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


def test_a_last_probe_follows_every_plugin_listener_whenever_added():
    host = witness_host()
    try:
        last = load_around(host, "before", "last")
        agent = host.create_agent()
        agent.start_pre_step(1, 1).result()
        assert seen(last, agent) == ["test/first", "test/ordinary"]
    finally:
        host.close()


# -- on both hosts: last probes among themselves ----------------------------------------


def test_last_probes_run_in_the_order_they_were_added(host):
    first = host.add_pre_step_probe("raise", only=(1, 1))
    second = host.add_pre_step_probe("raise", only=(1, 2))
    agent = host.create_agent()
    fails(agent, 1, 1)
    assert (called(first), called(second)) == ([(1, 1)], [])
    fails(agent, 1, 2)  # the first lets step 2 through; the second fails it
    assert (called(first), called(second)) == ([(1, 1), (1, 2)], [(1, 2)])


def test_last_probes_keep_their_order_after_a_plugin_load_and_a_crash(host):
    first = host.add_pre_step_probe("raise")
    second = host.add_pre_step_probe("record")
    host.load_plugin("time-context", {"timeZone": "UTC"})
    host.crash()
    fails(host.create_agent())
    assert (called(first), called(second)) == ([(1, 1)], [])

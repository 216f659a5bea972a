"""The crash enumeration fails an implementation that loses reminders on resume.

Without this, a crash enumeration that cannot fail would look like a result.
The broken implementation is the reference whose schedule plugin ignores a
root agent opened over an existing log (as if it never rebuilt its state).
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.schedule.known_limitations import test_crash_enumeration as enumeration
from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from pytest_dsh import PythonImplementation
from pytest_dsh.contract import HostServices, hookimpl


class _ForgetfulPlugin:
    def __init__(self, inner: Any) -> None:
        self._inner = inner

    @hookimpl
    def dsh_agent_created(self, agent: Any) -> Any:
        if len(agent.session.events) > 0:  # resumed: forget everything it owns
            return None
        return self._inner.dsh_agent_created(agent)

    @hookimpl
    async def dsh_agent_disposed(self, agent: Any) -> None:
        await self._inner.dsh_agent_disposed(agent)


class _ForgetfulFactory:
    name = "schedule"

    def __init__(self) -> None:
        self._inner = REFERENCE.plugins["schedule"]
        self.requires = self._inner.requires

    def load(self, services: HostServices, config: Any) -> object:
        return _ForgetfulPlugin(self._inner.load(services, config))


FORGETFUL = PythonImplementation(
    "forgets-on-resume", "0", {**REFERENCE.plugins, "schedule": _ForgetfulFactory()}
)


def _scenario(name: str) -> enumeration.Scenario:
    return next(scenario for scenario in enumeration.SCENARIOS if scenario.name == name)


@pytest.mark.parametrize("mode", ["flush", "per-event"])
def test_the_enumeration_reports_lost_reminders_of_a_forgetful_implementation(mode):
    totals = enumeration.Totals()
    failures = enumeration._enumerate(FORGETFUL, _scenario("after"), mode, lambda: totals)
    # Labels name the reminder by its prompt (the enumeration reads no ids from
    # payloads). A durable reminder the implementation cannot list is lost, never
    # excused as in the per-event window.
    assert totals.lost >= 1 and totals.lost_in_window == 0, totals
    assert any(failure.endswith(": lost root:tea") for failure in failures), failures
    assert any("the resumed log does not fold" in failure for failure in failures), failures


def test_the_reference_passes_the_same_scenario():
    totals = enumeration.Totals()
    assert enumeration._enumerate(REFERENCE, _scenario("after"), "flush", lambda: totals) == []
    assert totals.crash_points >= 2 and totals.lost == 0

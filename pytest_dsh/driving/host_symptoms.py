"""What a host did during the running test that a host limit names.

Some README sentences cannot be met on a DSH host profile whatever the
plugin does, but only when the plugin takes a particular way: on the DSH host
packages, a message a plugin gives ``agent.inject()`` while a step is prepared
is queued for the next step (the limit ``inject-queued-for-next-step``). A
host that sees such a thing happen notes its *symptom* here; a test that
declares it depends on the behaviour the limit takes away, and failed while
the symptom was noted, is reported as the limit
(:mod:`pytest_dsh.pytest_plugin.host_limit_symptoms`), never against the plugin.

The set is the running test's: the pytest side clears it before each test.
"""

from __future__ import annotations

from typing import Final

__all__ = ["PRE_STEP_INJECT", "clear", "note", "observed"]

#: ``agent.inject()`` called during an ``agent/pre-step`` dispatch: the host
#: queued the message for the next step (the bridge's ``lib/growth.mjs`` names it).
PRE_STEP_INJECT: Final = "pre-step-inject-queued"

_observed: set[str] = set()


def note(symptom: str) -> None:
    """A host saw ``symptom`` during the running test."""
    _observed.add(symptom)


def observed() -> frozenset[str]:
    """The symptoms noted since the running test began."""
    return frozenset(_observed)


def clear() -> None:
    """A new test begins."""
    _observed.clear()

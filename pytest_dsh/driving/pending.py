"""Driver values for work a test starts and then watches: tool calls started
without awaiting them, pre-steps reached directly, disposals in progress and
maintenance claims a test holds.

Both hosts (the Python fake host and the Node bridge) return these shapes, so
one test observes the same thing on either. ``result()`` never waits: when the
work is still pending the host has nothing left to run at this instant, and it
raises :class:`~pytest_dsh.errors.HostStuckError` (the work keeps going and can
finish later, for example after a hung flush is released).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar, final

from pytest_dsh.driving.tool_outcomes import ToolOutcome

__all__ = [
    "AgentCounters",
    "BusyHold",
    "BusyHoldHandle",
    "MaintenanceHold",
    "Pending",
    "PendingPreStep",
    "PendingToolCall",
    "PreStepOutcome",
]

T_co = TypeVar("T_co", covariant=True)

PreStepKind = Literal["entered", "aborted", "error"]


class Pending(Protocol[T_co]):
    """Work the host started and a test watches."""

    @property
    def done(self) -> bool:
        """True once the work settled (with a value or an error)."""

    def result(self) -> T_co:
        """The value; re-raises the work's error; ``HostStuckError`` while pending."""


class PendingToolCall(Pending[ToolOutcome], Protocol):
    """A direct tool call (no ``tool/call``/``tool/result`` events) in flight."""

    def abort(self) -> None:
        """Abort the call's signal while it runs, then run until idle."""


@dataclass(frozen=True, slots=True)
class PreStepOutcome:
    """How a directly reached pre-step ended: every listener let the step
    ``entered``; its signal was ``aborted``; or a listener raised (``error``,
    with the listener's ``message``)."""

    kind: PreStepKind
    message: str | None = None


class PendingPreStep(Pending[PreStepOutcome], Protocol):
    def abort(self) -> None:
        """Abort the pre-step's signal while listeners run, then run until idle."""


class MaintenanceHold(Protocol):
    """A maintenance task the test holds: the agent is busy (no turn can open,
    follow-ups stay parked) until :meth:`release`."""

    @property
    def done(self) -> bool: ...

    def release(self) -> None:
        """Let the held task resolve, then run until idle."""


class BusyHold(Protocol):
    """The agent held busy with no task running (no turn, no maintenance
    task): claims are refused as busy, ``when_idle()`` waits and no turn
    opens until :meth:`release`. A disposal has nothing to wait for."""

    @property
    def released(self) -> bool: ...

    def release(self) -> None:
        """The agent is no longer busy: pending idle waits resolve, a queued
        follow-up opens its turn; then run until idle."""


@final
class BusyHoldHandle:
    """A :class:`BusyHold` for either host: ``release`` ends the hold once (the
    host's own call), ``settle`` runs after every release (the host's run
    until idle, where the release call does not already end with one)."""

    def __init__(
        self, release: Callable[[], None], settle: Callable[[], None] | None = None
    ) -> None:
        self._release = release
        self._settle = settle
        self._released = False

    @property
    def released(self) -> bool:
        return self._released

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._release()
        if self._settle is not None:
            self._settle()


@dataclass(frozen=True, slots=True)
class AgentCounters:
    """What the host counted for one agent since it was created. A refused
    claim (the agent busy, or a planned refusal) is not a claim."""

    maintenance_claims: int
    maintenance_releases: int
    when_idle_calls: int
    pending_followups: int
    maintenance_refusals: int = 0

"""The per-test budget both hosts honour, and the error a runaway raises.

:mod:`pytest_dsh.pytest_plugin.budget` replaces :data:`budget` for each test
phase from its options. The fake host's loop counts iterations and appended
events against it and checks its wall-clock deadline; the Node bridge bounds
each request's wait by the same deadline, and sends each request the growth
the phase has left, which Node counts against (``bridge/lib/growth.mjs``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["Budget", "RunawayError", "budget", "count_growth"]


class RunawayError(BaseException):
    """The implementation under test keeps the host busy without settling.

    A :class:`BaseException`, like :class:`KeyboardInterrupt`: a plugin's or
    host's ``except Exception`` (which turns a failing handler into a host
    error value) must not swallow it, or the runaway test would pass.

    ``symptom`` names what the host did that made the work grow, when the
    host saw it (:mod:`pytest_dsh.driving.host_symptoms`): a runaway that
    follows from a host limit is reported as that limit.
    """

    def __init__(self, *args: object, symptom: str | None = None) -> None:
        super().__init__(*args)
        self.symptom = symptom


@dataclass(slots=True)
class Budget:
    """What the current test may still spend. ``None`` is unlimited."""

    #: Loop iterations left (virtual work).
    steps_left: int | None = None
    #: ``time.monotonic()`` value after which the test has overrun.
    wall_deadline: float | None = None
    #: Events appended plus follow-ups queued that the test may still make.
    growth_left: int | None = None
    #: How the limits were configured, for messages.
    steps: int | None = None
    wall_s: float | None = None
    growth: int | None = None
    #: Set when the growth budget ran out, until the loop reports it.
    overgrown: str | None = None

    def wall_left(self) -> float | None:
        if self.wall_deadline is None:
            return None
        return self.wall_deadline - time.monotonic()


#: The budget of the test now running (replaced by :mod:`pytest_dsh.pytest_plugin.budget`;
#: read it as ``runaway.budget``, never import the name: it is replaced per test).
budget = Budget()


def count_growth(what: str, suffix: str = "") -> None:
    """Count one appended event or queued follow-up (``what`` + ``suffix``,
    joined only for the message, so the common unlimited case builds no
    string) against the test's growth budget. Past it, raise :class:`RunawayError` where the growth
    happens (synchronous code that appends in a loop never returns to the event
    loop) and leave the cause for the loop, which reports it even when the
    raise landed in a task."""
    current = budget
    if current.growth_left is None:
        return
    current.growth_left -= 1
    if current.growth_left >= 0:
        return
    current.growth_left = None  # reported once; closing the host may still append
    current.overgrown = (
        f"the test appended events and queued follow-ups {current.growth} times "
        f"(--dsh-growth-budget), the last a {what}{suffix}: the event log or the follow-up "
        "queue grows without end"
    )
    raise RunawayError(f"runaway implementation: {current.overgrown}")

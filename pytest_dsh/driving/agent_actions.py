"""Test actions a host runs *inside* an agent's call, at a chosen point.

Some moments a test wants to act in are synchronous calls a plugin makes (its
``agent.followup``, a maintenance claim refused at once because the agent is
busy): no driver call can run while they do. So the test names its actions in
advance (:meth:`~pytest_dsh.driving.api.AgentDriver.act_inside`) and the host runs
them itself, in order, the next time the agent reaches that point. The same
small vocabulary runs on the fake host and on the Node bridge.

:class:`DisposeAgent` starts the agent's disposal from inside the call (a
later :meth:`~pytest_dsh.driving.api.AgentDriver.start_dispose` returns that
same disposal); :class:`PlanFault` starts a fault window of the fault plan
there, so the fault hits what the plugin does after that moment and nothing
before it (the driver plans the window dormant when the action is armed; the
host wakes it when the action runs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "ActionPoint",
    "AppendEvent",
    "DisposeAgent",
    "FaultKind",
    "HostAction",
    "PlanFault",
    "Prompt",
    "SetWallClock",
    "WakeFault",
    "action_payload",
]

#: ``"claim"``: inside a maintenance claim the agent granted, before its task
#: runs; ``"refused-claim"``: inside a claim the agent refuses (busy, or a
#: planned refusal), before the refusal reaches the caller; ``"followup"``:
#: inside ``agent.followup`` (a plugin's or the driver's), once the agent
#: accepted the message and before it is queued.
ActionPoint = Literal["claim", "refused-claim", "followup"]
ACTION_POINTS: tuple[ActionPoint, ...] = ("claim", "refused-claim", "followup")


@dataclass(frozen=True, slots=True)
class Prompt:
    """Queue a user prompt, as :meth:`AgentDriver.prompt` does."""

    text: str


@dataclass(frozen=True, slots=True)
class AppendEvent:
    """Append a raw event to the agent's session (a message event as an
    ordinary model-visible append), as :meth:`AgentDriver.append_event` does."""

    type: str
    data: Any


@dataclass(frozen=True, slots=True)
class SetWallClock:
    """Step the wall clock to ``epoch_ms`` (no timer moves)."""

    epoch_ms: int


@dataclass(frozen=True, slots=True)
class DisposeAgent:
    """Start disposing the agent, as :meth:`AgentDriver.start_dispose` does,
    without waiting for the disposal: it goes on once the call it runs in
    returns (a disposal waits for a running maintenance task to settle)."""


#: The fault-plan windows a :class:`PlanFault` can start
#: (pytest_dsh.driving.faults.FaultPlan): ``"events"`` fail_event_reads,
#: ``"clock"`` fail_clock_reads, ``"append"`` fail_appends, ``"followup"``
#: fail_followups, ``"message"`` fail_followup_messages, ``"flush"``
#: fail_flushes (with ``outcome``).
FaultKind = Literal["events", "clock", "append", "followup", "message", "flush"]
FAULT_KINDS: tuple[FaultKind, ...] = ("events", "clock", "append", "followup", "message", "flush")


@dataclass(frozen=True, slots=True)
class PlanFault:
    """Start a fault window at this moment: ``first``/``count`` count the
    matching calls made after the action ran. ``outcome`` is a flush fault's
    (``"falsy"``, ``"rejected"``, ``"detached"``, ``"hang"``); ``event_type``
    limits an append fault to one event type."""

    kind: FaultKind
    first: int = 1
    count: int | None = 1
    outcome: str | None = None
    event_type: str | None = None


HostAction = Prompt | AppendEvent | SetWallClock | DisposeAgent | PlanFault


@dataclass(frozen=True, slots=True)
class WakeFault:
    """What a driver arms for a :class:`PlanFault`: wake the dormant window
    ``window`` (its id in the fault plan) of the fault plan."""

    window: int


#: What a host runs: a driver turns each PlanFault into a WakeFault.
ArmedAction = Prompt | AppendEvent | SetWallClock | DisposeAgent | WakeFault


def action_payload(action: HostAction, window: int | None = None) -> dict[str, Any]:
    """The action as JSON, for a host in another process. A :class:`PlanFault`
    travels as the id of the dormant window the driver planned for it."""
    if isinstance(action, DisposeAgent):
        return {"kind": "dispose"}
    if isinstance(action, PlanFault):
        if window is None:
            raise ValueError("a PlanFault is sent as the id of its planned window")
        return {"kind": "wake_fault", "window": window}
    if isinstance(action, Prompt):
        return {"kind": "prompt", "text": action.text}
    if isinstance(action, AppendEvent):
        return {"kind": "append", "type": action.type, "data": action.data}
    if isinstance(action, SetWallClock):
        return {"kind": "set_wall", "ms": action.epoch_ms}
    raise TypeError(f"not a host action: {action!r}")

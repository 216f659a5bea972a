"""Test actions a host runs *inside* an agent's call, at a chosen point.

Some moments a test wants to act in are synchronous calls a plugin makes (its
``agent.followup``, a maintenance claim refused at once because the agent is
busy): no driver call can run while they do. So the test names its actions in
advance (:meth:`~pytest_dsh.driving.api.AgentDriver.act_inside`) and the host runs
them itself, in order, the next time the agent reaches that point. The same
small vocabulary runs on the fake host and on the Node bridge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["ActionPoint", "AppendEvent", "HostAction", "Prompt", "SetWallClock", "action_payload"]

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


HostAction = Prompt | AppendEvent | SetWallClock


def action_payload(action: HostAction) -> dict[str, Any]:
    """The action as JSON, for a host in another process."""
    if isinstance(action, Prompt):
        return {"kind": "prompt", "text": action.text}
    if isinstance(action, AppendEvent):
        return {"kind": "append", "type": action.type, "data": action.data}
    if isinstance(action, SetWallClock):
        return {"kind": "set_wall", "ms": action.epoch_ms}
    raise TypeError(f"not a host action: {action!r}")

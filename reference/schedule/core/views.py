"""Model-facing views of active records (create results and ``schedule_list`` items).

A view is the record's keys in canonical order followed by ``state`` and
``deliveryMode``. ``state`` is ``overdue`` once ``now`` reaches ``scheduledAt``;
for an every record that may be long past while a dispatch is pending.
"""

from __future__ import annotations

from typing import Final, Literal, TypedDict

from .instants import parse_iso_ms
from .protocol import ScheduleRecord

__all__ = [
    "DELIVERY_MODE",
    "AfterView",
    "AtView",
    "EveryView",
    "ScheduleState",
    "ScheduleView",
    "schedule_state",
    "schedule_view",
]

ScheduleState = Literal["scheduled", "overdue"]
#: Reminders run only while their own session is live.
DELIVERY_MODE: Final = "session-local"


class AfterView(TypedDict):
    """View of an after record."""

    id: str
    kind: Literal["after"]
    prompt: str
    afterSeconds: int
    scheduledAt: str
    state: ScheduleState
    deliveryMode: Literal["session-local"]


class AtView(TypedDict):
    """View of an at record."""

    id: str
    kind: Literal["at"]
    prompt: str
    scheduledAt: str
    state: ScheduleState
    deliveryMode: Literal["session-local"]


class EveryView(TypedDict):
    """View of an every record."""

    id: str
    kind: Literal["every"]
    prompt: str
    everySeconds: int
    scheduledAt: str
    state: ScheduleState
    deliveryMode: Literal["session-local"]


ScheduleView = AfterView | AtView | EveryView


def schedule_state(record: ScheduleRecord, now: int) -> ScheduleState:
    """``overdue`` iff ``now >= scheduledAt`` (an unparseable target is never overdue)."""
    target = parse_iso_ms(record["scheduledAt"])
    return "overdue" if target is not None and now >= target else "scheduled"


def schedule_view(record: ScheduleRecord, now: int) -> ScheduleView:
    """The view of ``record`` at ``now``, keys in the order the tool output schema lists."""
    state = schedule_state(record, now)
    if record["kind"] == "after":
        after: AfterView = {
            "id": record["id"],
            "kind": "after",
            "prompt": record["prompt"],
            "afterSeconds": record["afterSeconds"],
            "scheduledAt": record["scheduledAt"],
            "state": state,
            "deliveryMode": DELIVERY_MODE,
        }
        return after
    if record["kind"] == "at":
        at: AtView = {
            "id": record["id"],
            "kind": "at",
            "prompt": record["prompt"],
            "scheduledAt": record["scheduledAt"],
            "state": state,
            "deliveryMode": DELIVERY_MODE,
        }
        return at
    every: EveryView = {
        "id": record["id"],
        "kind": "every",
        "prompt": record["prompt"],
        "everySeconds": record["everySeconds"],
        "scheduledAt": record["scheduledAt"],
        "state": state,
        "deliveryMode": DELIVERY_MODE,
    }
    return every

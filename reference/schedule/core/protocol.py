"""The version-1 ``schedule/change`` payloads, typed exactly as they appear in JSON.

Every value is a plain ``dict`` whose keys are in the canonical order written
by the decoder and the record builders, so ``to_js_json`` of a value is its
durable and model-facing text. Treat them as read-only: the fold replaces a
record instead of mutating it.
"""

from __future__ import annotations

from typing import Final, Literal, TypedDict

__all__ = [
    "MIN_EVERY_INTERVAL_SECONDS",
    "SCHEDULE_CHANGE_EVENT_TYPE",
    "SCHEDULE_CHANGE_VERSION",
    "AfterRecord",
    "AtRecord",
    "CreateChange",
    "DeleteChange",
    "EveryDispatchChange",
    "EveryRecord",
    "OneShotDispatchChange",
    "OneShotRecord",
    "ScheduleChange",
    "ScheduleRecord",
]

#: Session event type that carries every schedule change.
SCHEDULE_CHANGE_EVENT_TYPE: Final = "schedule/change"
#: The only accepted ``version``.
SCHEDULE_CHANGE_VERSION: Final = 1
#: Smallest ``every_seconds`` interval (five minutes).
MIN_EVERY_INTERVAL_SECONDS: Final = 300


class AfterRecord(TypedDict):
    """A one-shot reminder created with ``after_seconds``."""

    id: str
    kind: Literal["after"]
    prompt: str
    afterSeconds: int
    scheduledAt: str


class AtRecord(TypedDict):
    """A one-shot reminder created with ``at``; the submitted form is not kept."""

    id: str
    kind: Literal["at"]
    prompt: str
    scheduledAt: str


class EveryRecord(TypedDict):
    """A fixed-rate reminder; ``scheduledAt`` is its earliest undispatched occurrence."""

    id: str
    kind: Literal["every"]
    prompt: str
    everySeconds: int
    scheduledAt: str


OneShotRecord = AfterRecord | AtRecord
ScheduleRecord = AfterRecord | AtRecord | EveryRecord


class CreateChange(TypedDict):
    """``{"version":1,"operation":"create","schedule":<record>}``."""

    version: Literal[1]
    operation: Literal["create"]
    schedule: ScheduleRecord


class DeleteChange(TypedDict):
    """``{"version":1,"operation":"delete","id":...}``."""

    version: Literal[1]
    operation: Literal["delete"]
    id: str


class OneShotDispatchChange(TypedDict):
    """Dispatch of an after/at record: the id only."""

    version: Literal[1]
    operation: Literal["dispatch"]
    id: str


class EveryDispatchChange(TypedDict):
    """Dispatch of an every record, with the decision time shared by its batch."""

    version: Literal[1]
    operation: Literal["dispatch"]
    id: str
    acceptedAt: str


ScheduleChange = CreateChange | DeleteChange | OneShotDispatchChange | EveryDispatchChange

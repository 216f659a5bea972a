"""Strict decoder of version-1 ``schedule/change`` payloads.

Theory of operation: checks run in a fixed order and the first failure wins,
because the message names the violated rule and other implementations must
report the same one for the same payload. The order is: payload is an object,
``version`` is the number 1, ``operation`` selects a shape, the exact key set of
that shape, then each field in turn. Decoded values are rebuilt in canonical
key order, so the key order a writer used never leaks into later views.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from .errors import ScheduleLogError
from .instants import has_canonical_iso_shape, parse_iso_ms
from .js_semantics import MAX_SAFE_INTEGER, is_safe_integer, js_trim
from .protocol import (
    MIN_EVERY_INTERVAL_SECONDS,
    AfterRecord,
    AtRecord,
    CreateChange,
    DeleteChange,
    EveryDispatchChange,
    EveryRecord,
    OneShotDispatchChange,
    ScheduleChange,
    ScheduleRecord,
)

__all__ = [
    "decode_instant",
    "decode_schedule_change",
    "decode_schedule_id",
    "decode_schedule_record",
]

_CREATE_KEYS: Final = frozenset({"version", "operation", "schedule"})
_DELETE_KEYS: Final = frozenset({"version", "operation", "id"})
_EVERY_DISPATCH_KEYS: Final = frozenset({"version", "operation", "id", "acceptedAt"})
_AFTER_KEYS: Final = frozenset({"id", "kind", "prompt", "afterSeconds", "scheduledAt"})
_AT_KEYS: Final = frozenset({"id", "kind", "prompt", "scheduledAt"})
_EVERY_KEYS: Final = frozenset({"id", "kind", "prompt", "everySeconds", "scheduledAt"})


def decode_schedule_change(value: object) -> ScheduleChange:
    """Validate one ``schedule/change`` payload and return it in canonical form.

    Raises :class:`ScheduleLogError` whose message names the first violated rule.
    """
    if not isinstance(value, Mapping):
        raise ScheduleLogError("schedule/change payload must be an object")
    version = value.get("version")
    if not (is_safe_integer(version) and version == 1):
        raise ScheduleLogError("schedule/change version must be 1")
    keys = value.keys()
    operation = value.get("operation")
    if operation == "create":
        if keys != _CREATE_KEYS:
            raise ScheduleLogError(
                "schedule create must contain exactly version, operation, and schedule"
            )
        create: CreateChange = {
            "version": 1,
            "operation": "create",
            "schedule": decode_schedule_record(value["schedule"]),
        }
        return create
    if operation == "delete":
        if keys != _DELETE_KEYS:
            raise ScheduleLogError(
                "schedule delete must contain exactly version, operation, and id"
            )
        delete: DeleteChange = {
            "version": 1,
            "operation": "delete",
            "id": decode_schedule_id(value["id"]),
        }
        return delete
    if operation == "dispatch":
        if keys == _DELETE_KEYS:
            one_shot: OneShotDispatchChange = {
                "version": 1,
                "operation": "dispatch",
                "id": decode_schedule_id(value["id"]),
            }
            return one_shot
        if keys == _EVERY_DISPATCH_KEYS:
            schedule_id = decode_schedule_id(value["id"])
            every: EveryDispatchChange = {
                "version": 1,
                "operation": "dispatch",
                "id": schedule_id,
                "acceptedAt": decode_instant(value["acceptedAt"]),
            }
            return every
        raise ScheduleLogError("schedule dispatch must contain id and optional acceptedAt only")
    raise ScheduleLogError("schedule/change operation must be create, delete, or dispatch")


def decode_schedule_record(value: object) -> ScheduleRecord:
    """Validate a create's ``schedule`` record; raises :class:`ScheduleLogError`."""
    if not isinstance(value, Mapping):
        raise ScheduleLogError("schedule record must be an object")
    kind = value.get("kind")
    keys = value.keys()
    if kind == "after":
        if keys != _AFTER_KEYS:
            raise ScheduleLogError(
                "after schedule must contain exactly"
                " id, kind, prompt, afterSeconds, and scheduledAt"
            )
        prompt = _decode_prompt(value["prompt"], "after")
        after_seconds = value["afterSeconds"]
        if not (is_safe_integer(after_seconds) and after_seconds > 0):
            raise ScheduleLogError("afterSeconds must be a positive safe integer")
        after: AfterRecord = {
            "id": decode_schedule_id(value["id"]),
            "kind": "after",
            "prompt": prompt,
            "afterSeconds": int(after_seconds),
            "scheduledAt": decode_instant(value["scheduledAt"]),
        }
        return after
    if kind == "at":
        if keys != _AT_KEYS:
            raise ScheduleLogError(
                "at schedule must contain exactly id, kind, prompt, and scheduledAt"
            )
        prompt = _decode_prompt(value["prompt"], "at")
        at: AtRecord = {
            "id": decode_schedule_id(value["id"]),
            "kind": "at",
            "prompt": prompt,
            "scheduledAt": decode_instant(value["scheduledAt"]),
        }
        return at
    if kind == "every":
        if keys != _EVERY_KEYS:
            raise ScheduleLogError(
                "every schedule must contain exactly"
                " id, kind, prompt, everySeconds, and scheduledAt"
            )
        prompt = _decode_prompt(value["prompt"], "every")
        every_seconds = value["everySeconds"]
        # The interval must also stay a safe integer once converted to milliseconds.
        if not (
            is_safe_integer(every_seconds)
            and every_seconds >= MIN_EVERY_INTERVAL_SECONDS
            and every_seconds * 1000 <= MAX_SAFE_INTEGER
        ):
            raise ScheduleLogError("everySeconds must be a safe integer of at least 300")
        every: EveryRecord = {
            "id": decode_schedule_id(value["id"]),
            "kind": "every",
            "prompt": prompt,
            "everySeconds": int(every_seconds),
            "scheduledAt": decode_instant(value["scheduledAt"]),
        }
        return every
    raise ScheduleLogError('v1 schedule kind must be "after", "at", or "every"')


def decode_schedule_id(value: object) -> str:
    """A schedule id: any non-empty string equal to its JavaScript trim (format not enforced)."""
    if not isinstance(value, str) or value == "" or js_trim(value) != value:
        raise ScheduleLogError(
            "schedule id must be a non-empty string without surrounding whitespace"
        )
    return value


def decode_instant(value: object) -> str:
    """A canonical UTC instant (used for ``scheduledAt`` and ``acceptedAt`` alike).

    Both messages say ``scheduledAt`` even when ``acceptedAt`` is decoded: that is
    the protocol's wording.
    """
    if not has_canonical_iso_shape(value):
        raise ScheduleLogError(
            "scheduledAt must be a canonical four-digit-year RFC 3339 UTC instant"
        )
    if parse_iso_ms(value) is None:
        raise ScheduleLogError("scheduledAt is not a real UTC calendar instant")
    return value


def _decode_prompt(value: object, kind: str) -> str:
    if not isinstance(value, str) or value == "" or js_trim(value) != value:
        raise ScheduleLogError(f"{kind} prompt must be non-empty and already trimmed")
    return value

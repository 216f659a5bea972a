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
from .js_semantics import JS_WHITESPACE, MAX_SAFE_INTEGER, is_safe_integer, js_trim
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
    "decode_instant_ms",
    "decode_schedule_change",
    "decode_schedule_change_instant",
    "decode_schedule_id",
    "decode_schedule_record",
    "decode_schedule_record_instant",
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
    return decode_schedule_change_instant(value)[0]


def decode_schedule_change_instant(value: object) -> tuple[ScheduleChange, int | None]:
    """:func:`decode_schedule_change`, plus the epoch ms of the instant the
    change carries (a create's ``scheduledAt``, an every dispatch's
    ``acceptedAt``; ``None`` otherwise), so a fold parses each instant once."""
    # Fast paths: JSON-decoded payloads are dicts (a host's read-only ones
    # subclass dict) and ints; dict is a C check, Mapping the ABC's.
    if not isinstance(value, dict | Mapping):
        raise ScheduleLogError("schedule/change payload must be an object")
    version = value.get("version")
    if not (type(version) is int and version == 1) and not (
        is_safe_integer(version) and version == 1
    ):
        raise ScheduleLogError("schedule/change version must be 1")
    keys = value.keys()
    operation = value.get("operation")
    if operation == "create":
        if keys != _CREATE_KEYS:
            raise ScheduleLogError(
                "schedule create must contain exactly version, operation, and schedule"
            )
        record, scheduled_ms = decode_schedule_record_instant(value["schedule"])
        create: CreateChange = {"version": 1, "operation": "create", "schedule": record}
        return create, scheduled_ms
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
        return delete, None
    if operation == "dispatch":
        if keys == _DELETE_KEYS:
            one_shot: OneShotDispatchChange = {
                "version": 1,
                "operation": "dispatch",
                "id": decode_schedule_id(value["id"]),
            }
            return one_shot, None
        if keys == _EVERY_DISPATCH_KEYS:
            schedule_id = decode_schedule_id(value["id"])
            accepted_at = value["acceptedAt"]
            accepted_ms = parse_iso_ms(accepted_at)  # the hot path of a long log
            if accepted_ms is None:
                accepted_ms = decode_instant_ms(accepted_at)  # raises the right message
            every: EveryDispatchChange = {
                "version": 1,
                "operation": "dispatch",
                "id": schedule_id,
                "acceptedAt": accepted_at,
            }
            return every, accepted_ms
        raise ScheduleLogError("schedule dispatch must contain id and optional acceptedAt only")
    raise ScheduleLogError("schedule/change operation must be create, delete, or dispatch")


def decode_schedule_record(value: object) -> ScheduleRecord:
    """Validate a create's ``schedule`` record; raises :class:`ScheduleLogError`."""
    return decode_schedule_record_instant(value)[0]


def decode_schedule_record_instant(value: object) -> tuple[ScheduleRecord, int]:
    """:func:`decode_schedule_record`, plus the epoch ms of its ``scheduledAt``."""
    if not isinstance(value, dict | Mapping):
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
        schedule_id = decode_schedule_id(value["id"])
        scheduled_ms = decode_instant_ms(value["scheduledAt"])
        after: AfterRecord = {
            "id": schedule_id,
            "kind": "after",
            "prompt": prompt,
            "afterSeconds": int(after_seconds),
            "scheduledAt": value["scheduledAt"],
        }
        return after, scheduled_ms
    if kind == "at":
        if keys != _AT_KEYS:
            raise ScheduleLogError(
                "at schedule must contain exactly id, kind, prompt, and scheduledAt"
            )
        prompt = _decode_prompt(value["prompt"], "at")
        schedule_id = decode_schedule_id(value["id"])
        scheduled_ms = decode_instant_ms(value["scheduledAt"])
        at: AtRecord = {
            "id": schedule_id,
            "kind": "at",
            "prompt": prompt,
            "scheduledAt": value["scheduledAt"],
        }
        return at, scheduled_ms
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
        schedule_id = decode_schedule_id(value["id"])
        scheduled_ms = decode_instant_ms(value["scheduledAt"])
        every: EveryRecord = {
            "id": schedule_id,
            "kind": "every",
            "prompt": prompt,
            "everySeconds": int(every_seconds),
            "scheduledAt": value["scheduledAt"],
        }
        return every, scheduled_ms
    raise ScheduleLogError('v1 schedule kind must be "after", "at", or "every"')


def decode_schedule_id(value: object) -> str:
    """A schedule id: any non-empty string equal to its JavaScript trim (format not enforced)."""
    if not isinstance(value, str) or value == "" or value.strip(JS_WHITESPACE) != value:
        raise ScheduleLogError(
            "schedule id must be a non-empty string without surrounding whitespace"
        )
    return value


def decode_instant(value: object) -> str:
    """A canonical UTC instant (used for ``scheduledAt`` and ``acceptedAt`` alike).

    Both messages say ``scheduledAt`` even when ``acceptedAt`` is decoded: that is
    the protocol's wording.
    """
    decode_instant_ms(value)
    assert isinstance(value, str)
    return value


def decode_instant_ms(value: object) -> int:
    """Epoch ms of a canonical UTC instant; same checks and messages as :func:`decode_instant`."""
    epoch_ms = parse_iso_ms(value)
    if epoch_ms is not None:
        return epoch_ms
    if not has_canonical_iso_shape(value):
        raise ScheduleLogError(
            "scheduledAt must be a canonical four-digit-year RFC 3339 UTC instant"
        )
    raise ScheduleLogError("scheduledAt is not a real UTC calendar instant")


def _decode_prompt(value: object, kind: str) -> str:
    if not isinstance(value, str) or value == "" or js_trim(value) != value:
        raise ScheduleLogError(f"{kind} prompt must be non-empty and already trimmed")
    return value

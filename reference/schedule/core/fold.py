"""Fold a session event log into the active schedule records.

Theory of operation: the log is the only state. The fold reads the owned
suffix ``events[seed_length:]`` (a fork does not inherit its parent's
reminders), skips every event whose type is not ``schedule/change`` without
looking at it, decodes the rest strictly and applies them in order:

============  =========================  ====================================
operation     precondition               effect
============  =========================  ====================================
create        id never seen in suffix    id -> seen, record -> active
delete        id active                  record leaves active
dispatch      id active, one-shot,       record leaves active (terminal)
              no acceptedAt
dispatch      id active, every,          scheduledAt advances past acceptedAt,
              acceptedAt present         or the record leaves active if exhausted
============  =========================  ====================================

A broken precondition raises :class:`ScheduleLogError`; ids in its message are
JSON-encoded. ``active`` keeps creation order even when a record advances.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .decode import decode_schedule_change
from .errors import ScheduleLogError
from .every import resolve_every_occurrence
from .instants import parse_iso_ms
from .js_semantics import is_safe_integer, to_js_json
from .protocol import SCHEDULE_CHANGE_EVENT_TYPE, EveryRecord, ScheduleRecord

__all__ = ["FoldedSchedule", "event_field", "fold_schedule_events"]


@dataclass(frozen=True, slots=True)
class FoldedSchedule:
    """The fold of an owned log suffix.

    ``active``: live records in creation order. ``seen_ids``: every id created in
    the suffix, in creation order, including deleted and finished ones.
    """

    active: tuple[ScheduleRecord, ...]
    seen_ids: tuple[str, ...]


def event_field(event: object, name: str) -> object:
    """Read ``type`` or ``data`` from an event given as a mapping or an object with attributes."""
    if isinstance(event, Mapping):
        return event.get(name)
    return getattr(event, name, None)


def fold_schedule_events(events: Sequence[object], seed_length: object = 0) -> FoldedSchedule:
    """Fold ``events[seed_length:]``; raises :class:`ScheduleLogError` on any protocol breach.

    ``seed_length`` must be a safe integer within ``0..len(events)``; callers
    reading a session header pass ``header.seedLength`` with ``None`` mapped to 0.
    """
    if not (is_safe_integer(seed_length) and 0 <= seed_length <= len(events)):
        raise ScheduleLogError("schedule seedLength must be within the supplied event log")
    active: dict[str, ScheduleRecord] = {}
    seen: dict[str, None] = {}  # an insertion-ordered set
    for event in events[int(seed_length) :]:
        if event_field(event, "type") != SCHEDULE_CHANGE_EVENT_TYPE:
            continue
        change = decode_schedule_change(event_field(event, "data"))
        if change["operation"] == "create":
            record = change["schedule"]
            if record["id"] in seen:
                raise ScheduleLogError(f"schedule id {to_js_json(record['id'])} was reused")
            seen[record["id"]] = None
            active[record["id"]] = record
            continue
        schedule_id = change["id"]
        if schedule_id not in active:
            raise ScheduleLogError(
                f"schedule {change['operation']} targets inactive id {to_js_json(schedule_id)}"
            )
        if change["operation"] == "delete":
            del active[schedule_id]
            continue
        target = active[schedule_id]
        accepted_at = change.get("acceptedAt")
        if target["kind"] != "every":
            if accepted_at is not None:
                raise ScheduleLogError("one-shot dispatch must not contain acceptedAt")
            del active[schedule_id]
            continue
        if accepted_at is None:
            raise ScheduleLogError("every dispatch must contain acceptedAt")
        accepted_ms = parse_iso_ms(accepted_at)
        assert accepted_ms is not None  # the decoder accepted it as a real instant
        occurrence = resolve_every_occurrence(target, accepted_ms)
        if occurrence.next_scheduled_at is None:
            del active[schedule_id]  # exhausted: no representable next occurrence
        else:
            # Reassigning an existing key keeps its creation position.
            advanced: EveryRecord = {**target, "scheduledAt": occurrence.next_scheduled_at}
            active[schedule_id] = advanced
    return FoldedSchedule(active=tuple(active.values()), seen_ids=tuple(seen))

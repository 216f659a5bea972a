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

:class:`ScheduleFold` is the fold as a state that takes one event at a time,
so a projection can advance over only the events appended since its last read
(:class:`~dsh_reference.schedule.core.projection.ScheduleProjection`);
:func:`fold_schedule_events` is that state run over a whole list. Each instant
is parsed once, when its event is decoded; an every record's advanced
``scheduledAt`` is kept as epoch ms and formatted only when the record is read,
because a long log advances the same record many times between reads.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from .decode import decode_schedule_change_instant
from .errors import ScheduleLogError
from .instants import MAX_EPOCH_MS, format_iso_ms
from .js_semantics import is_safe_integer, to_js_json
from .protocol import SCHEDULE_CHANGE_EVENT_TYPE, EveryRecord, ScheduleRecord

__all__ = [
    "FoldedSchedule",
    "ScheduleFold",
    "check_seed_length",
    "event_field",
    "fold_schedule_events",
]

_CHANGE: Final = SCHEDULE_CHANGE_EVENT_TYPE


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
    if isinstance(event, dict | Mapping):  # dict first: a C check, not the ABC's
        return event.get(name)
    return getattr(event, name, None)


def check_seed_length(events: Sequence[object], seed_length: object) -> int:
    """``seed_length`` as an int; raises :class:`ScheduleLogError` unless it is a
    safe integer within ``0..len(events)``."""
    if type(seed_length) is int and 0 <= seed_length <= len(events):
        return seed_length  # the common case: an int within a log is a safe integer
    if not (is_safe_integer(seed_length) and 0 <= seed_length <= len(events)):
        raise ScheduleLogError("schedule seedLength must be within the supplied event log")
    return int(seed_length)


def _suffix(events: Sequence[object], start: int, stop: int) -> Sequence[object]:
    """``events[start:stop]``: one slice of a list, a tuple or a sequence
    whose slice is one (a host's read-only log view), else read by index (a
    ``Sequence`` need not support slices)."""
    if not isinstance(events, list | tuple):
        try:
            part = events[start:stop]
        except (TypeError, IndexError, KeyError):
            part = None
        if not (isinstance(part, list | tuple) and len(part) == stop - start):
            return [events[index] for index in range(start, stop)]
        return part
    return events[start:stop]


class ScheduleFold:
    """The fold in progress: feed owned events in log order with :meth:`apply`.

    ``apply`` either applies an event completely or raises
    :class:`ScheduleLogError` having changed nothing.
    """

    __slots__ = ("_records", "_seen", "_stale", "_targets")

    def __init__(self) -> None:
        self._records: dict[str, ScheduleRecord] = {}  # active, creation order
        self._targets: dict[str, int] = {}  # active id -> scheduledAt in epoch ms
        self._stale: set[str] = set()  # every ids whose record text lags _targets
        self._seen: dict[str, None] = {}  # an insertion-ordered set

    # -- folding ------------------------------------------------------------------

    def apply(self, event: object, *, commit: bool = True) -> None:
        """Fold one event (events of other types are skipped unread). With
        ``commit=False`` only check that it would fold, changing nothing."""
        # The common case (a host's read-only events subclass dict), without
        # the Mapping ABC check.
        if isinstance(event, dict):
            if event.get("type") != _CHANGE:
                return
            data = event.get("data")
        else:
            if event_field(event, "type") != _CHANGE:
                return
            data = event_field(event, "data")
        change, instant_ms = decode_schedule_change_instant(data)
        if change["operation"] == "create":
            record = change["schedule"]
            schedule_id = record["id"]
            if schedule_id in self._seen:
                raise ScheduleLogError(f"schedule id {to_js_json(schedule_id)} was reused")
            assert instant_ms is not None
            if not commit:
                return
            self._seen[schedule_id] = None
            self._records[schedule_id] = record
            self._targets[schedule_id] = instant_ms
            return
        operation = change["operation"]
        schedule_id = change["id"]
        records = self._records
        if schedule_id not in records:
            raise ScheduleLogError(
                f"schedule {operation} targets inactive id {to_js_json(schedule_id)}"
            )
        if operation == "delete":
            if commit:
                self._remove(schedule_id)
            return
        target = records[schedule_id]
        if target["kind"] != "every":
            if instant_ms is not None:
                raise ScheduleLogError("one-shot dispatch must not contain acceptedAt")
            if commit:
                self._remove(schedule_id)
            return
        if instant_ms is None:
            raise ScheduleLogError("every dispatch must contain acceptedAt")
        # resolve_every_occurrence's arithmetic on already-validated integers: the
        # decoder guarantees a four-digit-year acceptedAt and a safe interval.
        scheduled_ms = self._targets[schedule_id]
        if instant_ms < scheduled_ms:
            raise ScheduleLogError("every dispatch cannot precede the active scheduledAt")
        interval = target["everySeconds"] * 1000
        next_ms = scheduled_ms + ((instant_ms - scheduled_ms) // interval + 1) * interval
        if not commit:
            return
        if next_ms > MAX_EPOCH_MS:
            self._remove(schedule_id)  # exhausted: no representable next occurrence
            return
        self._targets[schedule_id] = next_ms
        self._stale.add(schedule_id)

    def apply_all(self, events: Sequence[object], start: int = 0) -> None:
        """Fold ``events[start:]`` in order."""
        stop = len(events)
        if start >= stop:
            return
        apply = self.apply
        for event in _suffix(events, start, stop):
            # What apply skips first, skipped without the call: most events of
            # a live log (a turn's) are not schedule changes.
            if isinstance(event, dict) and event.get("type") != _CHANGE:
                continue
            apply(event)

    def _remove(self, schedule_id: str) -> None:
        del self._records[schedule_id]
        del self._targets[schedule_id]
        self._stale.discard(schedule_id)

    # -- reading ------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, schedule_id: object) -> bool:
        return schedule_id in self._records

    def record(self, schedule_id: str) -> ScheduleRecord:
        """The active record ``schedule_id``, its ``scheduledAt`` brought up to date."""
        if schedule_id in self._stale:
            self._stale.discard(schedule_id)
            every = self._records[schedule_id]
            assert every["kind"] == "every"
            advanced: EveryRecord = {
                **every,
                "scheduledAt": format_iso_ms(self._targets[schedule_id]),
            }
            self._records[schedule_id] = advanced
        return self._records[schedule_id]

    def targets(self) -> Iterator[tuple[str, int]]:
        """``(id, scheduledAt epoch ms)`` of the active records, in creation order."""
        return iter(self._targets.items())

    def earliest_target(self) -> int | None:
        """The smallest active ``scheduledAt`` in epoch ms (None when nothing is active)."""
        return min(self._targets.values(), default=None)

    def active(self) -> tuple[ScheduleRecord, ...]:
        """The active records in creation order."""
        return tuple(self.record(schedule_id) for schedule_id in self._records)

    def is_seen(self, schedule_id: str) -> bool:
        """Whether ``schedule_id`` was ever created in the folded suffix."""
        return schedule_id in self._seen

    @property
    def seen_count(self) -> int:
        """How many ids were ever created in the folded suffix."""
        return len(self._seen)

    def snapshot(self) -> FoldedSchedule:
        """The fold as an immutable value (costs O(ids ever created))."""
        return FoldedSchedule(active=self.active(), seen_ids=tuple(self._seen))


def fold_schedule_events(events: Sequence[object], seed_length: object = 0) -> FoldedSchedule:
    """Fold ``events[seed_length:]``; raises :class:`ScheduleLogError` on any protocol breach.

    ``seed_length`` must be a safe integer within ``0..len(events)``; callers
    reading a session header pass ``header.seedLength`` with ``None`` mapped to 0.
    """
    start = check_seed_length(events, seed_length)
    state = ScheduleFold()
    state.apply_all(events, start)
    return state.snapshot()

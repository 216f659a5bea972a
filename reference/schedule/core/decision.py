"""What the live owner should do at ``now``: wait, deliver one one-shot, or deliver a batch.

Theory of operation, in priority order:

1. Due one-shots (after/at with ``scheduledAt <= now``) come first, one per
   decision: the smallest (scheduledAt, creation index). A due one-shot wins
   even over an every record with an earlier target.
2. Otherwise all due every records form one batch, ordered by their current
   (pre-dispatch) ``scheduledAt`` and then creation index. Each contributes its
   latest due occurrence, so ``occurrence_at`` values need not be ascending.
   The batch shares one ``acceptedAt``: the canonical text of ``now``.
3. Otherwise wait until the smallest ``scheduledAt`` (none if nothing is active).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from .every import resolve_every_occurrence
from .fold import FoldedSchedule, ScheduleFold
from .framing import BatchReminder
from .instants import MAX_EPOCH_MS, MIN_EPOCH_MS, format_iso_ms, parse_iso_ms
from .js_semantics import MAX_SAFE_INTEGER, is_safe_integer
from .protocol import EveryRecord, OneShotRecord, ScheduleRecord

__all__ = [
    "Decision",
    "EveryBatchDue",
    "OneShotDue",
    "Wait",
    "due_decision",
    "due_decision_after",
]

_Key = TypeVar("_Key")


@dataclass(frozen=True, slots=True)
class Wait:
    """Nothing is due; wake at ``target_ms`` (epoch ms), or never when ``None``."""

    target_ms: int | None


@dataclass(frozen=True, slots=True)
class OneShotDue:
    """Deliver this one-shot record; its dispatch carries only the id."""

    record: OneShotRecord


@dataclass(frozen=True, slots=True)
class EveryBatchDue:
    """Deliver these every records together; each dispatch carries ``accepted_at``."""

    accepted_at: str
    reminders: tuple[BatchReminder, ...]


Decision = Wait | OneShotDue | EveryBatchDue


def due_decision(folded: FoldedSchedule, now: int) -> Decision:
    """Decide at ``now`` (epoch ms) from a fold.

    Raises :class:`ScheduleLogError` if every records are due but ``now`` is not a
    representable four-digit-year instant.
    """
    entries = [(_target_ms(record), record) for record in folded.active]
    return _decide(entries, lambda record: record, now)


def due_decision_after(state: ScheduleFold, now: int) -> Decision:
    """:func:`due_decision` on a fold in progress: reads only the records that
    are due, so a wait costs no formatting."""
    earliest = state.earliest_target()
    if earliest is None or earliest > now:
        # Nothing is due: the wait is the earliest target (one C-level min).
        return Wait(earliest)
    entries = [(target, schedule_id) for schedule_id, target in state.targets()]
    return _decide(entries, state.record, now)


def _decide(
    entries: Sequence[tuple[int, _Key]], record_of: Callable[[_Key], ScheduleRecord], now: int
) -> Decision:
    one_shots: list[tuple[int, int, OneShotRecord]] = []
    everies: list[tuple[int, int, EveryRecord]] = []
    for index, (target, key) in enumerate(entries):
        if target > now:
            continue
        record = record_of(key)
        if record["kind"] == "every":
            everies.append((target, index, record))
        else:
            one_shots.append((target, index, record))
    if one_shots:
        return OneShotDue(min(one_shots, key=lambda item: item[:2])[2])
    if everies:
        everies.sort(key=lambda item: item[:2])
        reminders = tuple(
            BatchReminder(record, _occurrence_at(record, target, now))
            for target, _, record in everies
        )
        return EveryBatchDue(accepted_at=format_iso_ms(now), reminders=reminders)
    return Wait(min((target for target, _ in entries), default=None))


def _occurrence_at(record: EveryRecord, target: int, now: int) -> str:
    """``resolve_every_occurrence(record, now).occurrence_at`` from the target
    already parsed, without formatting the next target it would throw away."""
    every_seconds: object = record["everySeconds"]
    if not (
        is_safe_integer(now)
        and MIN_EPOCH_MS <= now <= MAX_EPOCH_MS
        and type(every_seconds) is int
        and 0 < every_seconds * 1000 <= MAX_SAFE_INTEGER
    ):
        return resolve_every_occurrence(record, now).occurrence_at  # its checks and errors
    interval = every_seconds * 1000
    return format_iso_ms(target + (int(now) - target) // interval * interval)


def _target_ms(record: ScheduleRecord) -> int:
    target = parse_iso_ms(record["scheduledAt"])
    if target is None:
        raise ValueError(f"record {record['id']!r} has no canonical scheduledAt")
    return target

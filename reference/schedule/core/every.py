"""Fixed-rate arithmetic: which occurrence a dispatch delivers, and the next target.

Theory of operation: an every record's occurrences are ``anchor + k * interval``
(k >= 1), where the anchor is the creation time. The anchor is never stored:
``scheduledAt`` always holds the earliest undispatched occurrence, so it carries
the alignment forward. A dispatch accepted at ``acceptedAt`` delivers only the
latest occurrence at or before ``acceptedAt`` (missed ones are skipped, never
replayed) and moves ``scheduledAt`` to the first occurrence strictly after it.
When that next occurrence would be later than 9999-12-31T23:59:59.999Z the
record is exhausted and the fold removes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ScheduleLogError
from .instants import MAX_EPOCH_MS, MIN_EPOCH_MS, format_iso_ms, parse_iso_ms
from .js_semantics import is_safe_integer
from .protocol import EveryRecord

__all__ = ["EveryOccurrence", "resolve_every_occurrence"]


@dataclass(frozen=True, slots=True)
class EveryOccurrence:
    """What one dispatch delivers; ``next_scheduled_at`` is ``None`` once exhausted."""

    occurrence_at: str
    next_scheduled_at: str | None


def resolve_every_occurrence(record: EveryRecord, accepted_at_ms: int) -> EveryOccurrence:
    """Resolve a dispatch of ``record`` accepted at ``accepted_at_ms`` (epoch ms).

    Raises :class:`ScheduleLogError` when the dispatch is impossible (see messages).
    """
    if not (is_safe_integer(accepted_at_ms) and MIN_EPOCH_MS <= accepted_at_ms <= MAX_EPOCH_MS):
        raise ScheduleLogError("every acceptedAt must be a representable four-digit-year instant")
    every_seconds: object = record["everySeconds"]
    interval = every_seconds * 1000 if is_safe_integer(every_seconds) else None
    if interval is None or not is_safe_integer(interval) or interval <= 0:
        raise ScheduleLogError("every interval milliseconds must be a positive safe integer")
    interval = int(interval)
    accepted = int(accepted_at_ms)
    target = parse_iso_ms(record["scheduledAt"])
    if target is not None and accepted < target:
        raise ScheduleLogError("every dispatch cannot precede the active scheduledAt")
    if target is None:
        # An unparseable target makes the arithmetic meaningless (NaN in the original).
        raise ScheduleLogError("every occurrence arithmetic must stay within the accepted interval")
    occurrence = target + (accepted - target) // interval * interval
    next_target = occurrence + interval
    if next_target > MAX_EPOCH_MS:
        return EveryOccurrence(occurrence_at=format_iso_ms(occurrence), next_scheduled_at=None)
    return EveryOccurrence(
        occurrence_at=format_iso_ms(occurrence), next_scheduled_at=format_iso_ms(next_target)
    )

"""Resolve a local wall-clock time in an IANA zone to a single UTC instant.

Theory of operation: a local time ``L`` (read as if it were UTC, in epoch ms)
maps to the instants ``L - offset`` for whichever offsets the zone uses near
it. The zone's offsets are sampled at ``L - 48h, L - 24h, L, L + 24h, L + 48h``,
which is wider than any real transition (the largest, Pacific/Apia in 2011,
skipped 24 hours). Each distinct offset gives a candidate, and a candidate is
kept only if projecting it back into the zone reproduces ``L`` exactly,
milliseconds included:

* one survivor: the ordinary case;
* two survivors: an overlap (clocks went back); the smallest, earlier instant wins;
* no survivor: a gap (clocks jumped forward), unless a candidate fell outside
  0001-9999, in which case the time is out of range.

Away from the edges of the range the candidates come from two offset reads
instead of five: the zone's offsets for the wall time at both folds (PEP 495),
which differ exactly inside a gap or an overlap (the offsets before and after
its transition); each candidate is kept or dropped as above. Within a week of
0001-01-01 or 9999-12-31 the samples decide.

Offsets are read through :mod:`zoneinfo` from the pinned ``tzdata`` package
and may carry seconds (local mean time before standard time). Everything else
is integer arithmetic on epoch milliseconds, so years 1 and 9999 need no
special cases beyond reading an offset whose local time falls off the edge of
:class:`datetime.datetime`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final
from zoneinfo import ZoneInfo

from pytest_dsh.contract.tzdb import pinned_zone

from .errors import INVALID_RULE, TIME_OUT_OF_RANGE, ScheduleInputError
from .instants import MAX_EPOCH_MS, MIN_EPOCH_MS, TIME_OUT_OF_RANGE_MESSAGE, epoch_ms_from_fields

__all__ = ["LOCAL_TIME_GAP_MESSAGE", "LocalFields", "resolve_local_instant", "zone_offset_ms"]

LOCAL_TIME_GAP_MESSAGE: Final = "The local at time does not exist in the selected time zone."

_HOUR_MS: Final = 3_600_000
_SAMPLE_DELTAS_MS: Final = (-48 * _HOUR_MS, -24 * _HOUR_MS, 0, 24 * _HOUR_MS, 48 * _HOUR_MS)
_UNIX_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_ONE_MS: Final = timedelta(milliseconds=1)
_from_timestamp: Final = datetime.fromtimestamp
#: Wall times the two fold offsets decide: a week inside 0001-9999 (no
#: offset reaches a day), so every candidate lies in the range.
_FOLDS_DECIDE_FROM: Final = MIN_EPOCH_MS + 7 * 24 * _HOUR_MS
_FOLDS_DECIDE_UNTIL: Final = MAX_EPOCH_MS - 7 * 24 * _HOUR_MS


@dataclass(frozen=True, slots=True)
class LocalFields:
    """A real proleptic Gregorian wall-clock time (year 1-9999, ms precision)."""

    year: int
    month: int
    day: int
    hour: int
    minute: int
    second: int
    millisecond: int

    def as_utc_epoch_ms(self) -> int:
        """The fields read as if they were UTC."""
        return epoch_ms_from_fields(
            self.year, self.month, self.day, self.hour, self.minute, self.second, self.millisecond
        )


def zone_offset_ms(zone: ZoneInfo, epoch_ms: int) -> int:
    """The zone's UTC offset, in ms, at instant ``epoch_ms`` (which must lie in 0001-9999)."""
    try:
        # Offsets change only at whole seconds (TZif transitions and POSIX TZ
        # rules count in seconds), so the instant's second decides; a datetime
        # built from a timestamp costs a third of one built by arithmetic.
        offset = zone.utcoffset(_from_timestamp(epoch_ms // 1000, zone))
    except (OverflowError, ValueError, OSError):
        # Within a day of datetime's range: read it the exact way.
        offset = _offset_near_the_edges(zone, epoch_ms)
    assert offset is not None  # a ZoneInfo always knows its offset
    return offset // _ONE_MS


def _offset_near_the_edges(zone: ZoneInfo, epoch_ms: int) -> timedelta | None:
    instant = _UNIX_EPOCH + timedelta(milliseconds=epoch_ms)
    try:
        return instant.astimezone(zone).utcoffset()
    except OverflowError:
        # The local time is before 0001-01-01 or after 9999-12-31 by less than a
        # day; no zone changes its offset there, so read it at the edge instead.
        edge = datetime.min if epoch_ms < 0 else datetime.max
        return zone.utcoffset(edge)


def resolve_local_instant(fields: LocalFields, zone_key: str) -> int:
    """The epoch ms at which the zone's clocks read ``fields``; earlier instant in an overlap.

    ``zone_key`` must be a key of the pinned ``tzdata`` package. Raises
    :class:`ScheduleInputError`: ``invalid_rule`` for a time in a gap,
    ``time_out_of_range`` when the only matching instants fall outside 0001-9999.
    """
    zone = pinned_zone(zone_key)
    local_ms = fields.as_utc_epoch_ms()
    decided = _instant_by_folds(zone, fields, local_ms)
    return _instant_by_samples(zone, local_ms) if decided is None else decided


def _instant_by_samples(zone: ZoneInfo, local_ms: int) -> int:
    """The earliest instant whose wall time in ``zone`` is ``local_ms``, from
    the offsets sampled around it (the module docstring)."""
    offsets: dict[int, None] = {}  # insertion-ordered, distinct
    for delta in _SAMPLE_DELTAS_MS:
        sample = min(max(local_ms + delta, MIN_EPOCH_MS), MAX_EPOCH_MS)
        offsets[zone_offset_ms(zone, sample)] = None
    candidates: list[int] = []
    out_of_range = False
    for offset in offsets:
        candidate = local_ms - offset
        if not MIN_EPOCH_MS <= candidate <= MAX_EPOCH_MS:
            out_of_range = True
            continue
        if candidate + zone_offset_ms(zone, candidate) == local_ms:
            candidates.append(candidate)
    if candidates:
        return min(candidates)
    if out_of_range:
        raise ScheduleInputError(TIME_OUT_OF_RANGE, TIME_OUT_OF_RANGE_MESSAGE)
    raise ScheduleInputError(INVALID_RULE, LOCAL_TIME_GAP_MESSAGE)


def _instant_by_folds(zone: ZoneInfo, fields: LocalFields, local_ms: int) -> int | None:
    """The instant the samples would find, from the wall time's offsets at
    both folds (PEP 495); None near the edges of the range, where the samples
    decide. Raises ``invalid_rule`` for a time in a gap.

    :mod:`zoneinfo` reads a wall time inside a gap or an overlap with the
    offset before the transition at fold 0 and the one after it at fold 1,
    and any other wall time with its one offset at both folds; each offset's
    candidate counts when it reads back as the wall time."""
    if not _FOLDS_DECIDE_FROM <= local_ms <= _FOLDS_DECIDE_UNTIL:
        return None
    wall = (fields.year, fields.month, fields.day, fields.hour, fields.minute, fields.second,
            fields.millisecond * 1000, zone)
    first, second = datetime(*wall).utcoffset(), datetime(*wall, fold=1).utcoffset()
    assert first is not None and second is not None  # a ZoneInfo always knows its offset
    found = None
    for offset in (first,) if first == second else (first, second):
        candidate = local_ms - offset // _ONE_MS
        if candidate + zone_offset_ms(zone, candidate) == local_ms:
            found = candidate if found is None else min(found, candidate)
    if found is None:
        raise ScheduleInputError(INVALID_RULE, LOCAL_TIME_GAP_MESSAGE)
    return found

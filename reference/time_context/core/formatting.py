"""Rendering of the two values a reading shows: a zoned timestamp and a duration.

Both display whole seconds only, although event times keep milliseconds:

* the timestamp floors the instant to its second (so ``.999`` never rounds up
  and negative epochs floor towards the past) before converting to local wall
  time: ``YYYY-MM-DDTHH:MM:SS±HH:MM[Zone]``. The year is unpadded, the offset
  is ``+00:00`` when zero (never ``Z`` or ``-00:00``) and gains ``:SS`` when the
  zone's offset has seconds (local mean time, e.g. ``+08:05:43``);
* the duration floors ``elapsed_ms / 1000`` after clamping negatives to 0, then
  prints the non-zero ``Nd``, ``Nh``, ``Nm`` parts and always ``Ns``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Final
from zoneinfo import ZoneInfo

__all__ = ["format_duration", "format_offset", "format_timestamp"]

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_UNITS: Final = (("d", 86_400), ("h", 3_600), ("m", 60))
#: 400 Gregorian years, in seconds (146,097 days).
_CYCLE_S: Final = 146_097 * 86_400
#: 0002-01-01 and 9998-12-31 UTC: a day of margin keeps any offset in range.
_FIRST_S: Final = -62_104_060_800
_LAST_S: Final = 253_370_678_400



def format_offset(offset_seconds: int) -> str:
    """``+08:00``, ``-02:30``, ``+00:00``; ``+08:05:43`` when seconds are non-zero."""
    sign = "-" if offset_seconds < 0 else "+"
    hours, rest = divmod(abs(offset_seconds), 3_600)
    minutes, seconds = divmod(rest, 60)
    text = f"{sign}{hours:02d}:{minutes:02d}"
    return f"{text}:{seconds:02d}" if seconds else text


def format_timestamp(epoch_ms: int, zone: ZoneInfo, label: str) -> str:
    """The local wall time of ``epoch_ms`` in ``zone``, labelled ``[label]``.

    Any instant of the JavaScript time range has a local time; years past
    9999 print in full (``10000-01-01T08:00:00+08:00[Asia/Shanghai]``).
    """
    seconds = epoch_ms // 1000
    # datetime ends at years 1 and 9999, JS time does not. The Gregorian
    # calendar, and with it a zone's recurring rule, repeats every 400 years:
    # shift an instant outside into range and add the years back when printing.
    cycles = 0
    if seconds > _LAST_S:
        cycles = -((seconds - _LAST_S) // -_CYCLE_S)
    elif seconds < _FIRST_S:
        cycles = (seconds - _FIRST_S) // _CYCLE_S
    seconds -= cycles * _CYCLE_S
    try:
        local = (_EPOCH + timedelta(seconds=seconds)).astimezone(zone)
    except OverflowError as exc:
        raise ValueError(f"instant {epoch_ms} cannot be shown as a local time") from exc
    offset = local.utcoffset()
    assert offset is not None  # a ZoneInfo always has an offset
    offset_seconds = offset.days * 86_400 + offset.seconds
    return (
        f"{local.year + 400 * cycles}-{local.month:02d}-{local.day:02d}"
        f"T{local.hour:02d}:{local.minute:02d}:{local.second:02d}"
        f"{format_offset(offset_seconds)}[{label}]"
    )


def format_duration(elapsed_ms: int) -> str:
    """``0s``, ``59s``, ``1m 0s``, ``1h 0s``, ``1d 1h 1m 1s``; negatives read ``0s``."""
    remaining = max(elapsed_ms, 0) // 1000
    parts: list[str] = []
    for unit, size in _UNITS:
        count, remaining = divmod(remaining, size)
        if count:
            parts.append(f"{count}{unit}")
    parts.append(f"{remaining}s")
    return " ".join(parts)

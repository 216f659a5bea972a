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


def format_offset(offset_seconds: int) -> str:
    """``+08:00``, ``-02:30``, ``+00:00``; ``+08:05:43`` when seconds are non-zero."""
    sign = "-" if offset_seconds < 0 else "+"
    hours, rest = divmod(abs(offset_seconds), 3_600)
    minutes, seconds = divmod(rest, 60)
    text = f"{sign}{hours:02d}:{minutes:02d}"
    return f"{text}:{seconds:02d}" if seconds else text


def format_timestamp(epoch_ms: int, zone: ZoneInfo, label: str) -> str:
    """The local wall time of ``epoch_ms`` in ``zone``, labelled ``[label]``.

    Raises :class:`ValueError` when the local time falls outside years 1-9999.
    """
    try:
        local = (_EPOCH + timedelta(seconds=epoch_ms // 1000)).astimezone(zone)
    except OverflowError as exc:
        raise ValueError(f"instant {epoch_ms} cannot be shown as a local time") from exc
    offset = local.utcoffset()
    assert offset is not None  # a ZoneInfo always has an offset
    offset_seconds = offset.days * 86_400 + offset.seconds
    return (
        f"{local.year}-{local.month:02d}-{local.day:02d}"
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

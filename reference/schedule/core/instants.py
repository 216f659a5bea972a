"""Four-digit-year UTC instants as epoch milliseconds, and the "future instant" gate.

All arithmetic is on ``int`` epoch milliseconds over the proleptic Gregorian
calendar; :mod:`datetime` is used only for date ordinals, which cover exactly
the years 0001-9999 that the protocol allows. The canonical text form is
ECMAScript ``Date.prototype.toISOString`` restricted to those years:
``YYYY-MM-DDTHH:mm:ss.sssZ``.
"""

from __future__ import annotations

import calendar
import re
from datetime import date
from typing import Final, TypeGuard

from .errors import NOT_FUTURE, TIME_OUT_OF_RANGE, ScheduleInputError
from .js_semantics import is_safe_integer

__all__ = [
    "MAX_EPOCH_MS",
    "MIN_EPOCH_MS",
    "NOT_FUTURE_MESSAGE",
    "TIME_OUT_OF_RANGE_MESSAGE",
    "epoch_ms_from_fields",
    "format_iso_ms",
    "future_instant",
    "has_canonical_iso_shape",
    "is_real_calendar_date",
    "parse_iso_ms",
]

#: ``Date.parse("0001-01-01T00:00:00.000Z")``.
MIN_EPOCH_MS: Final = -62_135_596_800_000
#: ``Date.parse("9999-12-31T23:59:59.999Z")``.
MAX_EPOCH_MS: Final = 253_402_300_799_999

TIME_OUT_OF_RANGE_MESSAGE: Final = (
    "The scheduled time must be representable as a four-digit-year RFC 3339 UTC instant."
)
NOT_FUTURE_MESSAGE: Final = "The scheduled time must be strictly in the future."

_MS_PER_DAY: Final = 86_400_000
_UNIX_EPOCH_ORDINAL: Final = date(1970, 1, 1).toordinal()
_CANONICAL_ISO: Final = re.compile(
    r"(?!0000)[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
    r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z"
)


def is_real_calendar_date(year: int, month: int, day: int) -> bool:
    """Whether the fields name a real proleptic Gregorian date in years 0001-9999."""
    if not (1 <= year <= 9999 and 1 <= month <= 12):
        return False
    return 1 <= day <= calendar.monthrange(year, month)[1]


def epoch_ms_from_fields(
    year: int, month: int, day: int, hour: int, minute: int, second: int, millisecond: int
) -> int:
    """Epoch milliseconds of the fields read as UTC (the date must be real)."""
    days = date(year, month, day).toordinal() - _UNIX_EPOCH_ORDINAL
    return (((days * 24 + hour) * 60 + minute) * 60 + second) * 1000 + millisecond


def format_iso_ms(epoch_ms: int) -> str:
    """``new Date(epoch_ms).toISOString()`` for instants in years 0001-9999.

    Raises :class:`ValueError` for anything else, including non-integers.
    """
    global _last_formatted
    last = _last_formatted  # one read: a (ms, text) pair is replaced whole
    if type(epoch_ms) is int and epoch_ms == last[0]:
        return last[1]
    if not is_safe_integer(epoch_ms) or not MIN_EPOCH_MS <= epoch_ms <= MAX_EPOCH_MS:
        raise ValueError(f"{epoch_ms!r} is not a four-digit-year epoch millisecond instant")
    days, ms_of_day = divmod(int(epoch_ms), _MS_PER_DAY)
    day_text = _DAY_TEXT.get(days)
    if day_text is None:
        day_text = _day_text(days)
    seconds_of_day, millisecond = divmod(ms_of_day, 1000)
    minutes_of_day, second = divmod(seconds_of_day, 60)
    hour, minute = divmod(minutes_of_day, 60)
    text = f"{day_text}T{hour:02d}:{minute:02d}:{second:02d}.{millisecond:03d}Z"
    if type(epoch_ms) is int:
        _last_formatted = (epoch_ms, text)
    return text


# The last instant formatted: a delivery formats the same instants more than
# once (the owner decides before its claim and again inside it, at one time).
_last_formatted: tuple[int | None, str] = (None, "")


# The date part of each day formatted: consecutive instants (a reminder's
# occurrences, a log's times) fall on few days, as in parsing (_DAY_MS).
_DAY_TEXT: dict[int, str] = {}


def _day_text(days: int) -> str:
    day = date.fromordinal(days + _UNIX_EPOCH_ORDINAL)
    text = f"{day.year:04d}-{day.month:02d}-{day.day:02d}"
    if len(_DAY_TEXT) >= _DAY_CACHE_SIZE:
        _DAY_TEXT.clear()
    _DAY_TEXT[days] = text
    return text


def has_canonical_iso_shape(text: object) -> TypeGuard[str]:
    """Whether ``text`` has the exact ``YYYY-MM-DDTHH:mm:ss.sssZ`` shape (year 0000 excluded).

    Shape only: ``2026-02-30T00:00:00.000Z`` passes; see :func:`parse_iso_ms`.
    """
    return isinstance(text, str) and _CANONICAL_ISO.fullmatch(text) is not None


def parse_iso_ms(text: object) -> int | None:
    """Epoch milliseconds of a canonical instant, or ``None`` if the shape or calendar is wrong."""
    last = _last_formatted
    if type(text) is str and text == last[1] and last[0] is not None:
        # The text format_iso_ms wrote last: a create formats its target, then
        # its view and the fold's decoder read that very text back.
        return last[0]
    if not isinstance(text, str) or _CANONICAL_ISO.fullmatch(text) is None:
        return None
    day_ms = _DAY_MS.get(text[:10], -1)
    if day_ms == -1:
        day_ms = _day_ms(text[:10])
    if day_ms is None:
        return None
    return (
        day_ms
        + int(text[11:13]) * 3_600_000
        + int(text[14:16]) * 60_000
        + int(text[17:19]) * 1000
        + int(text[20:23])
    )


# Epoch ms of the start of each calendar day seen, None for unreal dates. The
# instants of a long log are nearly all distinct, but their days repeat (a
# 5-minute reminder dispatches 288 times a day), so days are cached, not instants.
_DAY_MS: dict[str, int | None] = {}
_DAY_CACHE_SIZE: Final = 4096


def _day_ms(day_text: str) -> int | None:
    year, month, day = int(day_text[0:4]), int(day_text[5:7]), int(day_text[8:10])
    if day > 28 and day > calendar.monthrange(year, month)[1]:
        value: int | None = None
    else:
        value = (date(year, month, day).toordinal() - _UNIX_EPOCH_ORDINAL) * _MS_PER_DAY
    if len(_DAY_MS) >= _DAY_CACHE_SIZE:
        _DAY_MS.clear()
    _DAY_MS[day_text] = value
    return value


def future_instant(epoch_ms: object, now: object) -> str:
    """The canonical text of ``epoch_ms`` if it is representable and strictly after ``now``.

    Range is checked first, so a past instant outside 0001-9999 is
    ``time_out_of_range``, not ``not_future``. Raises :class:`ScheduleInputError`.
    """
    if (
        not is_safe_integer(now)
        or not is_safe_integer(epoch_ms)
        or not MIN_EPOCH_MS <= epoch_ms <= MAX_EPOCH_MS
    ):
        raise ScheduleInputError(TIME_OUT_OF_RANGE, TIME_OUT_OF_RANGE_MESSAGE)
    if epoch_ms <= now:
        raise ScheduleInputError(NOT_FUTURE, NOT_FUTURE_MESSAGE)
    return format_iso_ms(int(epoch_ms))

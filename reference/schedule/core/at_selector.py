"""Parse the ``at`` selector into one UTC instant, without reading any clock.

Theory of operation: ``at`` is either a string with an explicit ``Z`` or
``±HH:MM`` offset, or a local object ``{date, time, time_zone}``. Every check
that does not need "now" happens here, before the create enters the Agent
queue; only the not-future gate (:func:`future_instant`) waits for the clock.
Checks run in a fixed order and the first failure wins:

string  grammar -> field ranges -> real calendar date -> offset -> 0001-9999 range
object  key set -> date/time are strings -> time_zone is a string -> grammar ->
        field ranges -> real calendar date -> zone -> gap / 0001-9999 range

A real calendar date uses the proleptic Gregorian calendar for every year.
Zones are exact, case-sensitive keys of the pinned ``tzdata`` package with an
``Area/Location`` shape, or exactly ``UTC``; nothing is trimmed or normalised.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, TypeVar

from pytest_dsh.contract.tzdb import pinned_zone_keys

from .errors import INVALID_RULE, INVALID_TIME_ZONE, TIME_OUT_OF_RANGE, ScheduleInputError
from .instants import (
    MAX_EPOCH_MS,
    MIN_EPOCH_MS,
    TIME_OUT_OF_RANGE_MESSAGE,
    is_real_calendar_date,
)
from .local_instants import LocalFields, resolve_local_instant

__all__ = [
    "AT_SELECTOR_TYPE_MESSAGE",
    "AT_STRING_SHAPE_MESSAGE",
    "INVALID_OFFSET_MESSAGE",
    "LOCAL_AT_KEYS_MESSAGE",
    "LOCAL_AT_SHAPE_MESSAGE",
    "LOCAL_AT_TYPES_MESSAGE",
    "LOCAL_UNREAL_TIME_MESSAGE",
    "TIME_ZONE_TYPE_MESSAGE",
    "UNREAL_DATE_TIME_MESSAGE",
    "ZONE_NAME_MESSAGE",
    "ParsedAt",
    "parse_at_selector",
    "validate_time_zone",
]

AT_STRING_SHAPE_MESSAGE: Final = (
    "at must use YYYY-MM-DDTHH:mm:ss with optional 1-3 digit fractional seconds"
    " and an explicit Z or numeric offset."
)
UNREAL_DATE_TIME_MESSAGE: Final = "The at value must be a real ISO calendar date and time."
INVALID_OFFSET_MESSAGE: Final = "The at numeric offset is invalid."
LOCAL_AT_KEYS_MESSAGE: Final = "Local at must contain exactly date, time, and time_zone."
LOCAL_AT_TYPES_MESSAGE: Final = "Local at date and time must be strings."
TIME_ZONE_TYPE_MESSAGE: Final = "time_zone must be a string."
LOCAL_AT_SHAPE_MESSAGE: Final = (
    "Local at requires date YYYY-MM-DD and time HH:mm:ss"
    " with optional one-to-three digit milliseconds."
)
LOCAL_UNREAL_TIME_MESSAGE: Final = "The local at value must be a real ISO calendar date and time."
ZONE_NAME_MESSAGE: Final = "time_zone must be UTC or a valid IANA Area/Location name."
AT_SELECTOR_TYPE_MESSAGE: Final = "at must be an explicit-offset string or local calendar object."

# [0-9] rather than \d: only ASCII digits count, as in the JavaScript grammar.
_AT_STRING: Final = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]{1,3}))?(Z|([+-])([0-9]{2}):([0-9]{2}))"
)
_LOCAL_DATE: Final = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_LOCAL_TIME: Final = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,3}))?")
_ZONE_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9_+.-]*(?:/[A-Za-z0-9_+.-]+)+")
_LOCAL_KEYS: Final = frozenset({"date", "time", "time_zone"})


@dataclass(frozen=True, slots=True)
class ParsedAt:
    """A shape-valid ``at`` selector: its target instant in epoch ms (within 0001-9999)."""

    epoch_ms: int


def parse_at_selector(at: object) -> ParsedAt:
    """Validate ``at`` as far as possible without a clock; raises :class:`ScheduleInputError`."""
    if isinstance(at, str):
        return ParsedAt(_parse_offset_string(at))
    if isinstance(at, dict | Mapping):  # dict first: a C check, not the ABC's
        return ParsedAt(_parse_local_object(at))
    raise ScheduleInputError(INVALID_RULE, AT_SELECTOR_TYPE_MESSAGE)


@functools.cache
def _zone_keys_by_folded_name() -> dict[str, str]:
    return {key.casefold(): key for key in pinned_zone_keys()}


def validate_time_zone(value: str) -> str:
    """``UTC``, or the pinned tzdata key an ``Area/Location`` name names.

    The name is matched case-insensitively, as ICU does for the official build
    (pin SCH-ZONE-NAME-CASE: the README does not say whether case matters);
    only ``UTC`` itself may have a single segment."""
    if value == "UTC":
        return value
    return _read_once(_KEYS_BY_NAME, value, _zone_key)


def _zone_key(value: str) -> str:
    key = None
    if value.isascii() and _ZONE_NAME.fullmatch(value):
        key = _zone_keys_by_folded_name().get(value.casefold())
    if key is None:
        raise ScheduleInputError(INVALID_TIME_ZONE, ZONE_NAME_MESSAGE)
    return key


def _parse_offset_string(text: str) -> int:
    match = _AT_STRING.fullmatch(text)
    if match is None:
        raise ScheduleInputError(INVALID_RULE, AT_STRING_SHAPE_MESSAGE)
    fields = _fields(match.group(1, 2, 3, 4, 5, 6), match.group(7))
    if _has_out_of_range_field(fields):
        raise ScheduleInputError(INVALID_RULE, UNREAL_DATE_TIME_MESSAGE)
    _require_real_calendar_date(fields)
    epoch_ms = fields.as_utc_epoch_ms()
    if match.group(8) != "Z":
        sign, hours, minutes = match.group(9), int(match.group(10)), int(match.group(11))
        # -00:00 is refused as the official build refuses it (pin SCH-NEGATIVE-ZERO-OFFSET).
        if hours > 23 or minutes > 59 or (sign == "-" and hours == 0 and minutes == 0):
            raise ScheduleInputError(INVALID_RULE, INVALID_OFFSET_MESSAGE)
        direction = 1 if sign == "+" else -1
        epoch_ms -= direction * (hours * 60 + minutes) * 60_000
    if not MIN_EPOCH_MS <= epoch_ms <= MAX_EPOCH_MS:
        raise ScheduleInputError(TIME_OUT_OF_RANGE, TIME_OUT_OF_RANGE_MESSAGE)
    return epoch_ms


def _parse_local_object(at: Mapping[object, object]) -> int:
    if at.keys() != _LOCAL_KEYS:
        raise ScheduleInputError(INVALID_RULE, LOCAL_AT_KEYS_MESSAGE)
    date_text, time_text, zone = at["date"], at["time"], at["time_zone"]
    if not isinstance(date_text, str) or not isinstance(time_text, str):
        raise ScheduleInputError(INVALID_RULE, LOCAL_AT_TYPES_MESSAGE)
    if not isinstance(zone, str):
        raise ScheduleInputError(INVALID_TIME_ZONE, TIME_ZONE_TYPE_MESSAGE)
    date = _local_date(date_text)
    time = _local_time(time_text)
    if date is None or time is None:
        raise ScheduleInputError(INVALID_RULE, LOCAL_AT_SHAPE_MESSAGE)
    year, month, day, real_date = date
    fields = LocalFields(year, month, day, *time)
    if _has_out_of_range_field(fields):
        raise ScheduleInputError(INVALID_RULE, LOCAL_UNREAL_TIME_MESSAGE)
    if not real_date:  # shares the non-local wording on purpose
        raise ScheduleInputError(INVALID_RULE, UNREAL_DATE_TIME_MESSAGE)
    return resolve_local_instant(fields, validate_time_zone(zone))


# The fields of each date and time text parsed (None: not the grammar's), and
# whether the date is a real calendar date; the key each accepted zone name
# names. Many creates name the same day, time of day or zone (a table of one
# zone's transitions, a daily reminder), so each text is read once.
T = TypeVar("T")
_DATES: dict[str, tuple[int, int, int, bool] | None] = {}
_TIMES: dict[str, tuple[int, int, int, int] | None] = {}
_KEYS_BY_NAME: dict[str, str] = {}
_TEXT_CACHE_SIZE: Final = 4096


def _read_once(cache: dict[str, T], text: str, read: Callable[[str], T]) -> T:
    """``read(text)``, each exact ``str`` read once: the cache is emptied when
    full, so no input makes it grow without end. What ``read`` raises is
    raised again on the next read of that text."""
    if type(text) is not str:  # a subclass could hash or compare differently
        return read(text)
    try:
        return cache[text]
    except KeyError:
        pass
    value = read(text)
    if len(cache) >= _TEXT_CACHE_SIZE:
        cache.clear()
    cache[text] = value
    return value


def _local_date(text: str) -> tuple[int, int, int, bool] | None:
    return _read_once(_DATES, text, _read_local_date)


def _read_local_date(text: str) -> tuple[int, int, int, bool] | None:
    match = _LOCAL_DATE.fullmatch(text)
    if match is None:
        return None
    year, month, day = int(match[1]), int(match[2]), int(match[3])
    return year, month, day, is_real_calendar_date(year, month, day)


def _local_time(text: str) -> tuple[int, int, int, int] | None:
    return _read_once(_TIMES, text, _read_local_time)


def _read_local_time(text: str) -> tuple[int, int, int, int] | None:
    match = _LOCAL_TIME.fullmatch(text)
    if match is None:
        return None
    return int(match[1]), int(match[2]), int(match[3]), _milliseconds(match[4])


def _fields(numbers: tuple[str | None, ...], fraction: str | None) -> LocalFields:
    year, month, day, hour, minute, second = (int(text or "0") for text in numbers)
    return LocalFields(year, month, day, hour, minute, second, _milliseconds(fraction))


def _milliseconds(fraction: str | None) -> int:
    # ".5" is 500 ms and ".05" is 50 ms: right-pad the fraction to three digits.
    return int((fraction or "").ljust(3, "0"))


def _has_out_of_range_field(fields: LocalFields) -> bool:
    return fields.year == 0 or fields.hour > 23 or fields.minute > 59 or fields.second > 59


def _require_real_calendar_date(fields: LocalFields) -> None:
    if not is_real_calendar_date(fields.year, fields.month, fields.day):
        raise ScheduleInputError(INVALID_RULE, UNREAL_DATE_TIME_MESSAGE)

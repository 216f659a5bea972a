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
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

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
    if type(value) is str:
        known = _KEYS_BY_NAME.get(value)
        if known is not None:
            return known
    key = None
    if value.isascii() and _ZONE_NAME.fullmatch(value):
        key = _zone_keys_by_folded_name().get(value.casefold())
    if key is None:
        raise ScheduleInputError(INVALID_TIME_ZONE, ZONE_NAME_MESSAGE)
    if type(value) is str:
        if len(_KEYS_BY_NAME) >= _TEXT_CACHE_SIZE:
            _KEYS_BY_NAME.clear()
        _KEYS_BY_NAME[value] = key
    return key


#: The key each accepted zone name named (names are read once, as dates and times).
_KEYS_BY_NAME: dict[str, str] = {}


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
    hour, minute, second, millisecond = time
    if year == 0 or hour > 23 or minute > 59 or second > 59:
        raise ScheduleInputError(INVALID_RULE, LOCAL_UNREAL_TIME_MESSAGE)
    if not real_date:  # shares the non-local wording on purpose
        raise ScheduleInputError(INVALID_RULE, UNREAL_DATE_TIME_MESSAGE)
    fields = LocalFields(year, month, day, hour, minute, second, millisecond)
    return resolve_local_instant(fields, validate_time_zone(zone))


# The fields of each date and time text parsed (None: not the grammar's), and
# whether the date is a real calendar date. Many creates name the same day or
# the same time of day (a table of one zone's transitions, a daily reminder),
# so each text is parsed once; the caches are emptied when full, so no input
# makes them grow without end.
_DATES: dict[str, tuple[int, int, int, bool] | None] = {}
_TIMES: dict[str, tuple[int, int, int, int] | None] = {}
_TEXT_CACHE_SIZE: Final = 4096


def _local_date(text: str) -> tuple[int, int, int, bool] | None:
    if type(text) is str:  # a subclass could hash or compare differently
        try:
            return _DATES[text]
        except KeyError:
            pass
    match = _LOCAL_DATE.fullmatch(text)
    parsed = None
    if match is not None:
        year, month, day = int(match[1]), int(match[2]), int(match[3])
        parsed = (year, month, day, is_real_calendar_date(year, month, day))
    if type(text) is str:
        if len(_DATES) >= _TEXT_CACHE_SIZE:
            _DATES.clear()
        _DATES[text] = parsed
    return parsed


def _local_time(text: str) -> tuple[int, int, int, int] | None:
    if type(text) is str:
        try:
            return _TIMES[text]
        except KeyError:
            pass
    match = _LOCAL_TIME.fullmatch(text)
    parsed = None
    if match is not None:
        # ".5" is 500 ms and ".05" is 50 ms: right-pad the fraction to three digits.
        fraction = int((match[4] or "").ljust(3, "0"))
        parsed = (int(match[1]), int(match[2]), int(match[3]), fraction)
    if type(text) is str:
        if len(_TIMES) >= _TEXT_CACHE_SIZE:
            _TIMES.clear()
        _TIMES[text] = parsed
    return parsed


def _fields(numbers: tuple[str | None, ...], fraction: str | None) -> LocalFields:
    year, month, day, hour, minute, second = (int(text or "0") for text in numbers)
    # ".5" is 500 ms and ".05" is 50 ms: right-pad the fraction to three digits.
    millisecond = int((fraction or "").ljust(3, "0"))
    return LocalFields(year, month, day, hour, minute, second, millisecond)


def _has_out_of_range_field(fields: LocalFields) -> bool:
    return fields.year == 0 or fields.hour > 23 or fields.minute > 59 or fields.second > 59


def _require_real_calendar_date(fields: LocalFields) -> None:
    if not is_real_calendar_date(fields.year, fields.month, fields.day):
        raise ScheduleInputError(INVALID_RULE, UNREAL_DATE_TIME_MESSAGE)

"""Observing what the READMEs state without assuming what they leave open.

A readme-level test may not assume the official build's ``schedule/change``
payload layout, which closed code goes with which rejection, or the field
names of an error value: the READMEs state none of them. What they do state
can still be observed without them:

- the event type ``schedule/change`` and that a create record *contains* its
  ScheduleId, the trimmed prompt and ``scheduledAt``: :func:`mentions` looks
  for a value anywhere in an event's data, whatever the nesting and key names;
- that a rejection uses one of the closed version-1 codes:
  :func:`closed_codes_in` finds every string of a tool value that is one of
  them, wherever the implementation put it;
- that a log an implementation wrote replays: tests write logs through the
  implementation's own tools, never by spelling payloads.

The exact layout, code mapping and field names are pinned details, checked by
compat-level tests (docs/pinned-details.md).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

__all__ = [
    "CLOSED_CODES",
    "NOT_FOUND_CODE",
    "SCHEDULE_CHANGE",
    "closed_codes_in",
    "instant_ms",
    "json_scalars",
    "mentions",
    "schedule_changes",
]

#: The event type the README names for every Schedule state change.
SCHEDULE_CHANGE = "schedule/change"

#: "The closed version-1 domain error codes are ..." (README, Management tools).
CLOSED_CODES: frozenset[str] = frozenset({
    "invalid_prompt", "invalid_selector", "invalid_rule", "invalid_time_zone", "not_future",
    "time_out_of_range", "frequency_too_high", "corrupt_schedule_log", "persistence_uncertain",
    "internal_error",
})

#: The code the README gives an unknown or terminal id: ``{ id, deleted: false,
#: code: "schedule_not_found" }``.
NOT_FOUND_CODE = "schedule_not_found"


def json_scalars(value: Any) -> Iterator[Any]:
    """Every scalar of a JSON value, object keys included, depth first."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            for key, child in item.items():
                yield key
                stack.append(child)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            yield item


def mentions(value: Any, needle: object) -> bool:
    """Whether ``needle`` (a string or a number, never a bool) is a scalar of ``value``."""
    if type(needle) is bool:
        return False
    # The walk of json_scalars, inlined: asked about every event of many logs.
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            for key, child in item.items():
                if key == needle and type(key) is not bool:
                    return True
                stack.append(child)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif item == needle and type(item) is not bool:
            return True
    return False


def closed_codes_in(value: Any) -> set[str]:
    """The closed version-1 codes (and ``schedule_not_found``) among a value's strings."""
    return {
        scalar for scalar in json_scalars(value)
        if isinstance(scalar, str) and (scalar in CLOSED_CODES or scalar == NOT_FOUND_CODE)
    }


def schedule_changes(events: Iterable[Mapping[str, Any]]) -> list[Any]:
    """The data of every ``schedule/change`` event, in log order, layout untouched."""
    return [event["data"] for event in events if event["type"] == SCHEDULE_CHANGE]


# RFC 3339 with a four-digit year, in UTC (Z or +00:00), any fraction width.
_UTC_INSTANT = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})T(?P<time>\d{2}:\d{2}:\d{2})(?:\.(?P<fraction>\d+))?"
    r"(?:Z|\+00:00)",
    re.ASCII,
)
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def instant_ms(text: object) -> int | None:
    """Epoch milliseconds of a four-digit-year RFC 3339 UTC instant in any
    spelling the README allows (any fraction width, ``Z`` or ``+00:00``), else
    None (sub-millisecond digits must be zero: Schedule instants are whole ms)."""
    if not isinstance(text, str):
        return None
    match = _UTC_INSTANT.fullmatch(text)
    if match is None:
        return None
    fraction = (match["fraction"] or "").ljust(3, "0")
    if fraction[3:].strip("0"):
        return None
    try:
        moment = datetime.datetime.fromisoformat(f"{match['date']}T{match['time']}+00:00")
    except ValueError:
        return None
    return (moment - _EPOCH) // datetime.timedelta(milliseconds=1) + int(fraction[:3])

"""Strategies for ``at`` selectors: offset strings with their canonical
instant, malformed strings with their error, and local objects around the DST
transitions of the pinned tzdata (gaps, overlaps, edges)."""

from __future__ import annotations

import functools
import importlib.resources
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from hypothesis import strategies as st

from pytest_dsh.strategies.instants import (
    MAX_INSTANT_MS,
    MIN_INSTANT_MS,
    as_datetime,
    as_epoch_ms,
    iso_instant,
    parse_instant,
)

__all__ = [
    "AT_SHAPE_MESSAGE",
    "DST_SAMPLE_ZONES",
    "GAP_MESSAGE",
    "INVALID_OFFSET_MESSAGE",
    "UNREAL_MESSAGE",
    "AtCase",
    "local_at_near_transitions",
    "malformed_at_strings",
    "offset_at_strings",
]

AT_SHAPE_MESSAGE: Final = (
    "at must use YYYY-MM-DDTHH:mm:ss with optional 1-3 digit fractional seconds and an "
    "explicit Z or numeric offset."
)
UNREAL_MESSAGE: Final = "The at value must be a real ISO calendar date and time."
INVALID_OFFSET_MESSAGE: Final = "The at numeric offset is invalid."
GAP_MESSAGE: Final = "The local at time does not exist in the selected time zone."

#: Zones whose transitions the suite samples by default.
DST_SAMPLE_ZONES: Final = (
    "America/New_York",
    "Europe/London",
    "Europe/Dublin",
    "Australia/Lord_Howe",
    "Pacific/Apia",
    "Asia/Kathmandu",
    "America/Santiago",
    "Antarctica/Troll",
)


# -- at selectors ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AtCase:
    """An ``at`` value and what ``schedule_create`` answers for it: either the
    canonical ``scheduled_at`` or an error ``code`` with its ``message``."""

    at: Any
    scheduled_at: str | None = None
    code: str | None = None
    message: str | None = None
    note: str = ""

    @property
    def expected_error(self) -> dict[str, str] | None:
        if self.code is None:
            return None
        return {"code": self.code, "message": self.message or ""}


def _offset_text(minutes: int) -> str:
    sign = "-" if minutes < 0 else "+"
    hours, mins = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{mins:02d}"


def _fraction_text(millis: int, digits: int) -> str:
    if digits == 0:
        return ""
    return "." + f"{millis:03d}"[:digits]


@st.composite
def offset_at_strings(draw: st.DrawFn, *, after_ms: int, until_ms: int) -> AtCase:
    """Valid offset strings for an instant in ``(after_ms, until_ms]``.

    The offset ranges over ``-23:59 .. +23:59`` (``-00:00`` excluded, ``Z``
    included) and the fraction over 0..3 digits; the local fields stay within
    years 0001..9999.
    """
    digits = draw(st.integers(0, 3))
    step = 10 ** (3 - digits)
    low = max(after_ms + 1, MIN_INSTANT_MS + 86_400_000)
    high = min(until_ms, MAX_INSTANT_MS - 86_400_000)
    instant = draw(st.integers(-(-low // step), high // step)) * step
    use_z = draw(st.booleans())
    # "+00:00" can occur; "-00:00" (the official build refuses it) never does.
    minutes = 0 if use_z else draw(st.integers(-(23 * 60 + 59), 23 * 60 + 59))
    local = as_datetime(instant + minutes * 60_000)
    text = local.strftime("%Y-%m-%dT%H:%M:%S") + _fraction_text(local.microsecond // 1000, digits)
    text += "Z" if use_z else _offset_text(minutes)
    return AtCase(at=text, scheduled_at=iso_instant(instant))


_SHAPE_MUTATIONS: Final[tuple[tuple[str, str], ...]] = (
    (r"(Z|[+-]\d\d:\d\d)$", ""),  # offset-free
    (r"T", "t"),
    (r"T", " "),
    (r"Z$", "z"),
    (r"(\d\d:\d\d:\d\d)(\.\d+)?", r"\1.1234"),
    (r"([+-]\d\d):(\d\d)$", r"\1\2"),
    (r"([+-]\d\d):\d\d$", r"\1"),
    (r"$", "\n"),
    (r"^", " "),
    (r"^(\d)", "\uff12"),
    (r":(\d\d)(\.\d+)?(Z|[+-])", r"\3"),  # drop the seconds
)


@st.composite
def malformed_at_strings(draw: st.DrawFn, *, readme_only: bool = False) -> AtCase:
    """Invalid ``at`` strings with the ``invalid_rule`` message the README's
    grammar, calendar and offset rules produce (checked in that order).

    ``readme_only`` leaves out ``-00:00``: the README's grammar ``±HH:MM``
    admits it and RFC 3339 gives it the UTC instant, so only the official build
    calls it an invalid offset (SCH-NEGATIVE-ZERO-OFFSET)."""
    kind = draw(st.sampled_from(("shape", "calendar", "clock", "offset")))
    base = draw(offset_at_strings(after_ms=0, until_ms=4_102_444_800_000)).at
    if kind == "shape":
        pattern, replacement = draw(st.sampled_from(_SHAPE_MUTATIONS))
        mutated = re.sub(pattern, replacement, base, count=1)
        if mutated == base or re.fullmatch(
            r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?(Z|[+-]\d\d:\d\d)", mutated,
            flags=re.ASCII,
        ):
            mutated = base[:-1] if base.endswith("Z") else base + "x"
        return AtCase(at=mutated, code="invalid_rule", message=AT_SHAPE_MESSAGE, note=kind)
    if kind == "offset":
        offsets = [
            st.builds(lambda h, m: f"+{h:02d}:{m:02d}", st.integers(24, 99), st.integers(0, 59)),
            st.builds(lambda h, m: f"-{h:02d}:{m:02d}", st.integers(0, 23), st.integers(60, 99)),
        ]
        if not readme_only:
            offsets.insert(0, st.just("-00:00"))
        bad = draw(st.one_of(offsets))
        stem = re.sub(r"(Z|[+-]\d\d:\d\d)$", "", base)
        return AtCase(at=stem + bad, code="invalid_rule", message=INVALID_OFFSET_MESSAGE,
                      note=kind)
    year = draw(st.integers(1970, 2100))
    if kind == "calendar":
        month, day = draw(st.one_of(
            st.tuples(st.sampled_from((0, 13, 14, 99)), st.integers(1, 28)),
            st.tuples(st.integers(1, 12), st.sampled_from((0, 32, 99))),
            st.tuples(st.sampled_from((4, 6, 9, 11)), st.just(31)),
            st.tuples(st.just(2), st.integers(30, 31)),
        ))
        if month == 2 and day == 29:  # pragma: no cover - not generated
            day = 30
        text = f"{year:04d}-{month:02d}-{day:02d}T12:00:00Z"
    else:
        hour, minute, second = draw(st.one_of(
            st.tuples(st.integers(24, 99), st.integers(0, 59), st.integers(0, 59)),
            st.tuples(st.integers(0, 23), st.integers(60, 99), st.integers(0, 59)),
            st.tuples(st.integers(0, 23), st.integers(0, 59), st.integers(60, 99)),
        ))
        text = f"{year:04d}-06-15T{hour:02d}:{minute:02d}:{second:02d}Z"
    return AtCase(at=text, code="invalid_rule", message=UNREAL_MESSAGE, note=kind)


# -- local objects around DST transitions ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Transition:
    zone: str
    at_ms: int
    before_ms: int  # UTC offset before the transition
    after_ms: int  # UTC offset after it
    points: tuple[AtCase, ...] = field(default=())


def _parse_offset(text: str) -> int:
    sign = -1 if text.startswith("-") else 1
    parts = [int(part) for part in text[1:].split(":")]
    while len(parts) < 3:
        parts.append(0)
    return sign * ((parts[0] * 60 + parts[1]) * 60 + parts[2]) * 1000


def _local_fields(local_ms: int, *, millis: bool) -> tuple[str, str]:
    moment = as_datetime(local_ms)
    time = moment.strftime("%H:%M:%S")
    if millis or moment.microsecond:
        time += f".{moment.microsecond // 1000:03d}"
    return moment.strftime("%Y-%m-%d"), time


def _table_case(zone: str, point: Mapping[str, Any], note: str) -> AtCase:
    at = {"date": point["date"], "time": point["time"], "time_zone": zone}
    if "scheduledAt" in point:
        return AtCase(at=at, scheduled_at=point["scheduledAt"], note=note)
    return AtCase(at=at, code="invalid_rule", message=GAP_MESSAGE, note=note)


@functools.cache
def _area_lines(area: str) -> tuple[str, ...]:
    # One read per area's tables: the zones of an area share them.
    tables = importlib.resources.files("dsh_fixtures").joinpath("dst", "all-zones")
    lines: list[str] = []
    for entry in tables.iterdir():
        if entry.name.endswith(".jsonl") and entry.name.split("-")[0].split(".")[0] == area:
            lines.extend(entry.read_text("utf-8").splitlines())
    return tuple(lines)


def _zone_rows(zone: str) -> list[dict[str, Any]]:
    """The rows of ``zone``'s tables, in file order. Only lines that can be
    its rows are parsed (an area holds a few hundred zones; the strategy asks
    for a few): a line without an escape holds its zone's name verbatim, and
    every line with one is parsed."""
    quoted = f'"{zone}"'
    candidates = (
        line for line in _area_lines(zone.split("/", 1)[0]) if quoted in line or "\\" in line
    )
    return [row for row in map(json.loads, candidates) if row["zone"] == zone]


@functools.cache
def _transitions(zone: str) -> tuple[_Transition, ...]:
    rows = sorted(_zone_rows(zone), key=lambda row: row["transition"])
    found = []
    for row in rows:
        points = tuple(
            _table_case(zone, row[name], f"{row['kind']}-{name}")
            for name in ("before", "inside", "after")
        )
        if row["offset_before"] == row["offset_after"]:
            continue
        found.append(_Transition(zone, parse_instant(row["transition"]),
                                 _parse_offset(row["offset_before"]),
                                 _parse_offset(row["offset_after"]), points))
    return tuple(found)


def _isolated(transitions: Sequence[_Transition]) -> list[_Transition]:
    """Transitions with no neighbour within three days (their window is exact)."""
    keep = []
    margin = 3 * 86_400_000
    for index, item in enumerate(transitions):
        near = [other for other in transitions[max(0, index - 1): index + 2]
                if other is not item and abs(other.at_ms - item.at_ms) < margin]
        if not near:
            keep.append(item)
    return keep


@st.composite
def _inside_window(draw: st.DrawFn, transition: _Transition) -> AtCase:
    low, high = sorted((transition.before_ms, transition.after_ms))
    offset = draw(st.integers(low, high - 1))  # local = instant + offset, within the window
    local_ms = transition.at_ms + offset
    date, time = _local_fields(local_ms, millis=draw(st.booleans()))
    at = {"date": date, "time": time, "time_zone": transition.zone}
    if transition.after_ms > transition.before_ms:  # clocks jump forward: a gap
        return AtCase(at=at, code="invalid_rule", message=GAP_MESSAGE, note="gap-window")
    # an overlap: the earlier instant is the one read with the earlier (larger) offset
    instant = as_epoch_ms(datetime.fromisoformat(f"{date}T{time}+00:00")) - transition.before_ms
    return AtCase(at=at, scheduled_at=iso_instant(instant), note="overlap-window")


def local_at_near_transitions(
    zones: Iterable[str] = DST_SAMPLE_ZONES,
) -> st.SearchStrategy[AtCase]:
    """Local ``{date, time, time_zone}`` objects at and around the 1970..2037
    offset transitions of ``zones`` in the pinned tzdata, with the expected
    answer: gap times are rejected, overlap times take the earlier instant.

    Cases come from the ``dsh_fixtures`` DST tables (the last millisecond
    before, a time inside, the first time after each transition) and from
    random times inside each gap or overlap window. Run them on a host whose
    wall clock is before 1970 so every target is in the future.
    """
    transitions = [t for zone in zones for t in _transitions(zone)]
    if not transitions:
        raise ValueError("no transitions found for the requested zones")
    table = st.sampled_from(transitions).flatmap(lambda t: st.sampled_from(t.points))
    windows = [t for zone in zones for t in _isolated(_transitions(zone))]
    if not windows:
        return table
    return st.one_of(table, st.sampled_from(windows).flatmap(_inside_window))


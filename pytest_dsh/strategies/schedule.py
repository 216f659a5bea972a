"""Hypothesis strategies for dsh-schedule, for this suite and for implementers.

Every strategy yields inputs *together with the answer the README expects*, so
a property test needs no oracle beyond the strategy itself:

* tool arguments: :func:`create_arguments` (valid, one selector) and
  :func:`invalid_create_arguments` (pre-queue failures with their closed value);
* ``at`` selectors: :func:`offset_at_strings` (valid offset strings and their
  canonical UTC instant), :func:`malformed_at_strings` (grammar, calendar and
  offset errors) and :func:`local_at_near_transitions` (local objects around
  the DST transitions of the pinned tzdata zones: gaps, overlaps and edges);
* event logs: :func:`schedule_logs` (valid ``schedule/change`` sequences and
  their fold) and :func:`corrupt_schedule_logs` (a valid log plus one change
  that breaks the replay policy).

Expected values are derived from first principles (the README's arithmetic,
the pinned ``tzdata`` tables shipped in ``dsh_fixtures``), never from an
implementation. Times are integer epoch milliseconds; ``iso_instant`` renders
the canonical ``YYYY-MM-DDTHH:mm:ss.sssZ`` form.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from hypothesis import strategies as st

__all__ = [
    "AMBIGUOUS_EDGES",
    "AT_SHAPE_MESSAGE",
    "DST_SAMPLE_ZONES",
    "GAP_MESSAGE",
    "INVALID_OFFSET_MESSAGE",
    "JS_WHITESPACE",
    "MAX_INSTANT_MS",
    "MIN_INSTANT_MS",
    "UNREAL_MESSAGE",
    "AtCase",
    "CorruptLog",
    "ScheduleLog",
    "blank_prompts",
    "corrupt_schedule_logs",
    "create_arguments",
    "invalid_create_arguments",
    "iso_instant",
    "js_trim",
    "local_at_near_transitions",
    "malformed_at_strings",
    "offset_at_strings",
    "prompts",
    "schedule_logs",
]

#: ECMAScript ``String.prototype.trim`` whitespace: what "trimmed" means for
#: prompts and ids (U+FEFF is included, U+0085 and U+001C..U+001F are not).
JS_WHITESPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
MIN_INSTANT_MS: Final = -62_135_596_800_000  # 0001-01-01T00:00:00.000Z
MAX_INSTANT_MS: Final = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z

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

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_MAX_SAFE: Final = 2**53 - 1


def js_trim(text: str) -> str:
    """``text.trim()`` as ECMAScript defines it."""
    return text.strip(JS_WHITESPACE)


def iso_instant(epoch_ms: int) -> str:
    """The canonical four-digit-year UTC form of ``epoch_ms`` (years 1..9999)."""
    moment = _EPOCH + timedelta(milliseconds=epoch_ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _wall(epoch_ms: int) -> datetime:
    return _EPOCH + timedelta(milliseconds=epoch_ms)


def _ms(moment: datetime) -> int:
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


# -- prompts ------------------------------------------------------------------------------


#: Characters that Unicode or Python call whitespace but ECMAScript does not
#: trim. Generated prompts never start or end with them, so no property depends
#: on that difference (the README says only "trimmed").
AMBIGUOUS_EDGES: Final = "\x1c\x1d\x1e\x1f\x85\u180e"


def _clean_edges(text: str) -> bool:
    core = js_trim(text)
    return core != "" and core[0] not in AMBIGUOUS_EDGES and core[-1] not in AMBIGUOUS_EDGES


def prompts(*, max_size: int = 40) -> st.SearchStrategy[str]:
    """Prompts that stay non-empty after JS trimming (possibly padded)."""
    padding = st.text(alphabet=JS_WHITESPACE, max_size=3)
    core = st.text(
        alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]),
        min_size=1,
        max_size=max_size,
    ).filter(_clean_edges)
    return st.tuples(padding, core, padding).map("".join)


def blank_prompts() -> st.SearchStrategy[str]:
    """Prompts that are empty after JS trimming."""
    return st.text(alphabet=JS_WHITESPACE, max_size=6)


# -- tool arguments ---------------------------------------------------------------------


def create_arguments(*, now_ms: int) -> st.SearchStrategy[dict[str, Any]]:
    """Valid ``schedule_create`` arguments with exactly one selector and a
    target within a year of ``now_ms``."""
    after = st.builds(
        lambda prompt, seconds: {"prompt": prompt, "after_seconds": seconds},
        prompts(),
        st.integers(1, 365 * 86_400),
    )
    every = st.builds(
        lambda prompt, seconds: {"prompt": prompt, "every_seconds": seconds},
        prompts(),
        st.integers(300, 365 * 86_400),
    )
    at = st.builds(
        lambda prompt, case: {"prompt": prompt, "at": case.at},
        prompts(),
        offset_at_strings(after_ms=now_ms, until_ms=now_ms + 365 * 86_400_000),
    )
    return st.one_of(after, every, at)


_SELECTOR_ERROR: Final = {
    "code": "invalid_selector",
    "message": "schedule_create accepts exactly one of after_seconds, at, or every_seconds.",
}
_PROMPT_ERROR: Final = {
    "code": "invalid_prompt",
    "message": "prompt must be non-empty after trimming.",
}
_AFTER_ERROR: Final = {
    "code": "invalid_rule",
    "message": "after_seconds must be a positive safe integer.",
}
_EVERY_ERROR: Final = {"code": "invalid_rule", "message": "every_seconds must be a safe integer."}
_FREQUENCY_ERROR: Final = {
    "code": "frequency_too_high",
    "message": "every_seconds must be at least 300.",
}

_SELECTORS: Final = {
    "after_seconds": st.integers(1, 86_400),
    "every_seconds": st.integers(300, 86_400),
    "at": st.just("2030-01-01T00:00:00Z"),
}


@st.composite
def _selector_errors(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, str]]:
    prompt = draw(st.one_of(prompts(), blank_prompts()))
    names = draw(
        st.one_of(
            st.just(()),
            st.lists(st.sampled_from(sorted(_SELECTORS)), min_size=2, max_size=3, unique=True),
            st.lists(st.sampled_from(sorted(_SELECTORS)), min_size=1, max_size=1),
        )
    )
    arguments: dict[str, Any] = {"prompt": prompt}
    for name in names:
        arguments[name] = draw(_SELECTORS[name])
    if len(names) == 1:  # one selector: make it wrong with an unknown key instead
        extra = draw(
            st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12).filter(
                lambda key: key not in {"prompt", *_SELECTORS}
            )
        )
        arguments[extra] = draw(st.one_of(st.integers(), st.text(max_size=5), st.none()))
    return arguments, dict(_SELECTOR_ERROR)


def _non_safe_positive() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.integers(max_value=0),
        st.integers(min_value=_MAX_SAFE + 1, max_value=2**64),
        # -0.0 is left out: some hosts refuse it as an argument error.
        st.floats(allow_nan=False, allow_infinity=False).filter(
            lambda x: x != 0 and (not x.is_integer() or x < 0 or x > _MAX_SAFE)
        ),
    )


def _non_safe_integer() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.integers(min_value=_MAX_SAFE + 1, max_value=2**64),
        st.integers(max_value=-_MAX_SAFE - 1, min_value=-(2**64)),
        st.floats(allow_nan=False, allow_infinity=False).filter(
            lambda x: not x.is_integer() or abs(x) > _MAX_SAFE
        ),
    )


def invalid_create_arguments() -> st.SearchStrategy[tuple[dict[str, Any], dict[str, str]]]:
    """``(arguments, value)`` pairs for failures that need neither a flush nor
    the clock: invalid selector sets, blank prompts, malformed numbers.

    The arguments always pass the catalog's argument schema, so the value is a
    closed Schedule error, never a host error.
    """
    blank = st.builds(
        lambda prompt, seconds: ({"prompt": prompt, "after_seconds": seconds},
                                 dict(_PROMPT_ERROR)),
        blank_prompts(),
        st.integers(1, 86_400),
    )
    after = st.builds(
        lambda prompt, seconds: ({"prompt": prompt, "after_seconds": seconds},
                                 dict(_AFTER_ERROR)),
        prompts(),
        _non_safe_positive(),
    )
    every_rule = st.builds(
        lambda prompt, seconds: ({"prompt": prompt, "every_seconds": seconds},
                                 dict(_EVERY_ERROR)),
        prompts(),
        _non_safe_integer(),
    )
    frequency = st.builds(
        lambda prompt, seconds: ({"prompt": prompt, "every_seconds": seconds},
                                 dict(_FREQUENCY_ERROR)),
        prompts(),
        st.integers(-_MAX_SAFE, 299),
    )
    return st.one_of(_selector_errors(), blank, after, every_rule, frequency)


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
    # "+00:00" can occur; "-00:00" (an invalid offset) never does.
    minutes = 0 if use_z else draw(st.integers(-(23 * 60 + 59), 23 * 60 + 59))
    local = _wall(instant + minutes * 60_000)
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
def malformed_at_strings(draw: st.DrawFn) -> AtCase:
    """Invalid ``at`` strings with the ``invalid_rule`` message the README's
    grammar, calendar and offset rules produce (checked in that order)."""
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
        bad = draw(st.one_of(
            st.just("-00:00"),
            st.builds(lambda h, m: f"+{h:02d}:{m:02d}", st.integers(24, 99), st.integers(0, 59)),
            st.builds(lambda h, m: f"-{h:02d}:{m:02d}", st.integers(0, 23), st.integers(60, 99)),
        ))
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


def _parse_instant(text: str) -> int:
    return _ms(datetime.fromisoformat(text.replace("Z", "+00:00")))


def _local_fields(local_ms: int, *, millis: bool) -> tuple[str, str]:
    moment = _wall(local_ms)
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
def _transitions(zone: str) -> tuple[_Transition, ...]:
    area = zone.split("/", 1)[0]
    tables = importlib.resources.files("dsh_fixtures").joinpath("dst", "all-zones")
    rows: list[dict[str, Any]] = []
    for entry in tables.iterdir():
        if entry.name.endswith(".jsonl") and entry.name.split("-")[0].split(".")[0] == area:
            rows.extend(
                row for row in map(json.loads, entry.read_text("utf-8").splitlines())
                if row["zone"] == zone
            )
    rows.sort(key=lambda row: row["transition"])
    found = []
    for row in rows:
        points = tuple(
            _table_case(zone, row[name], f"{row['kind']}-{name}")
            for name in ("before", "inside", "after")
        )
        if row["offset_before"] == row["offset_after"]:
            continue
        found.append(_Transition(zone, _parse_instant(row["transition"]),
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
    instant = _ms(datetime.fromisoformat(f"{date}T{time}+00:00")) - transition.before_ms
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


# -- event logs ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScheduleLog:
    """A valid sequence of ``schedule/change`` payloads and its fold: the active
    records in creation order (``scheduledAt`` already advanced) and every id
    the log ever created."""

    changes: tuple[dict[str, Any], ...]
    active: tuple[dict[str, Any], ...]
    seen_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CorruptLog:
    """A log whose replay must fail, and the rule the last change breaks."""

    changes: tuple[dict[str, Any], ...]
    rule: str


def _record(draw: st.DrawFn, schedule_id: str, kind: str, target_ms: int) -> dict[str, Any]:
    prompt = js_trim(draw(prompts(max_size=12)))
    scheduled_at = iso_instant(target_ms)
    if kind == "after":
        seconds = draw(st.integers(1, 10**7))
        return {"id": schedule_id, "kind": "after", "prompt": prompt, "afterSeconds": seconds,
                "scheduledAt": scheduled_at}
    if kind == "every":
        seconds = draw(st.integers(300, 10**6))
        return {"id": schedule_id, "kind": "every", "prompt": prompt, "everySeconds": seconds,
                "scheduledAt": scheduled_at}
    return {"id": schedule_id, "kind": "at", "prompt": prompt, "scheduledAt": scheduled_at}


def _next_target(record: Mapping[str, Any], accepted_ms: int) -> int:
    target = _parse_instant(record["scheduledAt"])
    interval = int(record["everySeconds"]) * 1000
    return target + ((accepted_ms - target) // interval + 1) * interval


@st.composite
def schedule_logs(
    draw: st.DrawFn,
    *,
    start_ms: int = 1_767_225_600_000,
    max_changes: int = 12,
) -> ScheduleLog:
    """Valid logs: creates with ids ``schedule-N``, deletes and dispatches of
    active records, Every dispatches at or after the record's target.

    Targets lie in the year after ``start_ms``; open the host before
    ``start_ms`` when no record may be due yet.
    """
    active: dict[str, dict[str, Any]] = {}
    seen: list[str] = []
    written: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, max_changes))):
        choices = ["create"] + (["delete", "dispatch"] if active else [])
        operation = draw(st.sampled_from(choices))
        if operation == "create":
            schedule_id = f"schedule-{len(seen) + 1}"
            kind = draw(st.sampled_from(("after", "at", "every")))
            target = start_ms + draw(st.integers(1, 365 * 86_400)) * 1000
            record = _record(draw, schedule_id, kind, target)
            seen.append(schedule_id)
            active[schedule_id] = record
            written.append({"version": 1, "operation": "create", "schedule": record})
            continue
        schedule_id = draw(st.sampled_from(sorted(active)))
        record = active[schedule_id]
        if operation == "delete":
            del active[schedule_id]
            written.append({"version": 1, "operation": "delete", "id": schedule_id})
        elif record["kind"] != "every":
            del active[schedule_id]
            written.append({"version": 1, "operation": "dispatch", "id": schedule_id})
        else:
            target = _parse_instant(record["scheduledAt"])
            accepted = target + draw(st.integers(0, 10 * record["everySeconds"] * 1000))
            written.append({"version": 1, "operation": "dispatch", "id": schedule_id,
                            "acceptedAt": iso_instant(accepted)})
            active[schedule_id] = {**record,
                                   "scheduledAt": iso_instant(_next_target(record, accepted))}
    return ScheduleLog(tuple(written), tuple(active.values()), tuple(seen))


def _breaking_changes(log: ScheduleLog) -> list[tuple[str, dict[str, Any]]]:
    far = "2027-06-01T00:00:00.000Z"
    active = {record["id"]: record for record in log.active}
    inactive = [sid for sid in log.seen_ids if sid not in active]
    options: list[tuple[str, dict[str, Any]]] = [
        ("unknown version", {"version": 2, "operation": "delete", "id": "schedule-1"}),
        ("unknown operation", {"version": 1, "operation": "update", "id": "schedule-1"}),
        ("delete of an unknown id", {"version": 1, "operation": "delete", "id": "schedule-0"}),
        ("dispatch of an unknown id", {"version": 1, "operation": "dispatch", "id": "nope"}),
        ("extra field", {"version": 1, "operation": "create", "note": "x",
                         "schedule": {"id": "fresh", "kind": "at", "prompt": "p",
                                      "scheduledAt": far}}),
        ("non-canonical scheduledAt", {"version": 1, "operation": "create",
                                       "schedule": {"id": "fresh", "kind": "at", "prompt": "p",
                                                    "scheduledAt": "2027-06-01T00:00:00Z"}}),
        ("untrimmed prompt", {"version": 1, "operation": "create",
                              "schedule": {"id": "fresh", "kind": "at", "prompt": "p\ufeff",
                                           "scheduledAt": far}}),
    ]
    for sid in log.seen_ids:
        options.append(("reused id", {"version": 1, "operation": "create",
                                      "schedule": {"id": sid, "kind": "at", "prompt": "again",
                                                   "scheduledAt": far}}))
    for sid in inactive:
        options.append(("delete of an inactive id", {"version": 1, "operation": "delete",
                                                     "id": sid}))
        options.append(("dispatch of an inactive id", {"version": 1, "operation": "dispatch",
                                                       "id": sid}))
    for sid, record in active.items():
        if record["kind"] == "every":
            options.append(("every dispatch without acceptedAt",
                            {"version": 1, "operation": "dispatch", "id": sid}))
            early = iso_instant(_parse_instant(record["scheduledAt"]) - 1)
            options.append(("every dispatch before its target",
                            {"version": 1, "operation": "dispatch", "id": sid,
                             "acceptedAt": early}))
        else:
            options.append(("one-shot dispatch with acceptedAt",
                            {"version": 1, "operation": "dispatch", "id": sid,
                             "acceptedAt": record["scheduledAt"]}))
        options.append(("delete with an extra field",
                        {"version": 1, "operation": "delete", "id": sid, "why": "x"}))
    return options


@st.composite
def corrupt_schedule_logs(draw: st.DrawFn, *, start_ms: int = 1_767_225_600_000) -> CorruptLog:
    """A valid log followed by one change the replay policy rejects (unknown
    version or operation, extra fields, reused ids, mismatched dispatch shapes,
    transitions against inactive records, malformed records)."""
    log = draw(schedule_logs(start_ms=start_ms, max_changes=8))
    rule, change = draw(st.sampled_from(_breaking_changes(log)))
    return CorruptLog((*log.changes, change), rule)

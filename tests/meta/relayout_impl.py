"""The reference, changed in everything the READMEs leave open and in nothing they state.

Importing this module patches the reference in this process only (the
reference files are never edited); ``IMPLEMENTATION`` is then a README-
conforming build whose every pinned detail differs from the official build.
The readme level of the suite must accept it; the compat level must not.

What changes, and the judgement behind each change:

dsh-schedule, durable payloads (pin SCH-PAYLOAD-LAYOUT, SCH-PAYLOAD-KEY-ORDER)
  The README names the event type ``schedule/change``, a "strict version-1
  create, delete, and dispatch union", and what a record contains. It names
  ``scheduledAt``, ``afterSeconds``, ``everySeconds`` and ``acceptedAt`` as
  stored fields ("stores afterSeconds", "adds acceptedAt"), so the variant keeps
  those four keys. Everything else is its own: the version marker is the string
  ``"schema": "schedule.v1"`` (a version notion is kept: "Replay rejects unknown
  versions"), the operation is ``"change": "created" | "removed" | "fired"``,
  the record is flat (no nested object), the id is stored as ``scheduleId``
  ("ScheduleId" is a type name, not a field), the prompt as ``text``, and there
  is no ``kind``: the kind follows from which interval key is present.
  Key order differs too. Replay and the ``./invariant`` companion apply the
  README's policy (unknown versions, extra fields, reused ids, dispatch
  shapes, inactive targets) to this layout, and reject the official layout
  (pin SCH-LOG-INTEROP): a log is read in the layout its writer chose.

dsh-schedule, tool values (pins SCH-VIEW-FIELDS, SCH-VALUE-KEY-ORDER,
SCH-ERROR-VALUE-SHAPE, SCH-ERROR-MESSAGES, SCH-AT-MESSAGES)
  Views keep ``state`` and ``deliveryMode`` (stated, with their values) and the
  camelCase record fields ``scheduledAt``, ``afterSeconds``, ``everySeconds``.
  They keep ``id``: the only value whose fields the README spells,
  ``{ id, deleted: false, code: "schedule_not_found" }``, names a ScheduleId
  ``id``. The prompt is ``text``; there is no ``kind``; keys come in another
  order. The not-found delete value is kept exactly as the README writes it;
  a successful delete is ``{deleted: true, id}``. Error values are
  ``{error, reason}`` (the README names the codes, not the field that carries
  them), with ``during`` and ``target`` for persistence_uncertain, and every
  message is reworded (still stable, never an exception's text).

dsh-schedule, closed codes (pin SCH-CODE-MAPPING)
  The README names the closed list and maps three outcomes: schedule_not_found
  for an unknown or terminal delete, persistence_uncertain for a missing,
  rejected or detached persistence path. Those are kept. A code whose name is
  the rejected class itself is kept too (invalid_prompt for a blank prompt,
  not_future, time_out_of_range, frequency_too_high for a positive interval
  below 300, invalid_time_zone for an unknown zone name, corrupt_schedule_log,
  internal_error). Every other class gets another code from the closed list:
  see ``_CODES``.

dsh-schedule, other open details
  Ids are ``r-<n>`` (SCH-ID-FORMAT). The tools are registered in the reverse
  order, schedule_delete first (SCH-TOOL-ORDER). A call whose signal is aborted before its
  turn is not answered differently: it runs like any other call (SCH-ABORT-
  ANSWER; no README sentence mentions aborted calls). Tool output schemas
  describe these values, as "the generated tool catalog owns the argument and
  output schemas" requires.

dsh-schedule, instants and reminders (pins SCH-INSTANT-TEXT, SCH-REMINDER-SOURCE)
  The README asks for four-digit-year RFC 3339 UTC instants, not a fraction
  width: the variant writes whole seconds without a fraction
  (``2026-01-01T00:01:00Z``) and other instants with six fraction digits
  (``2026-01-01T00:01:00.500000Z``), in its payloads, its values and the
  framings' ``occurrence_at`` (the framing templates stay the README's text).
  Reminder follow-ups carry the source ``{kind: plugin, plugin: reminders}``:
  the README gives the framing, not the message's source tag.

dsh-time-context (pins TC-TIMESTAMP-TEXT, TC-DURATION-TEXT, TC-LOAD-MESSAGES,
TC-LOAD-CHECK-ORDER, TC-INVARIANT-DIAGNOSTICS, TC-ZONE-LOOKUP-FAILURE)
  The two line templates are the README's literal text and stay. The
  timestamp stays ISO-shaped local time to the second with its numeric offset
  (``+00:00`` for zero: "a numeric offset") and carries the IANA zone, but as
  ``2026-01-01T08:00:00+08:00 (Asia/Shanghai)``. Durations stay compact
  whole-second units but are spelled without spaces or days, ``0s``, ``59s``,
  ``1m0s``, ``1h0m0s``, ``25h1m1s``. Configuration errors have other messages
  and ``timeZone`` is checked before ``refreshIntervalMs``. The invariant
  companion reads this spelling and has its own diagnostics.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from remapped_ids_impl import allocate_remapped_id_after

import dsh_reference.schedule.core.fold as fold
import dsh_reference.schedule.core.tool_arguments as tool_arguments
import dsh_reference.schedule.owner as owner
import dsh_reference.schedule.tools as tools
import dsh_reference.time_context.core.baselines as baselines
import dsh_reference.time_context.core.config as tc_config
import dsh_reference.time_context.core.invariant as tc_invariant
import dsh_reference.time_context.core.preparation as preparation
import dsh_reference.time_context.plugin as tc_plugin
from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from dsh_reference.schedule.core import (
    AFTER_SECONDS_MESSAGE,
    AT_SELECTOR_TYPE_MESSAGE,
    AT_STRING_SHAPE_MESSAGE,
    DELETE_ID_MESSAGE,
    ERROR_CODES,
    EVERY_FREQUENCY_MESSAGE,
    EVERY_SECONDS_MESSAGE,
    INVALID_OFFSET_MESSAGE,
    LOCAL_AT_KEYS_MESSAGE,
    LOCAL_AT_SHAPE_MESSAGE,
    LOCAL_AT_TYPES_MESSAGE,
    LOCAL_TIME_GAP_MESSAGE,
    LOCAL_UNREAL_TIME_MESSAGE,
    NOT_FUTURE_MESSAGE,
    PROMPT_MESSAGE,
    SELECTOR_MESSAGE,
    TIME_OUT_OF_RANGE_MESSAGE,
    TIME_ZONE_TYPE_MESSAGE,
    UNREAL_DATE_TIME_MESSAGE,
    ZONE_NAME_MESSAGE,
    ScheduleChange,
    ScheduleInputError,
    ScheduleLogError,
    ScheduleRecord,
    decode_schedule_change_instant,
    schedule_state,
)
from dsh_reference.time_context.core import (
    TimeContextConfigError,
    TimeContextSettings,
    canonical_zone_key,
    is_safe_integer,
)

__all__ = [
    "IMPLEMENTATION",
    "SCHEMA",
    "decode_change",
    "encode_change",
    "format_duration",
    "format_timestamp",
    "spell_instant",
    "variant_code",
]

# -- instants ----------------------------------------------------------------------

_VARIANT_INSTANT: Final = re.compile(
    r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{3})000)?Z", re.ASCII)


def spell_instant(canonical: str) -> str:
    """The variant's spelling of a reference (``.sssZ``) instant: no fraction
    for a whole second, else six fraction digits."""
    whole, _, rest = canonical.partition(".")
    millis = rest[:3]
    return f"{whole}Z" if millis == "000" else f"{whole}.{millis}000Z"


def canonical_instant(value: object) -> str:
    """The reference spelling of an instant in the variant's spelling (a log's
    instants are read in the spelling their writer chose)."""
    match = _VARIANT_INSTANT.fullmatch(value) if isinstance(value, str) else None
    if match is None or match[2] == "000":
        raise ScheduleLogError("schedule change instant is not in the schedule.v1 spelling")
    return f"{match[1]}.{match[2] or '000'}Z"


# -- schedule/change layout ---------------------------------------------------------

SCHEMA: Final = "schedule.v1"
_CREATED, _REMOVED, _FIRED = "created", "removed", "fired"
_BASE: Final = frozenset({"schema", "change", "scheduleId"})
_RECORD: Final = _BASE | {"text", "scheduledAt"}


def encode_change(change: ScheduleChange) -> dict[str, Any]:
    """The variant's payload for a canonical (reference) change."""
    if change["operation"] == "create":
        record: Mapping[str, Any] = change["schedule"]  # type: ignore[typeddict-item]
        payload: dict[str, Any] = {"scheduledAt": spell_instant(record["scheduledAt"]),
                                   "text": record["prompt"]}
        for key in ("afterSeconds", "everySeconds"):
            if key in record:
                payload[key] = record[key]
        return {**payload, "scheduleId": record["id"], "change": _CREATED, "schema": SCHEMA}
    operation = _REMOVED if change["operation"] == "delete" else _FIRED
    payload = {"change": operation, "scheduleId": change["id"], "schema": SCHEMA}  # type: ignore[typeddict-item]
    if "acceptedAt" in change:
        payload["acceptedAt"] = spell_instant(change["acceptedAt"])
    return payload


def _canonical(value: object) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ScheduleLogError("schedule change is not a JSON object")
    if value.get("schema") != SCHEMA:
        raise ScheduleLogError(f"unsupported schedule schema (expected {SCHEMA})")
    keys = set(value.keys())
    change = value.get("change")
    if change == _CREATED:
        intervals = keys & {"afterSeconds", "everySeconds"}
        if not keys >= _RECORD or keys - _RECORD - intervals or len(intervals) > 1:
            raise ScheduleLogError("created change has missing or unexpected fields")
        kind = "after" if "afterSeconds" in keys else "every" if "everySeconds" in keys else "at"
        record: dict[str, Any] = {"id": value["scheduleId"], "kind": kind, "prompt": value["text"]}
        for key in intervals:
            record[key] = value[key]
        record["scheduledAt"] = canonical_instant(value["scheduledAt"])
        return {"version": 1, "operation": "create", "schedule": record}
    if change in (_REMOVED, _FIRED):
        allowed = _BASE | ({"acceptedAt"} if change == _FIRED else set())
        if not keys >= _BASE or keys - allowed:
            raise ScheduleLogError(f"{change} change has missing or unexpected fields")
        canonical = {
            "version": 1,
            "operation": "delete" if change == _REMOVED else "dispatch",
            "id": value["scheduleId"],
        }
        if "acceptedAt" in keys:
            canonical["acceptedAt"] = canonical_instant(value["acceptedAt"])
        return canonical
    raise ScheduleLogError("schedule change must be created, removed or fired")


def decode_change(value: object) -> tuple[ScheduleChange, int | None]:
    """The variant's strict reader: its own layout, then the reference's field rules."""
    return decode_schedule_change_instant(_canonical(value))


# -- tool values ------------------------------------------------------------------

_REASONS: Final = {
    "internal_error": "Schedule could not complete this call.",
    "corrupt_schedule_log": "The reminders of this session cannot be read from its log.",
    "persistence_uncertain": "Whether the session log is saved is unknown; list again first.",
}
_EVERY_NOT_POSITIVE: Final = "every_seconds must be positive."

#: reference message -> (variant code, variant message)
_CODES: Final[dict[str, tuple[str, str]]] = {
    SELECTOR_MESSAGE: ("invalid_rule", "Give exactly one of after_seconds, at or every_seconds."),
    PROMPT_MESSAGE: ("invalid_prompt", "The prompt is blank."),
    AFTER_SECONDS_MESSAGE: ("invalid_selector", "after_seconds is not a positive safe integer."),
    EVERY_SECONDS_MESSAGE: ("invalid_selector", "every_seconds is not a safe integer."),
    _EVERY_NOT_POSITIVE: ("invalid_rule", "every_seconds is not positive."),
    EVERY_FREQUENCY_MESSAGE: ("frequency_too_high", "every_seconds is below 300."),
    DELETE_ID_MESSAGE: ("invalid_selector", "The id is empty or padded with whitespace."),
    AT_STRING_SHAPE_MESSAGE: ("invalid_selector", "The at string is not an offset date-time."),
    UNREAL_DATE_TIME_MESSAGE: ("invalid_selector", "The at date or time does not exist."),
    INVALID_OFFSET_MESSAGE: ("invalid_selector", "The at offset is out of range."),
    LOCAL_AT_KEYS_MESSAGE: ("invalid_selector", "A local at has date, time and time_zone only."),
    LOCAL_AT_TYPES_MESSAGE: ("invalid_selector", "A local at date and time are strings."),
    LOCAL_AT_SHAPE_MESSAGE: ("invalid_selector", "The local at date or time is malformed."),
    LOCAL_UNREAL_TIME_MESSAGE: ("invalid_selector", "The local at date or time does not exist."),
    AT_SELECTOR_TYPE_MESSAGE: ("invalid_selector", "at is neither a string nor a local object."),
    TIME_ZONE_TYPE_MESSAGE: ("invalid_selector", "time_zone is not a string."),
    ZONE_NAME_MESSAGE: ("invalid_time_zone", "time_zone names no known zone."),
    LOCAL_TIME_GAP_MESSAGE: ("time_out_of_range", "That local time is skipped by the zone."),
    NOT_FUTURE_MESSAGE: ("not_future", "The target has already passed."),
    TIME_OUT_OF_RANGE_MESSAGE: ("time_out_of_range", "The target is outside the supported range."),
}


def variant_code(code: str, message: str) -> tuple[str, str]:
    """The variant's code and message for a rejection the reference gives ``code, message``."""
    return _CODES.get(message, (code, f"Rejected: {message}"))


def _error(code: str, message: str) -> dict[str, Any]:
    code, reason = variant_code(code, message)
    return {"error": code, "reason": reason}


def _fixed_error(code: str) -> Callable[[], dict[str, Any]]:
    return lambda: {"error": code, "reason": _REASONS[code]}


def _persistence_uncertain(operation: str, schedule_id: str | None = None) -> dict[str, Any]:
    value: dict[str, Any] = {
        "error": "persistence_uncertain", "reason": _REASONS["persistence_uncertain"],
        "during": operation,
    }
    if schedule_id is not None:
        value["target"] = schedule_id
    return value


def _delete_value(schedule_id: str, *, deleted: bool) -> dict[str, Any]:
    if deleted:
        return {"deleted": True, "id": schedule_id}
    return {"id": schedule_id, "deleted": False, "code": "schedule_not_found"}


def _view(record: ScheduleRecord, now: int) -> dict[str, Any]:
    view: dict[str, Any] = {"scheduledAt": spell_instant(record["scheduledAt"]), "id": record["id"],
                            "text": record["prompt"]}
    for key in ("afterSeconds", "everySeconds"):
        if key in record:
            view[key] = record[key]  # type: ignore[literal-required]
    return {**view, "deliveryMode": "session-local", "state": schedule_state(record, now)}


def _closed(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False,
            "properties": properties, "required": required}


_VIEW_SCHEMA: Final = _closed(
    {"scheduledAt": {"type": "string"}, "id": {"type": "string"}, "text": {"type": "string"},
     "afterSeconds": {"type": "integer"}, "everySeconds": {"type": "integer"},
     "deliveryMode": {"const": "session-local"}, "state": {"enum": ["scheduled", "overdue"]}},
    ["scheduledAt", "id", "text", "deliveryMode", "state"],
)
_ERROR_SCHEMA: Final = _closed(
    {"error": {"enum": list(ERROR_CODES)}, "reason": {"type": "string"},
     "during": {"enum": ["create", "list", "delete"]}, "target": {"type": "string"}},
    ["error", "reason"],
)
_OUTPUTS: Final = {
    "schedule_create": {"anyOf": [_VIEW_SCHEMA, _ERROR_SCHEMA]},
    "schedule_list": {"anyOf": [{"type": "array", "items": _VIEW_SCHEMA}, _ERROR_SCHEMA]},
    "schedule_delete": {"anyOf": [
        _closed({"deleted": {"const": True}, "id": {"type": "string"}}, ["deleted", "id"]),
        _closed({"id": {"type": "string"}, "deleted": {"const": False},
                 "code": {"const": "schedule_not_found"}}, ["id", "deleted", "code"]),
        _ERROR_SCHEMA,
    ]},
}

_reference_tool_definitions = tools.tool_definitions
_reference_checked_every_seconds = tool_arguments.checked_every_seconds


def _tool_definitions() -> Any:
    # Registered in reverse order (SCH-TOOL-ORDER): the README names the tools, not an order.
    return tuple(
        dataclasses.replace(definition, output_schema=copy.deepcopy(_OUTPUTS[definition.name]))
        for definition in reversed(_reference_tool_definitions())
    )


def _checked_every_seconds(every_seconds: object) -> int:
    if is_safe_integer(every_seconds) and every_seconds <= 0:
        raise ScheduleInputError("invalid_rule", _EVERY_NOT_POSITIVE)
    return _reference_checked_every_seconds(every_seconds)


# -- reminders ----------------------------------------------------------------------

_REMINDER_SOURCE: Final = {"kind": "plugin", "plugin": "reminders"}
_reference_reminder_framing = owner.render_reminder_framing
_reference_batch_framing = owner.render_every_batch_framing


def _reminder_framing(record: Any) -> str:
    # The README's template; only the occurrence's spelling is the variant's.
    return _reference_reminder_framing(
        {**record, "scheduledAt": spell_instant(record["scheduledAt"])})


def _batch_framing(reminders: Any) -> str:
    return _reference_batch_framing([
        dataclasses.replace(reminder, occurrence_at=spell_instant(reminder.occurrence_at))
        for reminder in reminders
    ])


# -- time-context ---------------------------------------------------------------------

_reference_format_timestamp = preparation.format_timestamp


def format_timestamp(epoch_ms: int, zone: Any, label: str) -> str:
    """``2026-01-01T08:00:00+08:00 (Asia/Shanghai)``: the zone in parentheses."""
    text = _reference_format_timestamp(epoch_ms, zone, label)
    return text.replace("[", " (").replace("]", ")")


def format_duration(elapsed_ms: int) -> str:
    """``0s``, ``59s``, ``1m0s``, ``1h0m0s``, ``25h1m1s``: no spaces, no days."""
    seconds = max(elapsed_ms, 0) // 1000
    hours, rest = divmod(seconds, 3_600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{seconds}s"
    return f"{minutes}m{seconds}s" if minutes else f"{seconds}s"


_READING_FORMAT: Final = re.compile(
    r"Time sampled while preparing turn (\d+), step (\d+): "
    r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:\d{2})) \([^)]+\)\n"
    r"Elapsed since the preceding (model-visible message|step context): "
    r"(?:unavailable|(?:\d+h)?(?:\d+m)?\d+s)\.",
    re.ASCII,
)


def _zone_message(value: object) -> str:
    return f"time-context config: timeZone {value!r} is not an IANA zone"


def _interval_message(value: object) -> str:
    return f"time-context config: refreshIntervalMs {value!r} is not a non-negative safe integer"


def _parse_config(
    config: Mapping[str, object], *, process_zone: Callable[[], str]
) -> TimeContextSettings:
    # timeZone first, then refreshIntervalMs: the README does not order the two checks.
    zone_value = config.get("timeZone")
    if zone_value is None:
        zone_key = process_zone()
    else:
        key = canonical_zone_key(zone_value) if isinstance(zone_value, str) else None
        if key is None:
            raise TimeContextConfigError(_zone_message(zone_value))
        zone_key = key
    interval = config.get("refreshIntervalMs")
    if interval is None:
        interval = 0
    if not is_safe_integer(interval) or interval < 0:
        raise TimeContextConfigError(_interval_message(interval))
    try:
        tc_config.pinned_zone(zone_key)  # the zone's rules are resolved once, at load
    except LookupError as exc:
        raise TimeContextConfigError(
            "time-context config: the time zone could not be loaded"
        ) from exc
    return TimeContextSettings(zone_key=zone_key, refresh_interval_ms=int(interval))


# -- the patches --------------------------------------------------------------------

fold.decode_schedule_change_instant = decode_change  # type: ignore[assignment]
tools.encode_schedule_change = encode_change  # type: ignore[assignment]
owner.encode_schedule_change = encode_change  # type: ignore[assignment]
tools.allocate_schedule_id_after = allocate_remapped_id_after  # type: ignore[assignment]
tools.answer_if_aborted = lambda call: None  # type: ignore[assignment]
tools.error_result = _error  # type: ignore[assignment]
tools.internal_error_result = _fixed_error("internal_error")  # type: ignore[assignment]
tools.corrupt_log_result = _fixed_error("corrupt_schedule_log")  # type: ignore[assignment]
tools.persistence_uncertain_result = _persistence_uncertain  # type: ignore[assignment]
tools.delete_result = _delete_value  # type: ignore[assignment]
tools.schedule_view = _view  # type: ignore[assignment]
tools.tool_definitions = _tool_definitions  # type: ignore[assignment]
tool_arguments.checked_every_seconds = _checked_every_seconds  # type: ignore[assignment]
owner.render_reminder_framing = _reminder_framing
owner.render_every_batch_framing = _batch_framing
owner._SOURCE = _REMINDER_SOURCE  # type: ignore[misc]

preparation.format_timestamp = format_timestamp
baselines.format_duration = format_duration
tc_invariant._READING_FORMAT = _READING_FORMAT  # type: ignore[misc]
tc_invariant.CONTENT_MESSAGE = "a time-context reading holds one text block"  # type: ignore[misc]
tc_invariant.FORMAT_MESSAGE = "the time-context reading is not in its two-line form"  # type: ignore[misc]
tc_invariant.NUMBERS_MESSAGE = "time-context turn and step are not positive integers"  # type: ignore[misc]
tc_invariant.OPEN_TURN_MESSAGE = "a time-context reading needs an open turn"  # type: ignore[misc]
tc_invariant.TIMESTAMP_MESSAGE = (  # type: ignore[misc]
    "the time-context timestamp does not parse or is later than its event"
)
tc_config.SYSTEM_ZONE_MESSAGE = "time-context config: the process time zone is unknown"  # type: ignore[misc]
tc_plugin.parse_config = _parse_config  # type: ignore[assignment]

IMPLEMENTATION = dataclasses.replace(REFERENCE, name="relayout")

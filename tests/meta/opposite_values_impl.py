"""The reference, taking the other side of every open choice in its values.

Importing this module patches the reference in this process only (the
reference files are never edited); ``IMPLEMENTATION`` is then a README-
conforming build that accepts what the READMEs do not forbid and answers in
shapes and spellings they do not fix. ``relayout_impl.py`` differs from the
official build in layout and wording; this variant differs in *values*: what
is accepted and what a success looks like. The readme level of the suite must
accept it; every compat failure must name one of the pins named below
(``test_readme_level_accepts_other_values.py`` lists them).

What changes, and the sentence each change keeps:

dsh-schedule, what is accepted
  * Unknown ``schedule_create`` argument keys are ignored, not refused (pin
    SCH-CREATE-ARGUMENT-CHECKS). The README's "extra keys are rejected" is
    said of the local ``at`` object, which still refuses them, and "exactly
    one of after_seconds, at, or every_seconds" still holds.
  * ``-00:00`` is read as the UTC instant (pin SCH-NEGATIVE-ZERO-OFFSET): the
    grammar's ``±HH:MM`` admits it, and RFC 3339 gives it that instant. Offsets
    past ``23:59`` are still invalid.
  * Prompts and delete ids are trimmed as Python's ``str.strip()`` trims
    (pin SCH-TRIM-WHITESPACE): it also removes U+001C..U+001F and U+0085 and
    keeps U+FEFF, which ECMAScript's ``trim`` removes; the README says only
    "trimmed" and "whitespace-padded". Replay checks stored prompts by the
    same rule.
  * Zone names must match case-exactly (pin SCH-ZONE-NAME-CASE): the reference
    follows the official build's case-insensitive match; the README, asking for
    "a valid IANA Area/Location zone", allows either.

dsh-schedule, what a success or a rejection looks like
  * An actual delete answers ``{id, status: "deleted"}`` (pin SCH-VIEW-FIELDS):
    the README gives only the not-found value, kept exactly.
  * Instants in tool values and in the framings' ``occurrence_at`` are written
    with ``+00:00`` instead of ``Z`` (pin SCH-INSTANT-TEXT): both are RFC 3339
    UTC. The durable log keeps the reference layout and spelling.

dsh-time-context
  * ``timeZone`` must match a zone name case-exactly (pin TC-ZONE-NAME-CASE):
    "an IANA identifier" does not say whether case matters. (The spelling of
    readings is ``relayout_impl.py``'s.)
"""

from __future__ import annotations

import copy
import dataclasses
import re
from typing import Any, Final

import dsh_reference.schedule.core.at_selector as at_selector
import dsh_reference.schedule.core.decode as decode
import dsh_reference.schedule.core.records as records
import dsh_reference.schedule.core.tool_arguments as tool_arguments
import dsh_reference.schedule.owner as owner
import dsh_reference.schedule.tools as tools
import dsh_reference.time_context.core.config as tc_config
from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from dsh_reference.schedule.core import (
    CREATE_ARGUMENT_KEYS,
    ERROR_CODES,
    PROMPT_MESSAGE,
    ZONE_NAME_MESSAGE,
    ScheduleInputError,
    schedule_view,
)
from dsh_reference.time_context.core import TimeContextConfigError

__all__ = ["IMPLEMENTATION", "spell_instant"]

# -- what is accepted -------------------------------------------------------------------

_reference_validate_create = tools.validate_create_arguments
_reference_parse_offset_string = at_selector._parse_offset_string
_reference_schedule_zone = at_selector.validate_time_zone
_reference_tc_zone = tc_config.validate_time_zone


def _validate_create(arguments: Any) -> Any:
    # Keys outside the model inputs are ignored, not refused.
    return _reference_validate_create(
        {key: value for key, value in arguments.items() if key in CREATE_ARGUMENT_KEYS})


def _parse_offset_string(text: str) -> int:
    # -00:00: the time in UTC is known (RFC 3339 §4.3), so it is read as +00:00.
    if text.endswith("-00:00"):
        text = text[: -len("-00:00")] + "+00:00"
    return _reference_parse_offset_string(text)


def _stripped_prompt(prompt: object) -> str:
    if not isinstance(prompt, str) or prompt.strip() == "":
        raise ScheduleInputError("invalid_prompt", PROMPT_MESSAGE)
    return prompt.strip()


def _exact_schedule_zone(value: str) -> str:
    if _reference_schedule_zone(value) != value:
        raise ScheduleInputError("invalid_time_zone", ZONE_NAME_MESSAGE)
    return value


def _exact_tc_zone(value: object) -> str:
    key = _reference_tc_zone(value)
    if key != value:
        raise TimeContextConfigError(tc_config.invalid_zone_message(value))
    return key


# -- values -------------------------------------------------------------------------------

_CANONICAL: Final = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})Z", re.ASCII)


def spell_instant(canonical: str) -> str:
    """The variant's spelling of a reference (``.sssZ``) instant: ``+00:00`` for ``Z``."""
    match = _CANONICAL.fullmatch(canonical)
    return f"{match[1]}+00:00" if match else canonical


def _view(record: Any, now: int) -> dict[str, Any]:
    view: dict[str, Any] = dict(schedule_view(record, now))
    view["scheduledAt"] = spell_instant(view["scheduledAt"])
    return view


def _delete_value(schedule_id: str, *, deleted: bool) -> dict[str, Any]:
    if deleted:
        return {"id": schedule_id, "status": "deleted"}
    return {"id": schedule_id, "deleted": False, "code": "schedule_not_found"}


def _closed(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False,
            "properties": properties, "required": required}


_VIEW_SCHEMA: Final = _closed(
    {"id": {"type": "string"}, "kind": {"enum": ["after", "at", "every"]},
     "prompt": {"type": "string"}, "afterSeconds": {"type": "integer"},
     "everySeconds": {"type": "integer"}, "scheduledAt": {"type": "string"},
     "state": {"enum": ["scheduled", "overdue"]}, "deliveryMode": {"const": "session-local"}},
    ["id", "kind", "prompt", "scheduledAt", "state", "deliveryMode"],
)
_ERROR_SCHEMA: Final = _closed(
    {"code": {"enum": list(ERROR_CODES)}, "message": {"type": "string"},
     "operation": {"enum": ["create", "list", "delete"]}, "id": {"type": "string"}},
    ["code", "message"],
)
_OUTPUTS: Final = {
    "schedule_create": {"anyOf": [_VIEW_SCHEMA, _ERROR_SCHEMA]},
    "schedule_list": {"anyOf": [{"type": "array", "items": _VIEW_SCHEMA}, _ERROR_SCHEMA]},
    "schedule_delete": {"anyOf": [
        _closed({"id": {"type": "string"}, "status": {"const": "deleted"}}, ["id", "status"]),
        _closed({"id": {"type": "string"}, "deleted": {"const": False},
                 "code": {"const": "schedule_not_found"}}, ["id", "deleted", "code"]),
        _ERROR_SCHEMA,
    ]},
}

_reference_tool_definitions = tools.tool_definitions


def _tool_definitions() -> Any:
    return tuple(
        dataclasses.replace(definition, output_schema=copy.deepcopy(_OUTPUTS[definition.name]))
        for definition in _reference_tool_definitions()
    )


_reference_reminder_framing = owner.render_reminder_framing
_reference_batch_framing = owner.render_every_batch_framing


def _reminder_framing(record: Any) -> str:
    return _reference_reminder_framing(
        {**record, "scheduledAt": spell_instant(record["scheduledAt"])})


def _batch_framing(reminders: Any) -> str:
    return _reference_batch_framing([
        dataclasses.replace(reminder, occurrence_at=spell_instant(reminder.occurrence_at))
        for reminder in reminders
    ])


# -- the patches --------------------------------------------------------------------------

tools.validate_create_arguments = _validate_create  # type: ignore[assignment]
at_selector._parse_offset_string = _parse_offset_string
tool_arguments.checked_prompt = _stripped_prompt
records.checked_prompt = _stripped_prompt
tool_arguments.js_trim = str.strip  # the padded-id check
decode.js_trim = str.strip  # replay: a stored prompt is trimmed by the same rule
at_selector.validate_time_zone = _exact_schedule_zone
tools.schedule_view = _view  # type: ignore[assignment]
tools.delete_result = _delete_value  # type: ignore[assignment]
tools.tool_definitions = _tool_definitions  # type: ignore[assignment]
owner.render_reminder_framing = _reminder_framing
owner.render_every_batch_framing = _batch_framing

tc_config.validate_time_zone = _exact_tc_zone

IMPLEMENTATION = dataclasses.replace(REFERENCE, name="opposite-values")

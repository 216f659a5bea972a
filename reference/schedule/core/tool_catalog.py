"""The three Schedule tools as data: names, descriptions, argument and output schemas.

The argument schemas are what the host validates before a handler runs, so
they are intentionally loose where Schedule must answer with its own closed
error instead of a host argument error:

* the ``create`` root stays open (no ``additionalProperties``), so an unknown
  key reaches the plugin and becomes ``invalid_selector``;
* ``after_seconds`` and ``every_seconds`` are ``number``, not ``integer``, so
  ``1.5`` becomes ``invalid_rule`` rather than a host error;
* ``at`` has no ``type`` and its ``properties`` carry descriptions only. JSON
  Schema applies ``properties`` to objects alone and a description constrains
  nothing, so a string, a null, a number or an object with a missing, extra or
  non-string field all reach :func:`parse_at_selector`, which reports the
  closed ``invalid_rule`` / ``invalid_time_zone`` error. The model still sees
  both accepted forms and the three local field names.

Output schemas are ``oneOf`` unions of closed objects
(``additionalProperties: false``), listing every value a tool can return.
:func:`tool_definitions` builds the catalog once per process; its schemas
are read-only, so no caller can corrupt the copy every agent shares.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Final

from pytest_dsh.contract.frozen_json import freeze

from .errors import ERROR_CODES

__all__ = [
    "SCHEDULE_CREATE",
    "SCHEDULE_DELETE",
    "SCHEDULE_LIST",
    "TOOL_NAMES",
    "ToolDefinition",
    "tool_definitions",
]

SCHEDULE_CREATE: Final = "schedule_create"
SCHEDULE_LIST: Final = "schedule_list"
SCHEDULE_DELETE: Final = "schedule_delete"
#: Registration order; unregistration runs in reverse.
TOOL_NAMES: Final = (SCHEDULE_CREATE, SCHEDULE_LIST, SCHEDULE_DELETE)

JsonSchema = dict[str, Any]

_CREATE_DESCRIPTION: Final = (
    "Schedule one reminder for this session. Give a non-empty prompt and exactly one selector:"
    " after_seconds (a delay in whole seconds, a positive safe integer), at (an absolute time,"
    " either a date-time string carrying Z or a numeric offset, or a local date/time object"
    " naming its zone), or every_seconds (a repeat interval in whole seconds, a safe integer"
    " of 300 or more). A repeating reminder keeps the rhythm of its creation time, never"
    " replays runs it missed, and when overdue contributes only its latest occurrence to a"
    " single batch. Delivery happens inside this session only: while the session is not live"
    " a reminder waits as overdue and runs once the session is resumed."
)
_LIST_DESCRIPTION: Final = (
    "Show the active reminders of this session, oldest first, each with its exact id, its UTC"
    " target time, whether it is scheduled or overdue, and its session-local delivery mode."
)
_DELETE_DESCRIPTION: Final = (
    "Remove one active reminder from this session, using the exact id reported by"
    " schedule_create or schedule_list. An id that is unknown or whose reminder has already"
    " finished gives deleted: false."
)
_AT_DESCRIPTION: Final = (
    "Absolute target time. Either a string YYYY-MM-DDTHH:mm:ss[.sss] ending in Z or a"
    " numeric offset such as +09:00, or an object {date, time, time_zone} with a local date,"
    " a local time and the zone (UTC or an IANA Area/Location name) that interprets them."
)


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """One model-facing tool: what the host registers and validates against."""

    name: str
    description: str
    parameters: JsonSchema
    output_schema: JsonSchema


@functools.cache
def tool_definitions() -> tuple[ToolDefinition, ToolDefinition, ToolDefinition]:
    """``schedule_create``, ``schedule_list`` and ``schedule_delete``, in registration order.

    Built once per process and shared by every agent: the schemas are
    read-only (``pytest_dsh.contract.frozen_json``), so a host that wants to
    change one copies it first, and no agent can change another's catalog.
    """
    create, listing, delete = (
        ToolDefinition(name, description, freeze(parameters), freeze(output))
        for name, description, parameters, output in _definitions()
    )
    return create, listing, delete


def _definitions() -> tuple[tuple[str, str, JsonSchema, JsonSchema], ...]:
    return tuple(
        (name, description, parameters, output)
        for name, description, parameters, output in (
            (SCHEDULE_CREATE, _CREATE_DESCRIPTION, _create_parameters(), _create_output()),
            (SCHEDULE_LIST, _LIST_DESCRIPTION, _list_parameters(), _list_output()),
            (SCHEDULE_DELETE, _DELETE_DESCRIPTION, _delete_parameters(), _delete_output()),
        )
    )


def _create_parameters() -> JsonSchema:
    return {
        "type": "object",
        "properties": {
            "prompt": {
                "type": "string",
                "description": "What the reminder should bring up once it is due.",
            },
            "after_seconds": {
                "type": "number",
                "description": "Delay from now in seconds; a positive safe integer.",
            },
            "every_seconds": {
                "type": "number",
                "description": "Repeat interval in seconds; a safe integer of at least 300.",
            },
            "at": {
                "description": _AT_DESCRIPTION,
                "properties": {
                    "date": {"description": "Local calendar date, YYYY-MM-DD."},
                    "time": {"description": "Local time, HH:mm:ss with optional .s, .ss or .sss."},
                    "time_zone": {"description": "UTC or an IANA zone such as Europe/Paris."},
                },
            },
        },
        "required": ["prompt"],
    }


def _list_parameters() -> JsonSchema:
    return {"type": "object", "properties": {}}


def _delete_parameters() -> JsonSchema:
    return {
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "The exact schedule id in this session."}
        },
        "required": ["id"],
    }


def _closed_object(properties: JsonSchema, required: list[str]) -> JsonSchema:
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": properties,
        "required": required,
    }


def _view_schema() -> JsonSchema:
    def view(kind: str, interval_key: str | None) -> JsonSchema:
        properties: JsonSchema = {
            "id": {"type": "string"},
            "kind": {"const": kind},
            "prompt": {"type": "string"},
        }
        if interval_key is not None:
            properties[interval_key] = {"type": "integer"}
        properties["scheduledAt"] = {"type": "string"}
        properties["state"] = {"enum": ["scheduled", "overdue"]}
        properties["deliveryMode"] = {"const": "session-local"}
        return _closed_object(properties, list(properties))

    return {
        "oneOf": [view("after", "afterSeconds"), view("at", None), view("every", "everySeconds")]
    }


def _error_schemas() -> list[JsonSchema]:
    basic = [
        _closed_object(
            {"code": {"const": code}, "message": {"type": "string"}}, ["code", "message"]
        )
        for code in ERROR_CODES
        if code != "persistence_uncertain"
    ]
    persistence = _closed_object(
        {
            "code": {"const": "persistence_uncertain"},
            "message": {"type": "string"},
            "operation": {"enum": ["create", "list", "delete"]},
            "id": {"type": "string"},
        },
        ["code", "message", "operation"],
    )
    return [*basic, persistence]


def _create_output() -> JsonSchema:
    return {"oneOf": [_view_schema(), *_error_schemas()]}


def _list_output() -> JsonSchema:
    return {"oneOf": [{"type": "array", "items": _view_schema()}, *_error_schemas()]}


def _delete_output() -> JsonSchema:
    deleted = _closed_object(
        {"id": {"type": "string"}, "deleted": {"const": True}}, ["id", "deleted"]
    )
    not_found = _closed_object(
        {
            "id": {"type": "string"},
            "deleted": {"const": False},
            "code": {"const": "schedule_not_found"},
        },
        ["id", "deleted", "code"],
    )
    return {"oneOf": [deleted, not_found, *_error_schemas()]}

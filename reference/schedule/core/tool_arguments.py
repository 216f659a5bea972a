"""Shape-only checks of tool arguments, done before a call enters the Agent queue.

Theory of operation: the host has already validated the arguments against the
parameter schema, which is deliberately permissive so that every Schedule
failure is reported with a closed Schedule code. What can be decided without
the log or the clock is decided here, so a malformed call never waits for,
or is masked by, persistence. The create order is fixed (first failure wins):

1. an unknown own key, or not exactly one selector key present -> invalid_selector
   (presence counts, even with a null value; this beats a blank prompt);
2. prompt not a string or blank after trimming -> invalid_prompt;
3. the selector: after_seconds, every_seconds (safe integer, then >= 300) or at
   (everything :func:`parse_at_selector` checks).

Only the range of after/every targets and the not-future gate wait for ``now``,
in :func:`build_requested_record`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from .at_selector import ParsedAt, parse_at_selector
from .errors import INVALID_RULE, INVALID_SELECTOR, ScheduleInputError
from .js_semantics import js_trim
from .protocol import ScheduleRecord
from .records import (
    checked_after_seconds,
    checked_every_seconds,
    checked_prompt,
    create_after_record,
    create_at_record,
    create_every_record,
)

__all__ = [
    "CREATE_ARGUMENT_KEYS",
    "DELETE_ID_MESSAGE",
    "SELECTOR_KEYS",
    "SELECTOR_MESSAGE",
    "AfterRequest",
    "AtRequest",
    "CreateRequest",
    "EveryRequest",
    "build_requested_record",
    "validate_create_arguments",
    "validate_delete_id",
]

SELECTOR_MESSAGE: Final = (
    "schedule_create accepts exactly one of after_seconds, at, or every_seconds."
)
DELETE_ID_MESSAGE: Final = "schedule_delete id must be non-empty without surrounding whitespace."

SELECTOR_KEYS: Final = ("after_seconds", "at", "every_seconds")
CREATE_ARGUMENT_KEYS: Final = frozenset({"prompt", *SELECTOR_KEYS})


@dataclass(frozen=True, slots=True)
class AfterRequest:
    """A shape-valid create with ``after_seconds``; ``prompt`` is already trimmed."""

    prompt: str
    after_seconds: int


@dataclass(frozen=True, slots=True)
class AtRequest:
    """A shape-valid create with ``at``, resolved to its target instant."""

    prompt: str
    at: ParsedAt


@dataclass(frozen=True, slots=True)
class EveryRequest:
    """A shape-valid create with ``every_seconds`` (at least 300)."""

    prompt: str
    every_seconds: int


CreateRequest = AfterRequest | AtRequest | EveryRequest


def validate_create_arguments(arguments: Mapping[str, object]) -> CreateRequest:
    """Check ``schedule_create`` arguments; raises :class:`ScheduleInputError`."""
    selectors = [key for key in SELECTOR_KEYS if key in arguments]
    if any(key not in CREATE_ARGUMENT_KEYS for key in arguments) or len(selectors) != 1:
        raise ScheduleInputError(INVALID_SELECTOR, SELECTOR_MESSAGE)
    prompt = checked_prompt(arguments.get("prompt"))
    selector = selectors[0]
    if selector == "after_seconds":
        return AfterRequest(prompt, checked_after_seconds(arguments[selector]))
    if selector == "every_seconds":
        return EveryRequest(prompt, checked_every_seconds(arguments[selector]))
    return AtRequest(prompt, parse_at_selector(arguments[selector]))


def build_requested_record(request: CreateRequest, schedule_id: str, now: int) -> ScheduleRecord:
    """The record for a validated request, under the allocated id and one clock sample."""
    if isinstance(request, AfterRequest):
        return create_after_record(schedule_id, request.prompt, request.after_seconds, now)
    if isinstance(request, AtRequest):
        return create_at_record(schedule_id, request.prompt, request.at, now)
    return create_every_record(schedule_id, request.prompt, request.every_seconds, now)


def validate_delete_id(schedule_id: object) -> str:
    """The id to delete, exactly as given; ``invalid_rule`` if empty or whitespace-padded."""
    if not isinstance(schedule_id, str) or schedule_id == "" or js_trim(schedule_id) != schedule_id:
        raise ScheduleInputError(INVALID_RULE, DELETE_ID_MESSAGE)
    return schedule_id

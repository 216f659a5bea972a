"""Build the durable record for a create, given the id and one clock sample ``now``.

Each builder checks the prompt first, then its selector, then the future
instant gate (range before not-future). None of them validates ``id``: the
caller allocates it. The stored prompt is the JavaScript-trimmed prompt.
"""

from __future__ import annotations

from typing import Final

from .at_selector import ParsedAt, parse_at_selector
from .errors import FREQUENCY_TOO_HIGH, INVALID_PROMPT, INVALID_RULE, ScheduleInputError
from .instants import future_instant
from .js_semantics import is_safe_integer, js_trim
from .protocol import MIN_EVERY_INTERVAL_SECONDS, AfterRecord, AtRecord, EveryRecord

__all__ = [
    "AFTER_SECONDS_MESSAGE",
    "EVERY_FREQUENCY_MESSAGE",
    "EVERY_SECONDS_MESSAGE",
    "PROMPT_MESSAGE",
    "checked_after_seconds",
    "checked_every_seconds",
    "checked_prompt",
    "create_after_record",
    "create_at_record",
    "create_every_record",
]

PROMPT_MESSAGE: Final = "prompt must be non-empty after trimming."
AFTER_SECONDS_MESSAGE: Final = "after_seconds must be a positive safe integer."
EVERY_SECONDS_MESSAGE: Final = "every_seconds must be a safe integer."
EVERY_FREQUENCY_MESSAGE: Final = "every_seconds must be at least 300."


def checked_prompt(prompt: object) -> str:
    """The JavaScript-trimmed prompt; ``invalid_prompt`` if it is not a string or is blank."""
    if not isinstance(prompt, str) or js_trim(prompt) == "":
        raise ScheduleInputError(INVALID_PROMPT, PROMPT_MESSAGE)
    return js_trim(prompt)


def checked_after_seconds(after_seconds: object) -> int:
    """``after_seconds`` as an int; ``invalid_rule`` unless it is a positive safe integer."""
    if not (is_safe_integer(after_seconds) and after_seconds > 0):
        raise ScheduleInputError(INVALID_RULE, AFTER_SECONDS_MESSAGE)
    return int(after_seconds)


def checked_every_seconds(every_seconds: object) -> int:
    """``every_seconds`` as an int; ``invalid_rule`` if not a safe integer, else at least 300."""
    if not is_safe_integer(every_seconds):
        raise ScheduleInputError(INVALID_RULE, EVERY_SECONDS_MESSAGE)
    if every_seconds < MIN_EVERY_INTERVAL_SECONDS:
        raise ScheduleInputError(FREQUENCY_TOO_HIGH, EVERY_FREQUENCY_MESSAGE)
    return int(every_seconds)


def create_after_record(
    schedule_id: str, prompt: object, after_seconds: object, now: int
) -> AfterRecord:
    """A one-shot record due ``after_seconds`` after ``now``."""
    trimmed = checked_prompt(prompt)
    seconds = checked_after_seconds(after_seconds)
    return {
        "id": schedule_id,
        "kind": "after",
        "prompt": trimmed,
        "afterSeconds": seconds,
        "scheduledAt": future_instant(now + seconds * 1000, now),
    }


def create_at_record(schedule_id: str, prompt: object, at: object, now: int) -> AtRecord:
    """A one-shot record due at ``at``: a raw selector or one already parsed before the queue."""
    trimmed = checked_prompt(prompt)
    parsed = at if isinstance(at, ParsedAt) else parse_at_selector(at)
    return {
        "id": schedule_id,
        "kind": "at",
        "prompt": trimmed,
        "scheduledAt": future_instant(parsed.epoch_ms, now),
    }


def create_every_record(
    schedule_id: str, prompt: object, every_seconds: object, now: int
) -> EveryRecord:
    """A fixed-rate record anchored at ``now``: its first occurrence is ``now + interval``."""
    trimmed = checked_prompt(prompt)
    seconds = checked_every_seconds(every_seconds)
    return {
        "id": schedule_id,
        "kind": "every",
        "prompt": trimmed,
        "everySeconds": seconds,
        "scheduledAt": future_instant(now + seconds * 1000, now),
    }

"""Reading tool values, appended changes and reminders for what the README states.

The README fixes what a Schedule value and a reminder *mean*, not every byte of
them: a record's instants are four-digit-year RFC 3339 UTC times (not a fixed
fraction width), a list view has ``id``, ``scheduledAt``, ``state`` and
``deliveryMode`` and the other camelCase record fields (the prompt under a name
the README does not give), a rejection carries a closed code (under a field the
README does not name), and a reminder is the README's framing text. These
helpers observe exactly that much, so readme-level tests stay independent of
the official build's layout; the exact spelling is checked by compat-level
tests (docs/pinned-details.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from dsh_conformance.layout_free import closed_codes_in, instant_ms, schedule_changes
from dsh_conformance.schedule.session_logs import (
    BATCH_HEADER,
    ONE_SHOT_HEADER,
    ONE_SHOT_INSTRUCTION,
    batch_framing,
    message_content,
)

__all__ = [
    "OneShotFraming",
    "batch_reminders",
    "changes_since",
    "delete_succeeded",
    "epoch_ms",
    "instant_ms",
    "instants_in",
    "one_shot_framing_of",
    "rejection_codes",
    "reminder_events",
    "reminder_text",
    "value_scalars",
]

def epoch_ms(iso: str) -> int:
    """Epoch milliseconds of an instant the suite spells itself."""
    value = instant_ms(iso)
    if value is None:
        raise ValueError(f"not a four-digit-year RFC 3339 UTC instant: {iso!r}")
    return value


def value_scalars(value: Any) -> list[Any]:
    """The scalars of a JSON value that are not object keys, depth first."""
    found: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            found.append(item)
    return found


def instants_in(value: Any) -> set[int]:
    """Every RFC 3339 UTC instant among a value's scalars, as epoch ms."""
    return {ms for ms in map(instant_ms, value_scalars(value)) if ms is not None}


def rejection_codes(value: Any) -> set[str]:
    """The closed codes a tool value carries, wherever the implementation put them."""
    return closed_codes_in(value)


def delete_succeeded(value: Any) -> bool:
    """Whether a ``schedule_delete`` value reports an actual delete. The README
    spells only the not-found value ``{ id, deleted: false, code }``: an actual
    delete is any value with no closed code that does not say ``deleted: false``
    (its exact fields are pinned, SCH-VIEW-FIELDS)."""
    said_false = isinstance(value, Mapping) and value.get("deleted") is False
    return not closed_codes_in(value) and not said_false


def changes_since(agent: Any, before: int) -> list[Any]:
    """The data of the ``schedule/change`` events appended after the first ``before``."""
    return schedule_changes(agent.events())[before:]


def reminder_text(event: Mapping[str, Any]) -> str:
    return "".join(
        block.get("text", "") for block in message_content(event["data"])
        if isinstance(block, Mapping)
    )


def reminder_events(events: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """User messages holding one of the README's two framings (found by their
    first line, whatever source tag the implementation gives them)."""
    return [
        event for event in events
        if event["type"] == "user/message"
        and reminder_text(event).startswith((f"{ONE_SHOT_HEADER}\n", f"{BATCH_HEADER}\n"))
    ]


class OneShotFraming(NamedTuple):
    """The dynamic values of a one-shot framing (JSON texts kept as written)."""

    schedule_id_json: str
    occurrence_ms: int | None
    prompt_json: str


_ONE_SHOT = re.compile(
    re.escape(f"{ONE_SHOT_HEADER}\n{ONE_SHOT_INSTRUCTION}\n")
    + r"schedule_id_json: (?P<id>[^\n]*)\n"
    + r"occurrence_at: (?P<at>[^\n]*)\n"
    + r"reminder_prompt_json: (?P<prompt>.*)",
    re.DOTALL,
)
_BATCH_PREFIX = batch_framing("")


def one_shot_framing_of(text: str) -> OneShotFraming | None:
    """The README's one-shot framing read back, or None when ``text`` is not it."""
    match = _ONE_SHOT.fullmatch(text)
    if match is None:
        return None
    return OneShotFraming(match["id"], instant_ms(match["at"]), match["prompt"])


def batch_reminders(text: str) -> list[Any] | None:
    """``reminders_json`` of the README's batch framing parsed, or None when
    ``text`` is not that framing or the array is not JSON."""
    if not text.startswith(_BATCH_PREFIX) or "\n" in text[len(_BATCH_PREFIX):]:
        return None
    try:
        reminders = json.loads(text[len(_BATCH_PREFIX):])
    except ValueError:
        return None
    return reminders if isinstance(reminders, list) else None

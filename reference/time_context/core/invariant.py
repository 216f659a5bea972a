"""Pure checks of the ``./invariant`` companion: is a reading well placed and well formed?

A reading is checked against the log *before* it (its prefix). The checks run
in this order and the first failure wins; each failure has an exact message:

1. exactly one content block, of type ``text``;
2. the whole text matches the two-line reading format;
3. turn and step are positive safe integers;
4. position: inside an open turn, before the next ``step/start``, naming that
   turn and the step after the newest ``step/end`` (step 1 when none);
5. the baseline label fits the step (``model-visible message`` for step 1);
6. the rendered timestamp parses (as ``Date.parse`` would) and is not later
   than the durable event time. A pause between sampling and appending is fine.

Not checked: the elapsed value, whether a baseline event exists, the zone or
offset (beyond parsing), the exact shape of the source object.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from .js_values import is_safe_integer, js_string
from .reading import STEP_CONTEXT_LABEL, STEP_ONE_LABEL, is_reading
from .rendered_timestamps import parse_rendered_timestamp

__all__ = [
    "CONTENT_MESSAGE",
    "FORMAT_MESSAGE",
    "INVARIANT_OWNER",
    "NUMBERS_MESSAGE",
    "OPEN_TURN_MESSAGE",
    "TIMESTAMP_MESSAGE",
    "TimeContextInvariantError",
    "check_log",
    "check_reading",
]

#: The owner name the companion registers with the invariants service.
INVARIANT_OWNER: Final = "@deepseek-ai/dsh-time-context"

CONTENT_MESSAGE: Final = "time-context messages must contain exactly one text block"
FORMAT_MESSAGE: Final = "time-context message does not match the durable reading format"
NUMBERS_MESSAGE: Final = "time-context turn and step must be positive safe integers"
OPEN_TURN_MESSAGE: Final = "time-context reading must be appended inside an open turn"
TIMESTAMP_MESSAGE: Final = (
    "time-context rendered timestamp must parse and not postdate its durable event"
)

_READING_FORMAT: Final = re.compile(
    r"Time sampled while preparing turn (\d+), step (\d+): "
    r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:\d{2}))\[[^\]]+\]\n"
    r"Elapsed since the preceding (model-visible message|step context): "
    r"(?:unavailable|(?:\d+d )?(?:\d+h )?(?:\d+m )?\d+s)\.",
    re.ASCII,
)


class TimeContextInvariantError(ValueError):
    """A reading breaks the invariant; ``str(error)`` is the diagnostic."""


def _expected_position(prefix: Sequence[Mapping[str, Any]]) -> tuple[object, object]:
    """``(turn, step)`` a reading appended after ``prefix`` must name."""
    for index in range(len(prefix) - 1, -1, -1):
        kind = prefix[index].get("type")
        if kind == "turn/end":
            break
        if kind != "turn/start":
            continue
        turn = _data(prefix[index]).get("turn")
        for later in reversed(prefix[index + 1 :]):
            if later.get("type") == "step/start":
                step = js_string(_data(later).get("step"))
                raise TimeContextInvariantError(
                    f"time-context reading must precede step/start, but step {step} is already open"
                )
            if later.get("type") == "step/end":
                ended = _data(later).get("step")
                return turn, ended + 1 if is_safe_integer(ended) else float("nan")
        return turn, 1
    raise TimeContextInvariantError(OPEN_TURN_MESSAGE)


def _data(event: Mapping[str, Any]) -> Mapping[str, Any]:
    data = event.get("data")
    return data if isinstance(data, Mapping) else {}


#: Digits of ``Number.MAX_SAFE_INTEGER`` (9007199254740991).
_SAFE_DIGITS: Final = 16


def _reading_number(digits: str) -> int | None:
    """The decimal number a reading names, or ``None`` when it has more digits
    than any safe integer: JavaScript reads such a number as a huge float (or
    Infinity), never a safe integer, and Python refuses to convert more than
    4,300 digits."""
    significant = digits.lstrip("0") or "0"
    return int(significant) if len(significant) <= _SAFE_DIGITS else None


def check_reading(prefix: Sequence[Mapping[str, Any]], reading: Mapping[str, Any]) -> None:
    """Raise :class:`TimeContextInvariantError` when ``reading`` may not follow ``prefix``."""
    content = _data(reading).get("content")
    if not (
        isinstance(content, list)
        and len(content) == 1
        and isinstance(content[0], Mapping)
        and content[0].get("type") == "text"
    ):
        raise TimeContextInvariantError(CONTENT_MESSAGE)
    text = content[0].get("text")
    match = _READING_FORMAT.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise TimeContextInvariantError(FORMAT_MESSAGE)
    turn, step = _reading_number(match[1]), _reading_number(match[2])
    if not (is_safe_integer(turn) and is_safe_integer(step) and turn >= 1 and step >= 1):
        raise TimeContextInvariantError(NUMBERS_MESSAGE)
    expected_turn, expected_step = _expected_position(prefix)
    if turn != expected_turn or step != expected_step:
        raise TimeContextInvariantError(
            f"time-context reading names turn {turn}/step {step}, expected turn "
            f"{js_string(expected_turn)}/step {js_string(expected_step)}"
        )
    label = match[4]
    if label != (STEP_ONE_LABEL if step == 1 else STEP_CONTEXT_LABEL):
        raise TimeContextInvariantError(
            f'time-context step {step} uses the wrong elapsed-time baseline "{label}"'
        )
    rendered_ms = parse_rendered_timestamp(match[3])
    event_time = reading.get("time")
    if rendered_ms is None or not is_safe_integer(event_time) or event_time < rendered_ms:
        raise TimeContextInvariantError(TIMESTAMP_MESSAGE)


def check_log(events: Sequence[Mapping[str, Any]], *, seed_length: int = 0) -> None:
    """Check every reading from index ``seed_length`` on against the events before it.

    The seeded prefix of a fork belongs to (and was checked in) its parent.
    """
    for index in range(max(seed_length, 0), len(events)):
        if is_reading(events[index]):
            check_reading(events[:index], events[index])

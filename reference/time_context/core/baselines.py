"""Elapsed-time baselines, found by scanning the raw session log backwards.

* Step 1 measures from the newest *model-visible message* of any source:
  ``user/message`` (the prompt that opened the turn included, as are earlier
  readings, other injections and compaction summaries), ``assistant/message``,
  ``tool/result`` or ``steering/message``.
* A later step measures from the newest reading *of the same turn*: the scan
  stops, with no baseline, at the current turn's ``turn/start``.

Shadowed (compacted) events stay in the raw log and count like any other.
Times are durable event times in epoch ms; the elapsed value is
``now - baseline`` clamped to zero when the wall clock moved backwards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from .formatting import format_duration
from .reading import UNAVAILABLE, is_reading

__all__ = [
    "MODEL_VISIBLE_TYPES",
    "baseline_time_ms",
    "elapsed_text",
    "same_turn_reading_time_ms",
    "step_one_baseline_ms",
]

#: Event types that count as a preceding model-visible message for step 1.
MODEL_VISIBLE_TYPES: Final = frozenset(
    {"user/message", "assistant/message", "tool/result", "steering/message"}
)


def step_one_baseline_ms(events: Sequence[Mapping[str, Any]]) -> int | None:
    """Time of the newest model-visible message, or ``None`` when there is none."""
    for event in reversed(events):
        if event.get("type") in MODEL_VISIBLE_TYPES:
            return int(event["time"])
    return None


def same_turn_reading_time_ms(events: Sequence[Mapping[str, Any]], turn: int) -> int | None:
    """Time of the newest reading after ``turn``'s ``turn/start``, or ``None``."""
    for event in reversed(events):
        if event.get("type") == "turn/start":
            data = event.get("data")
            if isinstance(data, Mapping) and data.get("turn") == turn:
                return None
        elif is_reading(event):
            return int(event["time"])
    return None


def baseline_time_ms(events: Sequence[Mapping[str, Any]], turn: int, step: int) -> int | None:
    """The baseline of step ``step`` of turn ``turn``."""
    if step == 1:
        return step_one_baseline_ms(events)
    return same_turn_reading_time_ms(events, turn)


def elapsed_text(now_ms: int, baseline_ms: int | None) -> str:
    """A compact duration since ``baseline_ms`` (clamped at 0), or ``unavailable``."""
    if baseline_ms is None:
        return UNAVAILABLE
    return format_duration(now_ms - baseline_ms)

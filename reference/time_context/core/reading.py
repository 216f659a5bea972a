"""What a time-context reading is: its source, its message and its text.

A reading is a ``user/message`` whose source is exactly
``{"kind": "plugin", "plugin": "time-context"}`` and whose content is one text
block of two lines joined by ``\\n`` (no trailing newline)::

    Time sampled while preparing turn <turn>, step <step>: <timestamp>
    Elapsed since the preceding <baseline>: <duration-or-unavailable>.

``<baseline>`` is ``model-visible message`` for step 1 and ``step context`` for
every later step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "PLUGIN_NAME",
    "READING_SOURCE",
    "STEP_CONTEXT_LABEL",
    "STEP_ONE_LABEL",
    "UNAVAILABLE",
    "baseline_label",
    "is_reading",
    "reading_message",
    "render_reading",
]

PLUGIN_NAME: Final = "time-context"
STEP_ONE_LABEL: Final = "model-visible message"
STEP_CONTEXT_LABEL: Final = "step context"
UNAVAILABLE: Final = "unavailable"


def _reading_source() -> dict[str, str]:
    return {"kind": "plugin", "plugin": PLUGIN_NAME}


#: The source every reading carries (copy before handing it out).
READING_SOURCE: Final[Mapping[str, str]] = _reading_source()


def baseline_label(step: int) -> str:
    """The elapsed-time baseline a step measures from."""
    return STEP_ONE_LABEL if step == 1 else STEP_CONTEXT_LABEL


def render_reading(turn: int, step: int, timestamp: str, elapsed: str) -> str:
    """The two-line text; ``elapsed`` is a duration or :data:`UNAVAILABLE`."""
    return (
        f"Time sampled while preparing turn {turn}, step {step}: {timestamp}\n"
        f"Elapsed since the preceding {baseline_label(step)}: {elapsed}."
    )


def reading_message(text: str) -> dict[str, Any]:
    """The message handed to ``agent.inject``: one text block and the source."""
    return {"content": [{"type": "text", "text": text}], "source": _reading_source()}


def is_reading(event: Mapping[str, Any]) -> bool:
    """True for a ``user/message`` attributed to the plugin (any other shape of
    source, such as a compaction summary, is not a reading)."""
    if event.get("type") != "user/message":
        return False
    data = event.get("data")
    source = data.get("source") if isinstance(data, Mapping) else None
    return (
        isinstance(source, Mapping)
        and source.get("kind") == "plugin"
        and source.get("plugin") == PLUGIN_NAME
    )

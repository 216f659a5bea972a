"""Time-context readings, checked as the log streams past.

``check_log`` checks each reading against the whole prefix before it, but the
invariant reads only a little of that prefix: which turn is open (the newest
``turn/start`` not followed by a ``turn/end``) and the newest ``step/start`` or
``step/end`` since. :class:`ReadingPlacement` keeps exactly those events and
hands ``check_reading`` a prefix of at most two of them, which gives the same
verdict and message as the full prefix.

With ``official=True`` the placement is the official build's instead (docs,
deviations D9 and D12): a reading is appended during prompt assembly, after the
open step's ``step/start`` and before anything that ends prompt assembly, and
must name that turn and step; elsewhere its invariant answers
:data:`OFFICIAL_POSITION_MESSAGE`. The remaining checks (content, format,
numbers, baseline label, timestamp) are the same in both builds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from dsh_reference.js_semantics import is_safe_integer
from dsh_reference.time_context.core import (
    OPEN_TURN_MESSAGE,
    TimeContextInvariantError,
    check_reading,
    is_reading,
)

__all__ = ["OFFICIAL_POSITION_MESSAGE", "ReadingPlacement"]

OFFICIAL_POSITION_MESSAGE: Final = "time-context reading must be appended during prompt assembly"

# Events after which the official build no longer accepts a reading in the open step.
_ENDS_PROMPT_ASSEMBLY: Final = frozenset(
    {
        "turn/start", "turn/end", "step/end", "request/header", "assistant/chunk",
        "assistant/message", "tool/call", "tool/result",
    }
)


def _checked_reading(prefix: list[Mapping[str, Any]], event: Mapping[str, Any]) -> None:
    """``check_reading``, with the way arbitrary JSON can make it raise otherwise
    turned into a diagnostic (turn and step numbers of any length are the
    core's to refuse)."""
    try:
        check_reading(prefix, event)
    except RecursionError:
        # The expected turn or step is rendered into the message; a value
        # nested hundreds of levels deep cannot be.
        raise TimeContextInvariantError(
            "time-context reading cannot be checked: the open turn or step value is nested "
            "too deeply to render"
        ) from None


class ReadingPlacement:
    """Feed every event in order to :meth:`check` (readings) and :meth:`observe` (all)."""

    def __init__(self, *, official: bool) -> None:
        self._official = official
        self._turn: Mapping[str, Any] | None = None  # README: the open turn/start
        self._step: Mapping[str, Any] | None = None  # README: newest step event since
        self._open_step: Mapping[str, Any] | None = None  # official: the step/start

    def check(self, event: Mapping[str, Any]) -> None:
        """Raise :class:`TimeContextInvariantError` if ``event`` is a misplaced or
        malformed reading; other events pass."""
        if not is_reading(event):
            return
        if not self._official:
            _checked_reading([e for e in (self._turn, self._step) if e is not None], event)
            return
        try:
            _checked_reading(self._official_prefix(), event)
        except TimeContextInvariantError as exc:
            # With no open step the prefix is empty: the README's message for
            # that position is replaced by the official one.
            if str(exc) == OPEN_TURN_MESSAGE:
                raise TimeContextInvariantError(OFFICIAL_POSITION_MESSAGE) from None
            raise

    def _official_prefix(self) -> list[Mapping[str, Any]]:
        """A README prefix whose expected position is the official open step."""
        if self._open_step is None:
            return []
        data = self._open_step.get("data")
        data = data if isinstance(data, Mapping) else {}
        step = data.get("step")
        ended = step - 1 if is_safe_integer(step) else None
        return [
            {"type": "turn/start", "data": {"turn": data.get("turn")}},
            {"type": "step/end", "data": {"step": ended}},
        ]

    def observe(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        if kind == "turn/start":
            self._turn, self._step = event, None
        elif kind == "turn/end":
            self._turn, self._step = None, None
        elif kind in ("step/start", "step/end") and self._turn is not None:
            self._step = event
        if kind == "step/start":
            self._open_step = event
        elif kind in _ENDS_PROMPT_ASSEMBLY:
            self._open_step = None

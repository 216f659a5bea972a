"""One preparation attempt, as a pure function of the raw log and one clock sample.

Theory of operation. Before a step, the runtime samples the wall clock once
and asks :func:`prepare_reading` what to append. That single ``now`` drives the
interval decision, the timestamp and the elapsed time alike, so the three can
never disagree. The answer depends only on the log and ``now``: the same log and ``now``
always give the same answer, whichever process asks; the runtime passes a
:class:`~dsh_reference.time_context.core.scheduling.LatestReading` per session
so the newest reading is found without rescanning the log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .baselines import baseline_time_ms, elapsed_text
from .config import TimeContextSettings
from .formatting import format_timestamp
from .reading import render_reading
from .scheduling import LatestReading, latest_reading_time_ms, reading_due

__all__ = ["prepare_reading"]


def prepare_reading(
    events: Sequence[Mapping[str, Any]],
    *,
    now_ms: int,
    turn: int,
    step: int,
    settings: TimeContextSettings,
    latest: LatestReading | None = None,
) -> str | None:
    """The reading text to append before ``step`` of ``turn``, or ``None`` when
    the interval suppresses this attempt. ``latest``, when given, is a
    projection of this log's newest reading (same answer, read incrementally)."""
    interval = settings.refresh_interval_ms
    if interval:
        last_ms = latest_reading_time_ms(events) if latest is None else latest.read(events)
        if not reading_due(now_ms, last_ms, interval):
            return None
    timestamp = format_timestamp(now_ms, settings.zone, settings.zone_key)
    elapsed = elapsed_text(now_ms, baseline_time_ms(events, turn, step))
    return render_reading(turn, step, timestamp, elapsed)

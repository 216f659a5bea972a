"""Pure policy of the invariant companion: the fold, applied to logs and to candidates.

The companion refuses a session whose owned suffix does not fold, and refuses
to append a ``schedule/change`` event that would make it stop folding. Other
event types are never checked. Both functions raise :class:`ScheduleLogError`;
its ``message`` is the text a host passes to its invariant failure.
``seed_length`` is the session header's ``seedLength``, where ``None`` means 0.
"""

from __future__ import annotations

from collections.abc import Sequence

from .fold import event_field, fold_schedule_events
from .protocol import SCHEDULE_CHANGE_EVENT_TYPE

__all__ = ["check_candidate_event", "check_schedule_log"]


def check_schedule_log(events: Sequence[object], seed_length: object = None) -> None:
    """Raise :class:`ScheduleLogError` unless ``events`` folds under the fork policy."""
    fold_schedule_events(events, 0 if seed_length is None else seed_length)


def check_candidate_event(
    events: Sequence[object], candidate: object, seed_length: object = None
) -> None:
    """Raise :class:`ScheduleLogError` if appending ``candidate`` would corrupt the log.

    A candidate of another event type is accepted without looking at the log.
    """
    if event_field(candidate, "type") != SCHEDULE_CHANGE_EVENT_TYPE:
        return
    check_schedule_log([*events, candidate], seed_length)

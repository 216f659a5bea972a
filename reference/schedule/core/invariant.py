"""Pure policy of the invariant companion: the fold, applied to logs and to candidates.

The companion refuses a session whose owned suffix does not fold, and refuses
to append a ``schedule/change`` event that would make it stop folding. Other
event types are never checked. Both functions raise :class:`ScheduleLogError`;
its ``message`` is the text a host passes to its invariant failure.
``seed_length`` is the session header's ``seedLength``, where ``None`` means 0.

:class:`InvariantChecker` gives the same answers from projections kept across
calls, so checking a candidate costs O(1) amortised in the log length instead
of a whole refold per append.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Final, final

from .fold import event_field, fold_schedule_events
from .projection import ScheduleProjection
from .protocol import SCHEDULE_CHANGE_EVENT_TYPE

__all__ = ["InvariantChecker", "check_candidate_event", "check_schedule_log"]

#: Logs followed at once by one checker; more are refolded when they come back.
_FOLLOWED_LOGS: Final = 64


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


@final
class InvariantChecker:
    """:func:`check_schedule_log` and :func:`check_candidate_event` over
    projections, one per log it is shown (keyed by the log's first event;
    a wrong guess only costs a refold, see :mod:`dsh_reference.log_cursor`)."""

    def __init__(self) -> None:
        self._projections: OrderedDict[int, ScheduleProjection] = OrderedDict()

    def check_log(self, events: Sequence[object], seed_length: object = None) -> None:
        """Same outcome as :func:`check_schedule_log`."""
        self._projection(events).read(events, 0 if seed_length is None else seed_length)

    def check_candidate(
        self, events: Sequence[object], candidate: object, seed_length: object = None
    ) -> None:
        """Same outcome as :func:`check_candidate_event`."""
        if event_field(candidate, "type") != SCHEDULE_CHANGE_EVENT_TYPE:
            return
        state = self._projection(events).read(events, 0 if seed_length is None else seed_length)
        state.apply(candidate, commit=False)

    def _projection(self, events: Sequence[object]) -> ScheduleProjection:
        key = id(events[0]) if len(events) else 0
        projection = self._projections.pop(key, None) or ScheduleProjection()
        self._projections[key] = projection
        if len(self._projections) > _FOLLOWED_LOGS:
            self._projections.popitem(last=False)
        return projection

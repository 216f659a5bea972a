"""Allocation of never-reused, session-local schedule ids (``schedule-N``).

Theory of operation: ``seen_ids`` holds every id ever created in the owned log
suffix, including deleted and finished ones. Starting from ``|seen| + 1`` and
probing upward until the candidate is unseen guarantees a fresh id without
assuming that earlier ids follow the ``schedule-N`` format (the decoder accepts
any trimmed id). Ids are therefore not ``max + 1``: ``{"schedule-2"}`` gives
``schedule-3`` because ``schedule-2`` is taken.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from .fold import FoldedSchedule, ScheduleFold

__all__ = ["SCHEDULE_ID_PREFIX", "allocate_schedule_id", "allocate_schedule_id_after"]

SCHEDULE_ID_PREFIX: Final = "schedule-"


def allocate_schedule_id(folded: FoldedSchedule) -> str:
    """The next id for a create appended after ``folded``; reads only ``seen_ids``."""
    seen = frozenset(folded.seen_ids)
    return _first_unseen(len(seen), seen.__contains__)


def allocate_schedule_id_after(state: ScheduleFold) -> str:
    """:func:`allocate_schedule_id` on a fold in progress, without copying its ids."""
    return _first_unseen(state.seen_count, state.is_seen)


def _first_unseen(seen_count: int, is_seen: Callable[[str], bool]) -> str:
    number = seen_count + 1
    while is_seen(f"{SCHEDULE_ID_PREFIX}{number}"):
        number += 1
    return f"{SCHEDULE_ID_PREFIX}{number}"

"""Allocation of never-reused, session-local schedule ids (``schedule-N``).

Theory of operation: ``seen_ids`` holds every id ever created in the owned log
suffix, including deleted and finished ones. Starting from ``|seen| + 1`` and
probing upward until the candidate is unseen guarantees a fresh id without
assuming that earlier ids follow the ``schedule-N`` format (the decoder accepts
any trimmed id). Ids are therefore not ``max + 1``: ``{"schedule-2"}`` gives
``schedule-3`` because ``schedule-2`` is taken.
"""

from __future__ import annotations

from typing import Final

from .fold import FoldedSchedule

__all__ = ["SCHEDULE_ID_PREFIX", "allocate_schedule_id"]

SCHEDULE_ID_PREFIX: Final = "schedule-"


def allocate_schedule_id(folded: FoldedSchedule) -> str:
    """The next id for a create appended after ``folded``; reads only ``seen_ids``."""
    seen = frozenset(folded.seen_ids)
    number = len(seen) + 1
    while f"{SCHEDULE_ID_PREFIX}{number}" in seen:
        number += 1
    return f"{SCHEDULE_ID_PREFIX}{number}"

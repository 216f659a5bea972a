"""The reference with ScheduleIds spelled ``r-<n>`` instead of ``schedule-<n>``.

The README promises stable, session-local, never-reused ids but leaves their
format open (pinned detail SCH-ID-FORMAT). Importing this module patches the
schedule tools' id allocation in this process only (the reference files are
never edited), so readme-level tests can be shown not to depend on the format.
"""

from __future__ import annotations

from collections.abc import Callable

import dsh_reference.schedule.tools as tools
from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from dsh_reference.schedule.core import ScheduleFold

PREFIX = "r-"


def _first_unseen(seen_count: int, is_seen: Callable[[str], bool]) -> str:
    number = seen_count + 1
    while is_seen(f"{PREFIX}{number}"):
        number += 1
    return f"{PREFIX}{number}"


def allocate_remapped_id_after(state: ScheduleFold) -> str:
    """A fresh ``r-<n>`` id after the fold ``state``."""
    return _first_unseen(state.seen_count, state.is_seen)


tools.allocate_schedule_id_after = allocate_remapped_id_after  # type: ignore[assignment]
IMPLEMENTATION = REFERENCE

"""The payload a writer appends for one ``schedule/change``.

Every append of the plugin goes through :func:`encode_schedule_change`, and
every read through :func:`~.decode.decode_schedule_change_instant`: the layout
of the durable payload has exactly one place on each side. The reference writes
the version-1 changes exactly as :mod:`.protocol` types them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .protocol import ScheduleChange

__all__ = ["encode_schedule_change"]


def encode_schedule_change(change: ScheduleChange) -> Mapping[str, Any]:
    """The ``data`` of the ``schedule/change`` event that records ``change``."""
    return change

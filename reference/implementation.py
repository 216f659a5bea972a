"""The reference implementation, registered as entry point ``dsh.impl: reference``."""

from __future__ import annotations

from typing import Final

from dsh_reference.schedule.plugin import SCHEDULE_INVARIANT_PLUGIN, SCHEDULE_PLUGIN
from dsh_reference.time_context.plugin import (
    TIME_CONTEXT_INVARIANT_PLUGIN,
    TIME_CONTEXT_PLUGIN,
)
from pytest_dsh import PythonImplementation, __version__

__all__ = ["IMPLEMENTATION"]

IMPLEMENTATION: Final = PythonImplementation(
    name="reference",
    version=__version__,
    plugins={
        "schedule": SCHEDULE_PLUGIN,
        "schedule-invariant": SCHEDULE_INVARIANT_PLUGIN,
        "time-context": TIME_CONTEXT_PLUGIN,
        "time-context-invariant": TIME_CONTEXT_INVARIANT_PLUGIN,
    },
    capabilities=frozenset(
        {"schedule", "schedule-invariant", "time-context", "time-context-invariant", "process-zone"}
    ),
)

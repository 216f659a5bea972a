"""Hypothesis strategies for dsh-schedule, for this suite and for implementers.

Every strategy yields inputs *together with the answer the README expects*, so
a property test needs no oracle beyond the strategy itself:

* tool arguments: :func:`create_arguments` (valid, one selector) and
  :func:`invalid_create_arguments` (pre-queue failures with their closed value);
* ``at`` selectors: :func:`offset_at_strings` (valid offset strings and their
  canonical UTC instant), :func:`malformed_at_strings` (grammar, calendar and
  offset errors) and :func:`local_at_near_transitions` (local objects around
  the DST transitions of the pinned tzdata zones: gaps, overlaps and edges);
* event logs: :func:`schedule_logs` (valid ``schedule/change`` sequences and
  their fold) and :func:`corrupt_schedule_logs` (a valid log plus one change
  that breaks the replay policy).

Expected values are derived from first principles (the README's arithmetic,
the pinned ``tzdata`` tables shipped in ``dsh_fixtures``), never from an
implementation. Times are integer epoch milliseconds; ``iso_instant`` renders
the canonical ``YYYY-MM-DDTHH:mm:ss.sssZ`` form.

This module gathers them; each lives in the module named by what it generates
(:mod:`~pytest_dsh.strategies.tool_arguments`,
:mod:`~pytest_dsh.strategies.at_selectors`,
:mod:`~pytest_dsh.strategies.event_logs`; shared instants in
:mod:`~pytest_dsh.strategies.instants`).
"""

from __future__ import annotations

from pytest_dsh.strategies.at_selectors import (
    AT_SHAPE_MESSAGE,
    DST_SAMPLE_ZONES,
    GAP_MESSAGE,
    INVALID_OFFSET_MESSAGE,
    UNREAL_MESSAGE,
    AtCase,
    local_at_near_transitions,
    malformed_at_strings,
    offset_at_strings,
)
from pytest_dsh.strategies.event_logs import (
    CorruptLog,
    ScheduleLog,
    corrupt_schedule_logs,
    schedule_logs,
)
from pytest_dsh.strategies.instants import (
    JS_WHITESPACE,
    MAX_INSTANT_MS,
    MIN_INSTANT_MS,
    iso_instant,
    js_trim,
)
from pytest_dsh.strategies.tool_arguments import (
    AMBIGUOUS_EDGES,
    ANY_TRIM,
    blank_prompts,
    create_arguments,
    invalid_create_arguments,
    prompts,
)

__all__ = [
    "AMBIGUOUS_EDGES",
    "ANY_TRIM",
    "AT_SHAPE_MESSAGE",
    "DST_SAMPLE_ZONES",
    "GAP_MESSAGE",
    "INVALID_OFFSET_MESSAGE",
    "JS_WHITESPACE",
    "MAX_INSTANT_MS",
    "MIN_INSTANT_MS",
    "UNREAL_MESSAGE",
    "AtCase",
    "CorruptLog",
    "ScheduleLog",
    "blank_prompts",
    "corrupt_schedule_logs",
    "create_arguments",
    "invalid_create_arguments",
    "iso_instant",
    "js_trim",
    "local_at_near_transitions",
    "malformed_at_strings",
    "offset_at_strings",
    "prompts",
    "schedule_logs",
]


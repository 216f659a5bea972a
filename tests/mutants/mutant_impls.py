"""Deliberately wrong implementations: the reference with one behaviour broken.

Each ``MUTANTS`` entry patches one function of the reference *in the process
that imports this module* and exposes an implementation object. The test
module runs the conformance suite against each in a separate pytest process
and requires it to fail: a suite that passes a wrong implementation is not
testing that behaviour.
"""

from __future__ import annotations

import json
import os
from typing import Any

import dsh_reference.schedule.core.at_selector as at_selector
import dsh_reference.schedule.owner as owner
import dsh_reference.schedule.tools as tools
import dsh_reference.time_context.core.preparation as preparation
from dsh_reference.implementation import IMPLEMENTATION as REFERENCE

_original_reading_due = preparation.reading_due
_original_elapsed_text = preparation.elapsed_text
_original_due_decision = owner.due_decision


def _exclusive_boundary(now_ms: int, last_ms: int | None, interval_ms: int) -> bool:
    if last_ms is not None and interval_ms > 0 and now_ms - last_ms == interval_ms:
        return False
    return _original_reading_due(now_ms, last_ms, interval_ms)


def _no_clamp(*args: Any, **kwargs: Any) -> str:
    # Pretend the wall clock never moves backwards: elapsed is measured from the
    # absolute difference.
    text = _original_elapsed_text(*args, **kwargs)
    return text if text != "0s" else "1s"


async def _optimistic_checkpoint(services: Any, session: Any) -> bool:
    return True


def _fires_a_minute_early(folded: Any, now: int) -> Any:
    return _original_due_decision(folded, now + 60_000)


def _ascii_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _untrusting_framing(record: Any) -> str:
    return owner_framing(record).replace("untrusted reminder content", "reminder content")


owner_framing = owner.render_reminder_framing
_original_resolve = at_selector.resolve_local_instant


def _later_overlap_instant(fields: Any, zone_key: str) -> int:
    from dsh_reference.schedule.core.local_instants import zone_offset_ms
    from pytest_dsh.tzdb import pinned_zone

    earlier = _original_resolve(fields, zone_key)
    zone = pinned_zone(zone_key)
    local = earlier + zone_offset_ms(zone, earlier)
    for later in (earlier + 3_600_000, earlier + 1_800_000):
        if later + zone_offset_ms(zone, later) == local:
            return later
    return earlier

MUTANTS = {
    "interval-boundary-exclusive": lambda: setattr(
        preparation, "reading_due", _exclusive_boundary
    ),
    "elapsed-never-clamped-to-zero": lambda: setattr(preparation, "elapsed_text", _no_clamp),
    "flush-failures-ignored": lambda: setattr(tools, "checkpoint", _optimistic_checkpoint),
    "reminders-fire-early": lambda: setattr(owner, "due_decision", _fires_a_minute_early),
    "tool-results-ascii-escaped": lambda: setattr(tools, "render_tool_value", _ascii_json),
    "overlap-resolves-to-the-later-instant": lambda: setattr(
        at_selector, "resolve_local_instant", _later_overlap_instant
    ),
    "framing-drops-untrusted": lambda: setattr(
        owner, "render_reminder_framing", _untrusting_framing
    ),
}

MUTANTS[os.environ["DSH_MUTANT"]]()
IMPLEMENTATION = REFERENCE

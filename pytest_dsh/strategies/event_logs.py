"""Strategies for ``schedule/change`` event logs: valid sequences with their
fold, and corrupt ones whose last change breaks the replay policy."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from pytest_dsh.strategies.instants import (
    iso_instant,
    js_trim,
    parse_instant,
)
from pytest_dsh.strategies.tool_arguments import prompts

__all__ = ["CorruptLog", "ScheduleLog", "corrupt_schedule_logs", "schedule_logs"]


# -- event logs ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScheduleLog:
    """A valid sequence of ``schedule/change`` payloads and its fold: the active
    records in creation order (``scheduledAt`` already advanced) and every id
    the log ever created."""

    changes: tuple[dict[str, Any], ...]
    active: tuple[dict[str, Any], ...]
    seen_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CorruptLog:
    """A log whose replay must fail, and the rule the last change breaks."""

    changes: tuple[dict[str, Any], ...]
    rule: str


def _record(draw: st.DrawFn, schedule_id: str, kind: str, target_ms: int) -> dict[str, Any]:
    prompt = js_trim(draw(prompts(max_size=12)))
    scheduled_at = iso_instant(target_ms)
    if kind == "after":
        seconds = draw(st.integers(1, 10**7))
        return {"id": schedule_id, "kind": "after", "prompt": prompt, "afterSeconds": seconds,
                "scheduledAt": scheduled_at}
    if kind == "every":
        seconds = draw(st.integers(300, 10**6))
        return {"id": schedule_id, "kind": "every", "prompt": prompt, "everySeconds": seconds,
                "scheduledAt": scheduled_at}
    return {"id": schedule_id, "kind": "at", "prompt": prompt, "scheduledAt": scheduled_at}


def _next_target(record: Mapping[str, Any], accepted_ms: int) -> int:
    target = parse_instant(record["scheduledAt"])
    interval = int(record["everySeconds"]) * 1000
    return target + ((accepted_ms - target) // interval + 1) * interval


@st.composite
def schedule_logs(
    draw: st.DrawFn,
    *,
    start_ms: int = 1_767_225_600_000,
    max_changes: int = 12,
) -> ScheduleLog:
    """Valid logs: creates with ids ``schedule-N``, deletes and dispatches of
    active records, Every dispatches at or after the record's target.

    Targets lie in the year after ``start_ms``; open the host before
    ``start_ms`` when no record may be due yet.
    """
    active: dict[str, dict[str, Any]] = {}
    seen: list[str] = []
    written: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, max_changes))):
        choices = ["create"] + (["delete", "dispatch"] if active else [])
        operation = draw(st.sampled_from(choices))
        if operation == "create":
            schedule_id = f"schedule-{len(seen) + 1}"
            kind = draw(st.sampled_from(("after", "at", "every")))
            target = start_ms + draw(st.integers(1, 365 * 86_400)) * 1000
            record = _record(draw, schedule_id, kind, target)
            seen.append(schedule_id)
            active[schedule_id] = record
            written.append({"version": 1, "operation": "create", "schedule": record})
            continue
        schedule_id = draw(st.sampled_from(sorted(active)))
        record = active[schedule_id]
        if operation == "delete":
            del active[schedule_id]
            written.append({"version": 1, "operation": "delete", "id": schedule_id})
        elif record["kind"] != "every":
            del active[schedule_id]
            written.append({"version": 1, "operation": "dispatch", "id": schedule_id})
        else:
            target = parse_instant(record["scheduledAt"])
            accepted = target + draw(st.integers(0, 10 * record["everySeconds"] * 1000))
            written.append({"version": 1, "operation": "dispatch", "id": schedule_id,
                            "acceptedAt": iso_instant(accepted)})
            active[schedule_id] = {**record,
                                   "scheduledAt": iso_instant(_next_target(record, accepted))}
    return ScheduleLog(tuple(written), tuple(active.values()), tuple(seen))


def _breaking_changes(log: ScheduleLog) -> list[tuple[str, dict[str, Any]]]:
    far = "2027-06-01T00:00:00.000Z"
    active = {record["id"]: record for record in log.active}
    inactive = [sid for sid in log.seen_ids if sid not in active]
    options: list[tuple[str, dict[str, Any]]] = [
        ("unknown version", {"version": 2, "operation": "delete", "id": "schedule-1"}),
        ("unknown operation", {"version": 1, "operation": "update", "id": "schedule-1"}),
        ("delete of an unknown id", {"version": 1, "operation": "delete", "id": "schedule-0"}),
        ("dispatch of an unknown id", {"version": 1, "operation": "dispatch", "id": "nope"}),
        ("extra field", {"version": 1, "operation": "create", "note": "x",
                         "schedule": {"id": "fresh", "kind": "at", "prompt": "p",
                                      "scheduledAt": far}}),
        ("non-canonical scheduledAt", {"version": 1, "operation": "create",
                                       "schedule": {"id": "fresh", "kind": "at", "prompt": "p",
                                                    "scheduledAt": "2027-06-01T00:00:00Z"}}),
        ("untrimmed prompt", {"version": 1, "operation": "create",
                              "schedule": {"id": "fresh", "kind": "at", "prompt": "p\ufeff",
                                           "scheduledAt": far}}),
    ]
    for sid in log.seen_ids:
        options.append(("reused id", {"version": 1, "operation": "create",
                                      "schedule": {"id": sid, "kind": "at", "prompt": "again",
                                                   "scheduledAt": far}}))
    for sid in inactive:
        options.append(("delete of an inactive id", {"version": 1, "operation": "delete",
                                                     "id": sid}))
        options.append(("dispatch of an inactive id", {"version": 1, "operation": "dispatch",
                                                       "id": sid}))
    for sid, record in active.items():
        if record["kind"] == "every":
            options.append(("every dispatch without acceptedAt",
                            {"version": 1, "operation": "dispatch", "id": sid}))
            early = iso_instant(parse_instant(record["scheduledAt"]) - 1)
            options.append(("every dispatch before its target",
                            {"version": 1, "operation": "dispatch", "id": sid,
                             "acceptedAt": early}))
        else:
            options.append(("one-shot dispatch with acceptedAt",
                            {"version": 1, "operation": "dispatch", "id": sid,
                             "acceptedAt": record["scheduledAt"]}))
        options.append(("delete with an extra field",
                        {"version": 1, "operation": "delete", "id": sid, "why": "x"}))
    return options


@st.composite
def corrupt_schedule_logs(draw: st.DrawFn, *, start_ms: int = 1_767_225_600_000) -> CorruptLog:
    """A valid log followed by one change the replay policy rejects (unknown
    version or operation, extra fields, reused ids, mismatched dispatch shapes,
    transitions against inactive records, malformed records)."""
    log = draw(schedule_logs(start_ms=start_ms, max_changes=8))
    rule, change = draw(st.sampled_from(_breaking_changes(log)))
    return CorruptLog((*log.changes, change), rule)

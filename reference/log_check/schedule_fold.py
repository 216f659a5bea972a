"""The dsh-schedule fold, advanced one event at a time.

``fold_schedule_events`` needs the whole list; a streaming check cannot keep
it. :class:`ScheduleFoldStream` applies the same preconditions, with the same
messages, through the same public pieces of the pure core (the strict decoder
and the every-occurrence arithmetic), holding only what the fold holds: the
active records and the set of ids seen. Its memory grows with the number of
schedule ids, never with the length of the log. ``tests/reference/log_check`` checks it
against ``fold_schedule_events`` on the golden logs, the corpus and generated
logs.
"""

from __future__ import annotations

from dsh_reference.js_semantics import is_safe_integer, to_js_json
from dsh_reference.schedule.core import (
    SCHEDULE_CHANGE_EVENT_TYPE,
    EveryRecord,
    ScheduleLogError,
    ScheduleRecord,
    decode_schedule_change,
    parse_iso_ms,
    resolve_every_occurrence,
)

__all__ = ["SEED_LENGTH_MESSAGE", "ScheduleFoldStream", "valid_seed_length"]

SEED_LENGTH_MESSAGE = "schedule seedLength must be within the supplied event log"


def valid_seed_length(value: object) -> int | None:
    """``header.seedLength`` as the fold reads it (``None``/absent is 0), or ``None``
    when it can never be in range (negative, fractional, not a number)."""
    if value is None:
        return 0
    if is_safe_integer(value) and value >= 0:
        return int(value)
    return None


class ScheduleFoldStream:
    """Fold the owned suffix event by event; :meth:`apply` raises :class:`ScheduleLogError`."""

    def __init__(self) -> None:
        self._active: dict[str, ScheduleRecord] = {}
        self._seen: set[str] = set()

    def apply(self, event_type: object, data: object) -> None:
        if event_type != SCHEDULE_CHANGE_EVENT_TYPE:
            return
        change = decode_schedule_change(data)
        if change["operation"] == "create":
            record = change["schedule"]
            if record["id"] in self._seen:
                raise ScheduleLogError(f"schedule id {to_js_json(record['id'])} was reused")
            self._seen.add(record["id"])
            self._active[record["id"]] = record
            return
        schedule_id = change["id"]
        target = self._active.get(schedule_id)
        if target is None:
            raise ScheduleLogError(
                f"schedule {change['operation']} targets inactive id {to_js_json(schedule_id)}"
            )
        if change["operation"] == "delete":
            del self._active[schedule_id]
            return
        accepted_at = change.get("acceptedAt")
        if target["kind"] != "every":
            if accepted_at is not None:
                raise ScheduleLogError("one-shot dispatch must not contain acceptedAt")
            del self._active[schedule_id]
            return
        if accepted_at is None:
            raise ScheduleLogError("every dispatch must contain acceptedAt")
        accepted_ms = parse_iso_ms(accepted_at)
        assert accepted_ms is not None  # the decoder accepted it as a real instant
        occurrence = resolve_every_occurrence(target, accepted_ms)
        if occurrence.next_scheduled_at is None:
            del self._active[schedule_id]
        else:
            advanced: EveryRecord = {**target, "scheduledAt": occurrence.next_scheduled_at}
            self._active[schedule_id] = advanced

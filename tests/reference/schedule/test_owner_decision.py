"""The live owner reuses a decision only for the same fold at the same instant.

The owner decides in its drive and again inside the maintenance claim; when
nothing was appended in between, the second decision is the first one. These
tests pin that the reuse never outlives a change of the fold or of the time.
"""

from __future__ import annotations

from typing import Any

from dsh_reference.schedule.core import (
    EveryBatchDue,
    OneShotDue,
    Wait,
    due_decision_after,
    parse_iso_ms,
)
from dsh_reference.schedule.owner import LiveOwner
from dsh_reference.schedule.transactions import AgentQueue

CREATED = "2026-01-01T00:00:00.000Z"


class _Agent:
    id = "root"
    is_live = True


class _Logger:
    def __init__(self) -> None:
        self.warnings: list[str] = []

    def warn(self, message: str) -> None:
        self.warnings.append(message)


class _Services:
    def __init__(self) -> None:
        self.logger = _Logger()


def _change(seq: int, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "schedule/change", "seq": seq, "time": 0, "data": data}


def _create_at(seq: int, schedule_id: str, scheduled_at: str) -> dict[str, Any]:
    return _change(seq, {"version": 1, "operation": "create", "schedule": {
        "id": schedule_id, "kind": "at", "prompt": schedule_id, "scheduledAt": scheduled_at}})


def _owner() -> LiveOwner:
    return LiveOwner(_Agent(), _Services(), AgentQueue())  # type: ignore[arg-type]


def test_the_same_fold_at_the_same_instant_gives_the_same_decision() -> None:
    owner = _owner()
    log = [_create_at(0, "a", "2026-01-01T00:00:01.000Z")]
    state = owner.projection.read(log)
    now = parse_iso_ms("2026-01-01T00:00:02.000Z")
    first = owner._decide(state, now)
    assert isinstance(first, OneShotDue)
    assert owner._decide(owner.projection.read(log), now) is first


def test_an_event_folded_since_the_last_decision_makes_a_new_one() -> None:
    owner = _owner()
    log = [_create_at(0, "a", "2026-01-01T00:00:01.000Z")]
    now = parse_iso_ms("2026-01-01T00:00:02.000Z")
    assert isinstance(owner._decide(owner.projection.read(log), now), OneShotDue)
    log.append(_change(1, {"version": 1, "operation": "dispatch", "id": "a"}))
    state = owner.projection.read(log)  # the same state object, advanced
    assert owner._decide(state, now) == Wait(None) == due_decision_after(state, now)


def test_another_instant_makes_a_new_decision() -> None:
    owner = _owner()
    log = [_change(0, {"version": 1, "operation": "create", "schedule": {
        "id": "e", "kind": "every", "prompt": "e", "everySeconds": 300,
        "scheduledAt": "2026-01-01T00:05:00.000Z"}})]
    state = owner.projection.read(log)
    early = owner._decide(state, parse_iso_ms(CREATED))
    assert early == Wait(parse_iso_ms("2026-01-01T00:05:00.000Z"))
    late = owner._decide(state, parse_iso_ms("2026-01-01T00:12:00.000Z"))
    assert isinstance(late, EveryBatchDue)
    assert late.accepted_at == "2026-01-01T00:12:00.000Z"
    assert late.reminders[0].occurrence_at == "2026-01-01T00:10:00.000Z"


def test_a_refolded_log_makes_a_new_decision() -> None:
    owner = _owner()
    now = parse_iso_ms("2026-01-01T00:00:02.000Z")
    first_log = [_create_at(0, "a", "2026-01-01T00:00:01.000Z")]
    assert isinstance(owner._decide(owner.projection.read(first_log), now), OneShotDue)
    # Another log of the same length (a resume from other storage): refolded.
    other_log = [_create_at(0, "b", "2026-01-01T00:00:03.000Z")]
    state = owner.projection.read(other_log)
    assert owner._decide(state, now) == Wait(parse_iso_ms("2026-01-01T00:00:03.000Z"))

"""A stateful property: random sequences of management calls, virtual time,
wall-clock jumps and crashes against a small model of the README.

Calls also race (two creates started together while a flush hangs), are
aborted before or during their preflight, meet failing preflights and
barriers, and time passes while the agent is busy in maintenance.

The model keeps the active records (id, kind, prompt, target, interval) in
creation order. Whenever time reaches a target the live owner must act:
a due one-shot is dispatched and leaves the list; a due Every record moves to
its first creation-aligned target after the decision time. After every step
``schedule_list`` must equal the model, and every dispatch written since the
agent started must have produced its reminder framing.

Level: readme. Views are compared in what the README states of them (the id,
the trimmed prompt somewhere in the view, scheduledAt as an RFC 3339 UTC
instant, state and deliveryMode); their other fields are pinned detail
SCH-VIEW-FIELDS. An aborted call's answer is pinned detail SCH-ABORT-ANSWER:
the model adopts whatever record the implementation then lists.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    rule,
    run_state_machine_as_test,
)

from dsh_conformance.expect import readme
from dsh_conformance.layout_free import closed_codes_in, mentions
from dsh_conformance.schedule.session_logs import (
    START_MS,
    batch_framing,
    instants_in,
    one_shot_framing,
    reminder_framings,
    suite_instant,
)
from pytest_dsh.strategies.schedule import (
    ANY_TRIM,
    iso_instant,
    js_trim,
    offset_at_strings,
    prompts,
)

pytestmark = [pytest.mark.dsh_requires("schedule")]

#: Padded only with what any trim removes: the README says only "trimmed"
#: (the official build's wider set is pin SCH-TRIM-WHITESPACE).
PROMPTS = prompts(max_size=8, padding=ANY_TRIM)

HOUR_S = 3600


@dataclass
class ModelRecord:
    id: str
    kind: str
    prompt: str
    target_ms: int
    interval_ms: int | None = None
    after_seconds: int | None = None


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class ScheduleMachine(RuleBasedStateMachine):
    def __init__(self, implementation: Any) -> None:
        super().__init__()
        self.host = implementation.open_host(start_ms=START_MS)
        self.host.load_plugin("schedule")
        self.agent = self.host.create_agent()
        self.session_id = self.agent.session_id
        self.active: dict[str, ModelRecord] = {}
        self.finished: list[str] = []
        self.created = 0
        self.used_ids: set[str] = set()
        self.base = 0  # framings are checked for dispatches from this log index on
        self.expected_texts: list[str] = []

    def teardown(self) -> None:
        self.host.close()

    @property
    def now(self) -> int:
        return self.host.now_ms

    # -- the model's reaction to time --------------------------------------------------

    def settle(self, since_ms: int | None = None) -> None:
        """Apply what the owner must have done by now.

        With ``since_ms`` the wall clock ran continuously from there, so each
        target is handled at its own instant; otherwise (a jump, a resume) all
        overdue records are handled now. At one instant, due one-shots come
        first (one turn each, by target then creation), then one batch of all
        due Every records.
        """
        now = self.now
        while True:
            targets = [r.target_ms for r in self.active.values() if r.target_ms <= now]
            if not targets:
                return
            instant = now if since_ms is None else max(min(targets), since_ms)
            self._handle(instant)

    def _handle(self, instant: int) -> None:
        records = [r for r in self.active.values() if r.target_ms <= instant]
        due = sorted((r for r in records if r.interval_ms is None), key=lambda r: r.target_ms)
        for record in due:
            self.expected_texts.append(one_shot_framing(
                _json(record.id), iso_instant(record.target_ms), _json(record.prompt)))
            del self.active[record.id]
            self.finished.append(record.id)
        batch = sorted((r for r in records if r.interval_ms is not None), key=lambda r: r.target_ms)
        if batch:
            self._batch(batch, instant)

    def _batch(self, batch: list[ModelRecord], now: int) -> None:
        reminders = []
        for record in batch:
            assert record.interval_ms is not None, readme(
                "SCH-003, SCH-035, SCH-042..SCH-045, SCH-050 (the model)",
                "ScheduleMachine  batch: record.interval_ms is not None",
                record.interval_ms,
            )
            steps = (now - record.target_ms) // record.interval_ms
            occurrence = record.target_ms + steps * record.interval_ms
            reminders.append({"schedule_id": record.id, "occurrence_at": iso_instant(occurrence),
                              "reminder_prompt": record.prompt})
            record.target_ms = occurrence + record.interval_ms
        self.expected_texts.append(batch_framing(_json(reminders)))

    def _expect_created(self, value: dict[str, Any], record: ModelRecord) -> None:
        assert mentions(value, record.prompt), readme(
            "SCH-015, SCH-034, SCH-060", f"the create value to carry the trimmed prompt "
            f"{record.prompt!r}", value)
        assert instants_in(value.get("scheduledAt")) == {record.target_ms}, readme(
            "SCH-015, SCH-030, SCH-034", f"the create value's scheduledAt to be "
            f"{iso_instant(record.target_ms)}", value)
        self.active[record.id] = record

    def _adopt_new_records(self, prompt: str, after_seconds: int) -> None:
        """Take into the model the records the implementation lists that it does not
        know (a create whose answer the README leaves open, e.g. an aborted one)."""
        listed = self.agent.call_tool("schedule_list", {}).value
        if not isinstance(listed, list):
            return  # the list invariant reports it
        for view in listed:
            schedule_id = view.get("id")
            if schedule_id in self.active or not isinstance(schedule_id, str):
                continue
            (target,) = instants_in(view.get("scheduledAt")) or {self.now}
            self._fresh_id(view)
            self.active[schedule_id] = ModelRecord(schedule_id, "after", js_trim(prompt),
                                                   target, after_seconds=after_seconds)

    def _fresh_id(self, value: dict[str, Any]) -> str:
        # Ids are the implementation's: the README promises them never reused, not their
        # schedule-N format (pinned detail SCH-ID-FORMAT).
        self.created += 1
        schedule_id = value.get("id") if isinstance(value, dict) else None
        assert isinstance(schedule_id, str) and schedule_id not in self.used_ids, readme(
            "SCH-015, SCH-034 (the model)", "a create to answer an id never used before in "
            "the session", value)
        self.used_ids.add(schedule_id)
        return schedule_id

    # -- rules ------------------------------------------------------------------------

    @rule(prompt=PROMPTS, seconds=st.integers(1, 2 * HOUR_S))
    def create_after(self, prompt: str, seconds: int) -> None:
        arguments = {"prompt": prompt, "after_seconds": seconds}
        value = self.agent.call_tool("schedule_create", arguments)
        record = ModelRecord(self._fresh_id(value.value), "after", js_trim(prompt),
                             self.now + seconds * 1000, after_seconds=seconds)
        self._expect_created(value.value, record)

    @rule(prompt=PROMPTS, seconds=st.integers(300, 2 * HOUR_S))
    def create_every(self, prompt: str, seconds: int) -> None:
        arguments = {"prompt": prompt, "every_seconds": seconds}
        value = self.agent.call_tool("schedule_create", arguments)
        record = ModelRecord(self._fresh_id(value.value), "every", js_trim(prompt),
                             self.now + seconds * 1000, interval_ms=seconds * 1000)
        self._expect_created(value.value, record)

    @rule(prompt=PROMPTS, data=st.data())
    def create_at(self, prompt: str, data: st.DataObject) -> None:
        horizon = self.now + 3 * HOUR_S * 1000
        case = data.draw(offset_at_strings(after_ms=self.now, until_ms=horizon))
        value = self.agent.call_tool("schedule_create", {"prompt": prompt, "at": case.at})
        target = suite_instant(value.value.get("scheduledAt"))
        assert target == case.scheduled_at, readme(
            "SCH-015, SCH-030", f"the at {case.at!r} to be accepted as the instant "
            f"{case.scheduled_at} (any RFC 3339 UTC spelling)", value.value)
        record = ModelRecord(self._fresh_id(value.value), "at", js_trim(prompt), _parse(target))
        self._expect_created(value.value, record)

    @rule(data=st.data())
    def delete(self, data: st.DataObject) -> None:
        candidates = [*self.active, *self.finished, "schedule-999"]
        schedule_id = data.draw(st.sampled_from(candidates))
        value = self.agent.call_tool("schedule_delete", {"id": schedule_id}).value
        if schedule_id in self.active:
            # The fields of a successful delete are pinned detail SCH-VIEW-FIELDS.
            assert not closed_codes_in(value) and value.get("deleted") is not False, readme(
                "SCH-036", "the delete of an active id to succeed", value)
            del self.active[schedule_id]
            self.finished.append(schedule_id)
        else:
            assert (
                value == {"id": schedule_id, "deleted": False, "code": "schedule_not_found"}
            ), readme(
                "SCH-003, SCH-035, SCH-042..SCH-045, SCH-050 (the model)",
                "ScheduleMachine delete: value == {'id': schedule_id, 'deleted': False, 'code': "
                "'schedule_not_found'}",
                value,
            )

    @rule(first=PROMPTS, second=PROMPTS,
          seconds=st.integers(1, 2 * HOUR_S))
    def racing_creates(self, first: str, second: str, seconds: int) -> None:
        self.host.faults.fail_flushes("hang")
        calls = [
            self.agent.start_tool("schedule_create", {"prompt": p, "after_seconds": seconds})
            for p in (first, second)
        ]
        assert [call.done for call in calls] == [False, False], readme(
            "SCH-033", "racing creates to stay pending while the queue's flush hangs",
            [call.done for call in calls])
        self.host.faults.release_hung_flush()
        for prompt, call in zip((first, second), calls, strict=True):
            created = call.result().value
            record = ModelRecord(self._fresh_id(created), "after", js_trim(prompt),
                                 self.now + seconds * 1000, after_seconds=seconds)
            self._expect_created(created, record)

    @rule(prompt=PROMPTS, during_preflight=st.booleans())
    def aborted_create(self, prompt: str, during_preflight: bool) -> None:
        arguments = {"prompt": prompt, "after_seconds": 60}
        # No README sentence says what an aborted call answers (pin SCH-ABORT-ANSWER);
        # the model adopts whatever record the implementation then lists.
        if not during_preflight:
            self.agent.start_tool("schedule_create", arguments, aborted=True).result()
        else:
            self.host.faults.fail_flushes("hang")
            call = self.agent.start_tool("schedule_create", arguments)
            call.abort()
            self.host.faults.release_hung_flush()
            call.result()
        self._adopt_new_records(prompt, 60)

    @rule(prompt=PROMPTS, outcome=st.sampled_from(["falsy", "rejected", "detached"]),
          at_barrier=st.booleans())
    def create_with_failing_flush(self, prompt: str, outcome: str, at_barrier: bool) -> None:
        self.host.faults.fail_flushes(outcome, first=2 if at_barrier else 1)  # type: ignore[arg-type]
        value = self.agent.call_tool("schedule_create", {"prompt": prompt, "after_seconds": 600})
        self.host.faults.clear()
        assert closed_codes_in(value.value) == {"persistence_uncertain"}, readme(
            "SCH-013, SCH-034", f"a create whose flush is {outcome} to answer "
            "persistence_uncertain", value.value)
        if at_barrier:  # the create is in the log: the record is active (SCH-038)
            known = set(self.active)
            self._adopt_new_records(prompt, 600)
            assert len(set(self.active) - known) == 1, readme(
                "SCH-013, SCH-038", "a create whose post-append barrier failed to stay in the "
                "log, active, and be listed after the next preflight", sorted(self.active))

    @rule(seconds=st.integers(0, 2 * HOUR_S))
    def advance_while_busy(self, seconds: int) -> None:
        hold = self.agent.hold_maintenance()
        self.host.advance(seconds)
        hold.release()
        self.settle()  # what fell due waited for idle: decided now

    @rule(seconds=st.integers(0, 2 * HOUR_S))
    def advance(self, seconds: int) -> None:
        since = self.now
        self.host.advance(seconds)
        self.settle(since)

    @rule(seconds=st.integers(-3 * HOUR_S, 3 * HOUR_S))
    def jump_wall_clock(self, seconds: int) -> None:
        self.host.set_wall_clock(self.now + seconds * 1000)
        self.agent.call_tool("schedule_list", {})  # a preflight makes the owner recompute
        self.settle()

    @rule(gap=st.integers(0, 2 * HOUR_S))
    def crash_and_resume(self, gap: int) -> None:
        self.host.crash()
        self.host.advance(gap)
        self.base = len(self.host.durable_events(self.session_id))
        self.expected_texts = []
        self.agent = self.host.resume(self.session_id)
        self.settle()

    # -- invariants --------------------------------------------------------------------

    def _facts(self, view: Any, prompt: str) -> Any:
        """What the README states of a listed view, in the model's terms."""
        if not isinstance(view, dict):
            return view
        instants = sorted(instants_in(view.get("scheduledAt")))
        return (view.get("id"), mentions(view, prompt),
                iso_instant(instants[0]) if len(instants) == 1 else view.get("scheduledAt"),
                view.get("state"), view.get("deliveryMode"))

    @invariant()
    def list_equals_the_model(self) -> None:
        value = self.agent.call_tool("schedule_list", {}).value
        records = list(self.active.values())
        expected = [
            (r.id, True, iso_instant(r.target_ms),
             "scheduled" if self.now < r.target_ms else "overdue", "session-local")
            for r in records
        ]
        observed: Any = value
        if isinstance(value, list):
            observed = [self._facts(view, records[n].prompt if n < len(records) else "")
                        for n, view in enumerate(value)]
        assert observed == expected, readme(
            "SCH-003, SCH-035, SCH-042..SCH-045, SCH-050 (the model)",
            "schedule_list to list the model's active records in creation order "
            "(id, prompt mentioned, scheduledAt, state, deliveryMode)",
            value,
        )

    @invariant()
    def dispatches_appear_as_framed_follow_ups(self) -> None:
        events = self.agent.events()[self.base:]
        assert reminder_framings(events) == self.expected_texts, readme(
            "SCH-003, SCH-035, SCH-042..SCH-045, SCH-050 (the model)",
            "ScheduleMachine dispatches appear as framed follow ups: reminder_framings(events) == "
            "self.expected_texts",
            reminder_framings(events),
        )


def _parse(text: str) -> int:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return round(moment.timestamp() * 1000)


@pytest.mark.spec(
    "SCH-003", "SCH-012", "SCH-013", "SCH-033", "SCH-035", "SCH-042", "SCH-043", "SCH-044",
    "SCH-045", "SCH-050", "SCH-053",
)
def test_schedule_behaves_like_its_model(dsh_implementation):
    run_state_machine_as_test(
        lambda: ScheduleMachine(dsh_implementation),
        settings=settings(max_examples=25, stateful_step_count=20, deadline=None),
    )

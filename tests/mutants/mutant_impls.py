"""Deliberately wrong implementations: the reference with one behaviour broken.

Each :data:`MUTANTS` entry is a small, realistic bug a plugin author could
make, built by wrapping or replacing one function of the reference *in the
process that imports this module* (the reference files are never edited). It
names the conformance module that must fail it and a test id expected among the
failures. ``test_suite_catches_mutants.py`` runs that module against each
mutant in a separate pytest process (``DSH_MUTANT=<name>``), so patches never
leak between mutants; ``DSH_MUTANT=<name>,<name>`` applies several together.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import dsh_reference.schedule.core.at_selector as at_selector
import dsh_reference.schedule.core.decision as decision
import dsh_reference.schedule.core.fold as fold
import dsh_reference.schedule.core.invariant as s_invariant
import dsh_reference.schedule.core.projection as projection
import dsh_reference.schedule.core.records as records
import dsh_reference.schedule.core.tool_arguments as tool_arguments
import dsh_reference.schedule.owner as owner
import dsh_reference.schedule.plugin as schedule_plugin
import dsh_reference.schedule.tools as tools
import dsh_reference.schedule.transactions as transactions
import dsh_reference.time_context.core.baselines as baselines
import dsh_reference.time_context.core.config as tc_config
import dsh_reference.time_context.core.formatting as formatting
import dsh_reference.time_context.core.invariant as tc_invariant
import dsh_reference.time_context.core.preparation as preparation
import dsh_reference.time_context.core.reading as reading
import dsh_reference.time_context.core.scheduling as scheduling
import dsh_reference.time_context.plugin as tc_plugin
from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from dsh_reference.schedule.core import (
    NOT_FUTURE,
    TIME_OUT_OF_RANGE,
    ScheduleInputError,
)
from dsh_reference.schedule.core.instants import MAX_EPOCH_MS, format_iso_ms, parse_iso_ms
from pytest_dsh.contract import ToolDefinition, hookimpl


@dataclass(frozen=True)
class Mutant:
    """One broken behaviour, the conformance module that owns it and a test that must fail."""

    description: str
    module: str
    expected_failure: str
    apply: Callable[[], None]


def _patch(target: Any, name: str, make: Callable[[Any], Any]) -> Callable[[], None]:
    """Replace ``target.name`` by ``make(original)`` when the mutant is applied."""

    def apply() -> None:
        setattr(target, name, make(getattr(target, name)))

    return apply


# -- time-context ----------------------------------------------------------------------


def _exclusive_boundary(original: Any) -> Any:
    def reading_due(now_ms: int, last_ms: int | None, interval_ms: int) -> bool:
        if last_ms is not None and interval_ms > 0 and now_ms - last_ms == interval_ms:
            return False
        return original(now_ms, last_ms, interval_ms)

    return reading_due


def _rollback_suppresses(original: Any) -> Any:
    def reading_due(now_ms: int, last_ms: int | None, interval_ms: int) -> bool:
        if interval_ms and last_ms is not None:
            return now_ms - last_ms >= interval_ms
        return original(now_ms, last_ms, interval_ms)

    return reading_due


def _any_plugin_source(original: Any) -> Any:
    def is_reading(event: Any) -> bool:
        data = event.get("data")
        source = data.get("source") if isinstance(data, dict) else None
        return event.get("type") == "user/message" and isinstance(source, dict) and (
            source.get("kind") == "plugin"
        )

    return is_reading


def _shadowed_readings_forgotten(original: Any) -> Any:
    def latest_reading_time_ms(events: Any) -> int | None:
        shadowed = {seq for event in events for seq in event.get("sourceEventSeqs", ())}
        return original([event for event in events if event.get("seq") not in shadowed])

    return latest_reading_time_ms


def _no_clamp(original: Any) -> Any:
    # Pretend the wall clock never moves backwards.
    def elapsed_text(*args: Any, **kwargs: Any) -> str:
        text = original(*args, **kwargs)
        return text if text != "0s" else "1s"

    return elapsed_text


def _later_step_crosses_turns(original: Any) -> Any:
    def same_turn_reading_time_ms(events: Any, turn: int) -> int | None:
        for event in reversed(events):
            if reading.is_reading(event):
                return int(event["time"])
        return None

    return same_turn_reading_time_ms


def _rounds_to_nearest_second(original: Any) -> Any:
    def format_timestamp(epoch_ms: int, zone: Any, label: str) -> str:
        return original(epoch_ms + 500, zone, label)

    return format_timestamp


def _zero_offset_as_z(original: Any) -> Any:
    def format_offset(offset_seconds: int) -> str:
        return "Z" if offset_seconds == 0 else original(offset_seconds)

    return format_offset


def _offset_seconds_dropped(original: Any) -> Any:
    def format_offset(offset_seconds: int) -> str:
        return original(offset_seconds)[:6]

    return format_offset


def _zero_seconds_dropped(original: Any) -> Any:
    def format_duration(elapsed_ms: int) -> str:
        text = original(elapsed_ms)
        return text[: -len(" 0s")] if text.endswith(" 0s") else text

    return format_duration


def _misnamed_source(original: Any) -> Any:
    def reading_message(text: str) -> dict[str, Any]:
        message = original(text)
        message["source"] = {"kind": "plugin", "plugin": "time_context"}
        return message

    return reading_message


@hookimpl(tryfirst=True)
def _reads_aborted_steps(self: Any, agent: Any, turn: int, step: int, signal: Any) -> None:
    text = tc_plugin.prepare_reading(
        agent.session.events, now_ms=self._clock.now_ms(), turn=turn, step=step,
        settings=self.settings,
    )
    if text is not None:
        agent.inject(tc_plugin.reading_message(text))


def _zone_checked_first(original: Any) -> Any:
    def parse_config(config: Any, *, process_zone: Any) -> Any:
        zone = config.get("timeZone")
        if zone is not None:
            tc_config.validate_time_zone(zone)
        return original(config, process_zone=process_zone)

    return parse_config


def _accepts_future_timestamps(original: Any) -> Any:
    def parse_rendered_timestamp(text: str) -> int | None:
        return None if original(text) is None else -(2**53) + 1

    return parse_rendered_timestamp


def _skips_registration_scan(original: Any) -> Any:
    def check_log(events: Any, *, seed_length: int = 0) -> None:
        return None

    return check_log


# -- schedule --------------------------------------------------------------------------


def _optimistic_checkpoint(original: Any) -> Any:
    async def checkpoint(services: Any, session: Any) -> bool:
        return True

    return checkpoint


def _fires_a_minute_early(original: Any) -> Any:
    def due_decision_after(folded: Any, now: int) -> Any:
        return original(folded, now + 60_000)

    return due_decision_after


def _ascii_json(original: Any) -> Any:
    return lambda value: json.dumps(value, separators=(",", ":"))


def _untrusting_framing(original: Any) -> Any:
    return lambda record: original(record).replace(
        "untrusted reminder content", "reminder content"
    )


def _trailing_newline(original: Any) -> Any:
    return lambda record: original(record) + "\n"


def _batch_reversed(original: Any) -> Any:
    return lambda reminders: original(list(reversed(reminders)))


def _later_overlap_instant(original: Any) -> Any:
    from dsh_reference.schedule.core.local_instants import zone_offset_ms
    from pytest_dsh.contract.tzdb import pinned_zone

    def resolve_local_instant(fields: Any, zone_key: str) -> int:
        earlier = original(fields, zone_key)
        zone = pinned_zone(zone_key)
        local = earlier + zone_offset_ms(zone, earlier)
        for later in (earlier + 3_600_000, earlier + 1_800_000):
            if later + zone_offset_ms(zone, later) == local:
                return later
        return earlier

    return resolve_local_instant


def _gap_shifted_forward(original: Any) -> Any:
    # What a naive "compatible" disambiguation does: a skipped wall time moves
    # forward by the gap instead of being rejected.
    def resolve_local_instant(fields: Any, zone_key: str) -> int:
        try:
            return original(fields, zone_key)
        except ScheduleInputError as exc:
            if exc.code != "invalid_rule":
                raise
            shifted = replace(fields, hour=fields.hour + 1) if fields.hour < 23 else fields
            return original(shifted, zone_key) - 3_600_000

    return resolve_local_instant


def _not_future_as_out_of_range(original: Any) -> Any:
    def future_instant(epoch_ms: object, now: object) -> str:
        try:
            return original(epoch_ms, now)
        except ScheduleInputError as exc:
            if exc.code == NOT_FUTURE:
                raise ScheduleInputError(TIME_OUT_OF_RANGE, exc.message) from None
            raise

    return future_instant


def _now_counts_as_future(original: Any) -> Any:
    def future_instant(epoch_ms: object, now: object) -> str:
        if epoch_ms == now and isinstance(now, int):
            return original(epoch_ms, now - 1)
        return original(epoch_ms, now)

    return future_instant


def _five_minutes_rejected(original: Any) -> Any:
    def checked_every_seconds(every_seconds: object) -> int:
        if every_seconds == 300:
            raise ScheduleInputError("frequency_too_high", "every_seconds must be above 300.")
        return original(every_seconds)

    return checked_every_seconds


def _reanchored_at_dispatch(original: Any) -> Any:
    # The next target counted from the acceptance time, not the creation anchor.
    def apply(self: Any, event: Any, *, commit: bool = True) -> None:
        original(self, event, commit=commit)
        data = event.get("data") if isinstance(event, dict) else None
        if not (commit and event.get("type") == "schedule/change" and isinstance(data, dict)
                and data.get("operation") == "dispatch" and data.get("acceptedAt")):
            return
        schedule_id = data.get("id")
        if schedule_id in self:
            accepted_ms = parse_iso_ms(data["acceptedAt"])
            assert accepted_ms is not None
            self._targets[schedule_id] = accepted_ms + self.record(schedule_id)[
                "everySeconds"] * 1000
            self._stale.add(schedule_id)

    return apply


def _replays_the_first_missed(original: Any) -> Any:
    return lambda record, target, now: record["scheduledAt"]


def _sorted_by_target(original: Any) -> Any:
    return lambda self: tuple(sorted(original(self), key=lambda record: record["scheduledAt"]))


def _ignores_fork_boundary(original: Any) -> Any:
    return lambda self, events, seed_length=0: original(self, events, 0)


def _ids_from_active_count(original: Any) -> Any:
    return lambda state: f"schedule-{len(state) + 1}"


def _trims_delete_ids(original: Any) -> Any:
    return lambda schedule_id: original(
        schedule_id.strip() if isinstance(schedule_id, str) else schedule_id
    )


def _always_deleted(original: Any) -> Any:
    return lambda schedule_id, *, deleted: original(schedule_id, deleted=True)


def _corrupt_as_internal(original: Any) -> Any:
    return tools.internal_error_result


def _uncertain_without_id(original: Any) -> Any:
    return lambda operation, schedule_id=None: original(operation)


async def _list_ignores_abort(self: Any, arguments: Any, call: Any) -> Any:
    if call.agent is not self._agent:
        return tools.internal_error_result()
    async with self._queue:
        if not await tools.checkpoint(self._services, self._agent.session):
            return tools.persistence_uncertain_result("list")
        self._durable_change()
        folded = self._fold()
        now = self._services.clock.now_ms()
        return [tools.schedule_view(record, now) for record in folded.active()]


async def _list_without_preflight(self: Any, arguments: Any, call: Any) -> Any:
    if call.agent is not self._agent:
        return tools.internal_error_result()
    async with self._queue:
        try:
            folded = self._fold()
        except tools._CorruptLog:
            return tools.corrupt_log_result()
        now = self._services.clock.now_ms()
        return [tools.schedule_view(record, now) for record in folded.active()]


def _delete_without_barrier(original: Any) -> Any:
    seen_lengths: dict[int, int] = {}

    async def checkpoint(services: Any, session: Any) -> bool:
        events = session.events
        previous = seen_lengths.get(id(session))
        seen_lengths[id(session)] = len(events)
        last = events[-1] if events else None
        if (
            previous is not None and previous != len(events) and last is not None
            and last["type"] == "schedule/change" and last["data"].get("operation") == "delete"
        ):
            return True
        return await original(services, session)

    return checkpoint


async def _dispatch_before_followup(self: Any) -> bool:
    if not self._runnable:
        return False
    folded = self._fold()
    if folded is None:
        return False
    due = self._decide(folded, self._services.clock.now_ms())
    if due is None or isinstance(due, owner.Wait):
        if due is not None:
            self._arm(due.target_ms)
        return False
    for change in owner._dispatch_changes(due):
        self._agent.session.append(owner.SCHEDULE_CHANGE_EVENT_TYPE, change)
    try:
        if isinstance(due, owner.OneShotDue):
            text = owner.render_reminder_framing(due.record)
        else:
            text = owner.render_every_batch_framing(due.reminders)
        self._agent.followup({"content": [{"type": "text", "text": text}], "source": owner._SOURCE})
    except Exception:
        return False
    return True


def _timer_wake_trusted() -> None:
    # After a timer wake the owner treats the armed target as reached, instead
    # of rereading the wall clock (which may have been stepped back).
    state: dict[str, Any] = {"target": None, "woke": False}
    arm, on_timer = owner.LiveOwner._arm, owner.LiveOwner._on_timer
    decide = owner.due_decision_after

    def armed(self: Any, target_ms: int | None) -> None:
        state.update(target=target_ms, woke=False)
        arm(self, target_ms)

    def woke(self: Any) -> None:
        state["woke"] = True
        on_timer(self)

    def due_decision(folded: Any, now: int) -> Any:
        if state["woke"] and state["target"] is not None:
            now = max(now, state["target"])
        return decide(folded, now)

    owner.LiveOwner._arm = armed  # type: ignore[method-assign]
    owner.LiveOwner._on_timer = woke  # type: ignore[method-assign]
    owner.due_decision_after = due_decision


@hookimpl
def _installs_on_children(self: Any, agent: Any) -> None:
    if self._stopping or agent.id in self._installed:
        return
    queue = schedule_plugin.AgentQueue()
    live = schedule_plugin.LiveOwner(agent, self._services, queue)
    dispose_tools = schedule_plugin.register_schedule_tools(
        agent, self._services, queue, live.request_drive
    )
    stop_status = agent.on_status(live.on_status)
    self._installed[agent.id] = schedule_plugin._Installed(live, dispose_tools, stop_status)
    live.start()


def _skips_candidates(original: Any) -> Any:
    return lambda self, events, candidate, seed_length=None: None


def _invariant_ignores_fork() -> None:
    checker = s_invariant.InvariantChecker
    log, candidate = checker.check_log, checker.check_candidate
    checker.check_log = lambda self, events, seed_length=None: log(  # type: ignore[method-assign]
        self, events, 0)
    checker.check_candidate = (  # type: ignore[method-assign]
        lambda self, events, event, seed_length=None: candidate(self, events, event, 0)
    )


def _set(target: Any, name: str, value: Any) -> Callable[[], None]:
    return lambda: setattr(target, name, value)


TC_CONFIG = "dsh_conformance.time_context.configuration.test_configuration"
TC_TIMING = "dsh_conformance.time_context.timing_semantics.test_timing_semantics"
TC_MODEL = "dsh_conformance.time_context.model_experience.test_model_experience"
TC_LIMITS = "dsh_conformance.time_context.known_limitations.test_known_limitations"
TC_INVARIANT = "dsh_conformance.time_context.timing_semantics.test_invariant"
TC_SURVIVORS = "dsh_conformance.time_context.timing_semantics.test_mutation_survivors"
TC_SURVIVORS_MODEL = "dsh_conformance.time_context.model_experience.test_mutation_survivors"
S_ABSOLUTE = "dsh_conformance.schedule.absolute_time_input.test_absolute_time_input"
S_COMPOSITION = "dsh_conformance.schedule.composition.test_composition"
S_DELIVERY = "dsh_conformance.schedule.delivery_lifecycle.test_delivery_lifecycle"
S_DURABLE = "dsh_conformance.schedule.durable_state.test_durable_state"
S_INVARIANT = "dsh_conformance.schedule.durable_state.test_invariant"
S_LIMITS = "dsh_conformance.schedule.known_limitations.test_known_limitations"
S_TOOLS = "dsh_conformance.schedule.management_tools.test_management_tools"
S_TOOLS_OVERVIEW = "dsh_conformance.schedule.overview.test_management_tools"
S_TRANSACTIONS = "dsh_conformance.schedule.management_tools.test_transactions"
S_TRANSACTIONS_COMPOSITION = "dsh_conformance.schedule.composition.test_transactions"
S_TRANSACTIONS_DELIVERY = "dsh_conformance.schedule.delivery_lifecycle.test_transactions"
S_MODEL = "dsh_conformance.schedule.model_experience.test_model_experience"

MUTANTS: dict[str, Mutant] = {
    # time-context: interval scheduling
    "interval-boundary-exclusive": Mutant(
        "exactly refreshIntervalMs after the last reading is suppressed", TC_CONFIG,
        "test_a_positive_interval_appends_once_at_least_that_many_ms_passed[1000-True]",
        _patch(preparation, "reading_due", _exclusive_boundary)),
    "interval-ignores-clock-rollback": Mutant(
        "a wall clock stepped back before the last reading suppresses the attempt", TC_CONFIG,
        "test_a_positive_interval_appends_when_the_wall_clock_moved_backwards",
        _patch(preparation, "reading_due", _rollback_suppresses)),
    "interval-counts-any-plugin-message": Mutant(
        "any plugin-sourced user message counts as the last reading", TC_TIMING,
        "test_only_readings_with_the_plugin_source_schedule",
        _patch(scheduling, "is_reading", _any_plugin_source)),
    "interval-forgets-compacted-readings": Mutant(
        "a reading shadowed by compaction no longer schedules the next", TC_TIMING,
        "test_a_reading_shadowed_by_compaction_still_schedules_the_next",
        _set(scheduling.LatestReading, "read", lambda self, events: _shadowed_readings_forgotten(
            scheduling.latest_reading_time_ms)(events))),
    # time-context: elapsed time and labels
    "elapsed-never-clamped-to-zero": Mutant(
        "a zero elapsed time reads 1s", TC_TIMING,
        "test_step_one_measures_from_the_prompt_that_opened_the_turn",
        _patch(preparation, "elapsed_text", _no_clamp)),
    "later-step-crosses-turns": Mutant(
        "a later step measures from a reading of an earlier turn", TC_TIMING,
        "test_a_later_step_whose_earlier_steps_were_suppressed_is_unavailable",
        _patch(baselines, "same_turn_reading_time_ms", _later_step_crosses_turns)),
    "later-steps-use-the-step-one-label": Mutant(
        "every step says 'model-visible message'", TC_MODEL,
        "test_later_step_readings_are_exactly_the_two_documented_lines",
        _set(reading, "baseline_label", lambda step: reading.STEP_ONE_LABEL)),
    # time-context: formatting
    "timestamp-rounds-to-nearest-second": Mutant(
        "sub-second instants round instead of flooring", TC_LIMITS,
        "test_timestamps_omit_sub_second_precision_while_event_times_keep_it",
        _patch(preparation, "format_timestamp", _rounds_to_nearest_second)),
    "zero-offset-printed-as-z": Mutant(
        "a zero offset prints Z instead of +00:00", TC_MODEL,
        "test_timestamps_are_iso_shaped_local_times_with_offset_and_zone[1767225600000-UTC-",
        _patch(formatting, "format_offset", _zero_offset_as_z)),
    "offset-seconds-dropped": Mutant(
        "a local-mean-time offset loses its seconds", TC_SURVIVORS_MODEL,
        "test_an_offset_with_seconds_is_printed_with_its_seconds",
        _patch(formatting, "format_offset", _offset_seconds_dropped)),
    "duration-drops-zero-seconds": Mutant(
        "1m 0s is printed as 1m (caught at compat level)", TC_MODEL,
        "test_durations_are_spelled_exactly",
        _patch(baselines, "format_duration", _zero_seconds_dropped)),
    # time-context: runtime, configuration, companion
    "aborted-step-still-gets-a-reading": Mutant(
        "the listener ignores an already aborted signal", TC_CONFIG,
        "test_a_step_whose_signal_is_already_aborted_gets_no_reading",
        _set(tc_plugin.TimeContextPlugin, "dsh_pre_step", _reads_aborted_steps)),
    "reading-source-misnamed": Mutant(
        "readings carry plugin 'time_context'", TC_TIMING,
        "test_the_reading_carries_exactly_the_plugin_source",
        _patch(tc_plugin, "reading_message", _misnamed_source)),
    "zone-checked-before-interval": Mutant(
        "an invalid timeZone is reported before an invalid refreshIntervalMs", TC_CONFIG,
        "test_the_refresh_interval_is_checked_before_the_zone",
        _patch(tc_plugin, "parse_config", _zone_checked_first)),
    "invariant-accepts-postdated-timestamp": Mutant(
        "the companion accepts a rendered timestamp later than its event", TC_INVARIANT,
        "test_a_malformed_or_misplaced_reading_is_rejected",
        _patch(tc_invariant, "parse_rendered_timestamp", _accepts_future_timestamps)),
    "invariant-skips-registration-scan": Mutant(
        "the companion checks only new appends, not readings already logged", TC_INVARIANT,
        "test_registration_checks_readings_already_in_live_sessions",
        _patch(tc_plugin, "check_log", _skips_registration_scan)),
    # schedule: error codes and input rules
    "not-future-reported-as-out-of-range": Mutant(
        "a past target answers time_out_of_range", S_ABSOLUTE,
        # Which closed code a past target gets is pinned (SCH-CODE-MAPPING), not stated.
        "test_at_errors_are_the_official_values[past-0]",
        _patch(records, "future_instant", _not_future_as_out_of_range)),
    "now-counts-as-future": Mutant(
        "a target equal to now is accepted", S_ABSOLUTE,
        "test_local_time_equal_to_now_is_not_future",
        _patch(records, "future_instant", _now_counts_as_future)),
    "five-minute-interval-rejected": Mutant(
        "every_seconds 300 answers frequency_too_high", S_TOOLS_OVERVIEW,
        "test_version_one_accepts_positive_delays_and_intervals_of_five_minutes_or_more",
        _patch(tool_arguments, "checked_every_seconds", _five_minutes_rejected)),
    "corrupt-log-reported-as-internal-error": Mutant(
        "a corrupt log answers internal_error", S_DURABLE,
        "test_list_over_a_corrupt_official_log_reports_corrupt_schedule_log",
        _patch(tools, "corrupt_log_result", _corrupt_as_internal)),
    "uncertain-result-omits-the-id": Mutant(
        "persistence_uncertain never names the written id", S_TRANSACTIONS_COMPOSITION,
        "test_a_held_barrier_released_as_a_failure_names_the_kept_id",
        _patch(tools, "persistence_uncertain_result", _uncertain_without_id)),
    "tool-results-ascii-escaped": Mutant(
        "tool values escape non-ASCII", S_MODEL,
        "test_model_issued_calls_return_canonical_json_through_the_transcript",
        _patch(tools, "render_tool_value", _ascii_json)),
    # schedule: local times and DST
    "overlap-resolves-to-the-later-instant": Mutant(
        "a repeated local time takes its second instant", "dsh_conformance.dst",
        "test_dst_table_zone[America/New_York]",
        _patch(at_selector, "resolve_local_instant", _later_overlap_instant)),
    "gap-shifted-forward": Mutant(
        "a skipped local time moves forward instead of being rejected", S_ABSOLUTE,
        "test_local_time_inside_a_dst_gap_is_rejected",
        _patch(at_selector, "resolve_local_instant", _gap_shifted_forward)),
    # schedule: fixed-rate arithmetic
    "every-reanchored-at-dispatch": Mutant(
        "the next target counts from acceptedAt, not the creation anchor", S_DURABLE,
        "test_a_written_every_dispatch_replays_to_the_first_aligned_target_after_it",
        _patch(fold.ScheduleFold, "apply", _reanchored_at_dispatch)),
    "every-delivers-the-first-missed-occurrence": Mutant(
        "a late batch delivers the oldest missed occurrence, not the latest", S_DELIVERY,
        "test_a_forward_jump_dispatches_one_batch_with_each_latest_occurrence",
        _patch(decision, "_occurrence_at", _replays_the_first_missed)),
    # schedule: checkpoints and flush ordering
    "flush-failures-ignored": Mutant(
        "tool checkpoints always succeed", S_COMPOSITION,
        "test_failed_preflight_returns_persistence_uncertain[schedule_list",
        _patch(tools, "checkpoint", _optimistic_checkpoint)),
    "aborted-list-still-answers": Mutant(
        "schedule_list ignores an aborted signal", S_TOOLS,
        "test_an_aborted_call_is_an_internal_error_and_changes_nothing[schedule_list]",
        _set(tools._Handlers, "list", _list_ignores_abort)),
    "list-skips-the-preflight": Mutant(
        "schedule_list folds without flushing first", S_COMPOSITION,
        "test_every_fold_reading_operation_waits_for_a_flush_first",
        _set(tools._Handlers, "list", _list_without_preflight)),
    "delete-skips-the-barrier": Mutant(
        "schedule_delete confirms without a barrier flush", S_COMPOSITION,
        "test_delete_confirms_only_after_a_barrier_flush_that_includes_the_delete",
        _patch(tools, "checkpoint", _delete_without_barrier)),
    "dispatch-appended-before-the-follow-up": Mutant(
        "the owner records the dispatch before queueing the follow-up", S_DELIVERY,
        "test_a_failed_follow_up_writes_no_dispatch",
        _set(owner.LiveOwner, "_deliver", _dispatch_before_followup)),
    # schedule: delivery
    "reminders-fire-early": Mutant(
        "the owner decides a minute ahead of the wall clock", S_DELIVERY,
        "test_the_earliest_target_of_the_fold_fires_first",
        _patch(owner, "due_decision_after", _fires_a_minute_early)),
    "timer-wake-trusted-over-the-wall-clock": Mutant(
        "a timer wake counts as due without rereading the wall clock", S_DELIVERY,
        "test_a_wall_clock_rollback_never_fires_early",
        _timer_wake_trusted),
    # schedule: framing
    "framing-drops-untrusted": Mutant(
        "the one-shot framing no longer calls the prompt untrusted", S_MODEL,
        "test_one_shot_framing_is_exact",
        _patch(owner, "render_reminder_framing", _untrusting_framing)),
    "framing-has-a-trailing-newline": Mutant(
        "the one-shot framing ends with a newline", S_MODEL,
        "test_one_shot_framing_is_exact",
        _patch(owner, "render_reminder_framing", _trailing_newline)),
    "batch-framing-reversed": Mutant(
        "the batch lists reminders last-first", S_DELIVERY,
        "test_overdue_every_records_form_one_batch_in_target_then_creation_order",
        _patch(owner, "render_every_batch_framing", _batch_reversed)),
    # schedule: list, delete, ids, fork, composition, companion
    "list-sorted-by-target": Mutant(
        "schedule_list orders by scheduledAt, not creation", S_TOOLS,
        "test_list_returns_active_records_in_creation_order",
        _patch(fold.ScheduleFold, "active", _sorted_by_target)),
    "delete-trims-padded-ids": Mutant(
        "schedule_delete trims the id instead of rejecting padding", S_TOOLS,
        "test_delete_rejects_empty_or_padded_ids_before_the_queue",
        _patch(tools, "validate_delete_id", _trims_delete_ids)),
    "not-found-reported-as-deleted": Mutant(
        "deleting an unknown id answers deleted: true", S_TOOLS,
        "test_unknown_deleted_and_dispatched_ids_are_not_found_and_append_nothing",
        _patch(tools, "delete_result", _always_deleted)),
    "ids-reused-after-delete": Mutant(
        "ids count active records, so a deleted id comes back", S_DURABLE,
        "test_ids_are_never_reused",
        _patch(tools, "allocate_schedule_id_after", _ids_from_active_count)),
    "fork-inherits-parent-reminders": Mutant(
        "the agent's fold starts at the first event, ignoring seedLength", S_DURABLE,
        "test_fork_does_not_inherit_parent_reminders",
        _patch(projection.ScheduleProjection, "read", _ignores_fork_boundary)),
    "tools-installed-on-children": Mutant(
        "child agents get the tools and an owner", S_COMPOSITION,
        "test_runtime_child_gets_no_tools_and_no_flush",
        _set(schedule_plugin.SchedulePlugin, "dsh_agent_created", _installs_on_children)),
    "invariant-skips-candidates": Mutant(
        "the companion checks logs at registration but not appends", S_INVARIANT,
        "test_a_written_change_broken_without_its_layout_is_rejected",
        _patch(s_invariant.InvariantChecker, "check_candidate", _skips_candidates)),
    "invariant-ignores-fork-boundary": Mutant(
        "the companion folds a fork from its first event", S_INVARIANT,
        "test_the_companion_honours_the_fork_boundary",
        _invariant_ignores_fork),
}


# -- mutants at moments only act_inside and hold_busy reach (the official runtime
# -- tests RT-11c, RT-17b, RT-20a, RT-20b, TL-01; docs/official-runtime-tests.md) -------

RUNTIME_MOMENTS = "dsh_conformance.schedule.delivery_lifecycle.test_runtime_moments"


def _idle_wait_without_stop(original: Any) -> Any:
    async def await_idle(self: Any) -> None:
        try:
            await self._agent.when_idle()  # not raced with the stop: disposal waits for it
        except Exception as exc:
            self._warn(f"idle wait failed: {exc}")
            return
        finally:
            self._idle_wait = None
        self.request_drive()

    return await_idle


def _append_failure_not_fatal(original: Any) -> Any:
    async def deliver(self: Any) -> bool:
        was_faulted = self._faulted
        delivered = bool(await original(self))
        self._faulted = was_faulted  # retries later, though the message may be queued
        return delivered

    return deliver


def _ignores_stopping() -> None:
    def runnable(self: Any) -> bool:
        return not self._faulted

    def request_drive(original: Any) -> Any:
        def drive(self: Any) -> None:
            stopping, self._stopping = self._stopping, False
            try:
                original(self)
            finally:
                self._stopping = stopping

        return drive

    owner.LiveOwner._runnable = property(runnable)  # type: ignore[assignment]
    owner.LiveOwner.request_drive = request_drive(owner.LiveOwner.request_drive)  # type: ignore[method-assign]


def _unreadable_log_skipped(original: Any) -> Any:
    def fold_once(self: Any) -> Any:
        try:
            return original(self)
        except RuntimeError:
            return None  # the claim gives up quietly and the owner keeps driving

    return fold_once


def _trimmed_create_card() -> None:
    tools._CARDS["schedule_create"] = lambda args: {  # type: ignore[attr-defined]
        "card": "generic", "title": "Create reminder", "kind": "other",
        "rawInput": str(args.get("prompt", "")).strip(),
    }


MUTANTS.update({
    "idle-wait-ignores-disposal": Mutant(
        "the owner's idle wait is not ended by a disposal: disposing a busy agent waits",
        RUNTIME_MOMENTS, "test_disposing_a_busy_agent_ends_the_owners_idle_wait_at_once",
        _patch(owner.LiveOwner, "_await_idle", _idle_wait_without_stop)),
    "dispatch-append-failure-retried": Mutant(
        "a dispatch append that fails after the follow-up does not fault the owner",
        RUNTIME_MOMENTS, "test_a_dispatch_append_failing_after_the_follow_up_faults_the_owner",
        _patch(owner.LiveOwner, "_deliver", _append_failure_not_fatal)),
    "owner-ignores-stopping": Mutant(
        "a disposed owner keeps driving: its timer and triggers outlive the disposal",
        RUNTIME_MOMENTS, "test_a_disposal_begun_inside_the_owners_claim_leaves_no_later_work",
        _ignores_stopping),
    "unreadable-log-in-claim-skipped": Mutant(
        "a log the claim cannot read is skipped silently and the owner drives on",
        RUNTIME_MOMENTS, "test_a_log_unreadable_inside_the_claim_is_a_closed_fault",
        _patch(owner.LiveOwner, "_fold", _unreadable_log_skipped)),
    "create-card-trims-the-prompt": Mutant(
        "schedule_create presents its pending call with the prompt trimmed",
        "dsh_conformance.schedule.composition.test_package_surface",
        "test_each_tool_runs_exclusive_and_presents_its_pending_call[schedule_create]",
        _trimmed_create_card),
})


# -- mutants observable through the host seams (racing and aborted calls, held
# -- flushes, maintenance holds, disposal in progress, read faults, the host trace,
# -- wall clocks past year 9999) -------------------------------------------------------


def _drive_with_barrier(barrier: str) -> Callable[[], None]:
    """``LiveOwner._drive_once`` whose dispatch barrier is ``"skipped"`` (the next
    drive's preflight flushes the dispatch instead) or ``"fatal"`` (a failed barrier
    stops the owner instead of leaving the dispatch for a later preflight)."""

    async def drive_once(self: Any) -> None:
        self._cancel_timer()
        if not self._runnable:
            return
        if not await owner.checkpoint(self._services, self._agent.session):
            return
        if not self._runnable:
            return
        folded = self._fold()
        if folded is None:
            return
        due = self._decide(folded, self._services.clock.now_ms())
        if due is None:
            return
        if isinstance(due, owner.Wait):
            self._arm(due.target_ms)
            return
        try:
            claim = self._agent.run_maintenance(self._deliver)
        except Exception:
            self._wait_for_idle()
            return
        if not await claim:
            return
        if barrier == "fatal" and not await owner.checkpoint(self._services, self._agent.session):
            self._faulted = True
            return
        if self._runnable:
            self.request_drive()

    return _set(owner.LiveOwner, "_drive_once", drive_once)


def _unserialised_queue() -> None:
    async def enter(self: Any) -> None:
        return None

    async def leave(self: Any, *exc_info: Any) -> None:
        return None

    transactions.AgentQueue.__aenter__ = enter  # type: ignore[method-assign]
    transactions.AgentQueue.__aexit__ = leave  # type: ignore[method-assign]


class _AbortReadOnce:
    """A tool call whose abort flag is read once, when the transaction starts."""

    def __init__(self, call: Any) -> None:
        self._call = call
        self._aborted: bool | None = None

    @property
    def agent(self) -> Any:
        return self._call.agent

    @property
    def call_id(self) -> str:
        return str(self._call.call_id)

    @property
    def signal(self) -> _AbortReadOnce:
        return self

    @property
    def aborted(self) -> bool:
        if self._aborted is None:
            self._aborted = bool(self._call.signal.aborted)
        return self._aborted


def _abort_read_once(original: Any) -> Any:
    async def create(self: Any, arguments: Any, call: Any) -> Any:
        return await original(self, arguments, _AbortReadOnce(call))

    return create


def _disposal_not_awaiting(original: Any) -> Any:
    async def dispose(self: Any) -> None:
        self._stopping = True
        self._requested = False
        self._cancel_timer()
        self._stop.set()

    return dispose


def _disposal_keeping_the_timer(original: Any) -> Any:
    async def dispose(self: Any) -> None:
        self._stopping = True
        self._requested = False
        self._stop.set()
        pending = [task for task in (self._run, self._idle_wait) if task is not None]
        await asyncio.gather(*pending, return_exceptions=True)

    return dispose


def _gives_up_after_30_s(original: Any) -> Any:
    # A checkpoint with a timeout: a flush still pending after 30 s counts as failed.
    async def checkpoint(services: Any, session: Any) -> bool:
        try:
            return await asyncio.wait_for(asyncio.shield(original(services, session)), 30)
        except TimeoutError:
            return False

    return checkpoint


def _hung_flushes_give_up() -> None:
    _patch(tools, "checkpoint", _gives_up_after_30_s)()
    _patch(owner, "checkpoint", _gives_up_after_30_s)()


async def _list_reading_the_clock_unguarded(self: Any, arguments: Any, call: Any) -> Any:
    if call.agent is not self._agent:
        return tools.internal_error_result()
    async with self._queue:
        if call.signal.aborted:
            return tools.internal_error_result()
        if not await tools.checkpoint(self._services, self._agent.session):
            return tools.persistence_uncertain_result("list")
        self._durable_change()
        now = self._services.clock.now_ms()  # outside the guarded block
        try:
            return [tools.schedule_view(record, now) for record in self._fold().active()]
        except tools._CorruptLog:
            return tools.corrupt_log_result()
        except Exception:
            return tools.internal_error_result()


async def _delete_guarding_only_corrupt_logs(self: Any, arguments: Any, call: Any) -> Any:
    try:
        schedule_id = tools.validate_delete_id(arguments.get("id"))
    except ScheduleInputError as exc:
        return tools.error_result(exc.code, exc.message)
    if call.agent is not self._agent:
        return tools.internal_error_result()
    async with self._queue:
        if call.signal.aborted:
            return tools.internal_error_result()
        session = self._agent.session
        if not await tools.checkpoint(self._services, session):
            return tools.persistence_uncertain_result("delete", schedule_id)
        self._durable_change()
        try:
            folded = self._fold()
        except tools._CorruptLog:  # any other read failure escapes
            return tools.corrupt_log_result()
        if schedule_id not in folded:
            return tools.delete_result(schedule_id, deleted=False)
        if call.signal.aborted:
            return tools.internal_error_result()
        change = {"version": tools.SCHEDULE_CHANGE_VERSION, "operation": "delete",
                  "id": schedule_id}
        try:
            session.append(tools.SCHEDULE_CHANGE_EVENT_TYPE, change)
        except Exception:
            return tools.internal_error_result()
        if not await tools.checkpoint(self._services, session):
            return tools.persistence_uncertain_result("delete", schedule_id)
        self._durable_change()
        return tools.delete_result(schedule_id, deleted=True)


def _after_target_year_wraps(original: Any) -> Any:
    # The year printed with its last four digits: 10000 becomes 0000.
    cycle_ms = 146_097 * 86_400_000  # 400 Gregorian years

    def create_after_record(schedule_id: str, prompt: object, after_seconds: object,
                            now: int) -> Any:
        target = now + records.checked_after_seconds(after_seconds) * 1000
        if target <= MAX_EPOCH_MS:
            return original(schedule_id, prompt, after_seconds, now)
        text = format_iso_ms(target - cycle_ms)
        year = int(text[:4]) + 400
        return {"id": schedule_id, "kind": "after", "prompt": records.checked_prompt(prompt),
                "afterSeconds": after_seconds, "scheduledAt": f"{year % 10_000:04d}{text[4:]}"}

    return create_after_record


def _datetime_bound_timestamp(original: Any) -> Any:
    from datetime import datetime

    def format_timestamp(epoch_ms: int, zone: Any, label: str) -> str:
        datetime.fromtimestamp(epoch_ms // 1000, zone)  # ends at year 9999
        return str(original(epoch_ms, zone, label))

    return format_timestamp


S_LIFECYCLE = "dsh_conformance.schedule.delivery_lifecycle.test_owner_lifecycle"
S_FLUSH_WAITS = "dsh_conformance.schedule.composition.test_flush_waits"
S_READ_FAULTS = "dsh_conformance.schedule.management_tools.test_read_faults"
S_RANGE = "dsh_conformance.schedule.management_tools.test_range_edges"
TC_EXTREME = "dsh_conformance.time_context.model_experience.test_extreme_wall_clocks"

MUTANTS.update({
    "busy-owner-never-retries": Mutant(
        "a reminder refused while the agent is busy is retried only when the status turns idle, "
        "never through when_idle()", S_LIFECYCLE,
        "test_a_reminder_refused_during_a_maintenance_task_is_delivered_after_when_idle",
        _set(owner.LiveOwner, "_wait_for_idle", lambda self: None)),
    "disposal-leaves-the-timer-armed": Mutant(
        "disposing stops the owner but never cancels its timer", S_LIFECYCLE,
        "test_disposal_cancels_the_armed_timer_and_arms_no_other[agent]",
        _patch(owner.LiveOwner, "dispose", _disposal_keeping_the_timer)),
    "owner-skips-the-dispatch-barrier": Mutant(
        "no flush after the dispatch append; the next drive's preflight flushes it",
        S_LIFECYCLE,
        "test_a_create_queued_behind_a_due_transaction_survives_its_rejected_barrier",
        _drive_with_barrier("skipped")),
    "racing-calls-not-serialised": Mutant(
        "the agent queue lets two tool calls run their transactions interleaved",
        S_TRANSACTIONS, "test_a_racing_call_waits_for_the_whole_earlier_transaction",
        _unserialised_queue),
    "abort-after-preflight-ignored": Mutant(
        "schedule_create reads its abort flag once, so an abort during the preflight "
        "still appends", S_TRANSACTIONS,
        "test_a_create_aborted_during_its_preflight_appends_nothing",
        _patch(tools._Handlers, "create", _abort_read_once)),
    "disposal-does-not-await-preflights": Mutant(
        "disposal returns while a preflight or idle wait is in flight", S_TRANSACTIONS_DELIVERY,
        "test_agent_disposal_awaits_an_in_flight_due_preflight_then_writes_nothing",
        _patch(owner.LiveOwner, "dispose", _disposal_not_awaiting)),
    "hung-flush-gives-up": Mutant(
        "a checkpoint gives up on a flush still pending after 30 s", S_FLUSH_WAITS,
        "test_a_create_whose_barrier_ends_durable_an_hour_later_confirms",
        _hung_flushes_give_up),
    "barrier-rejection-stops-the-owner": Mutant(
        "a rejected dispatch barrier faults the owner, so later reminders are never delivered",
        S_TRANSACTIONS_DELIVERY,
        "test_later_reminders_are_delivered_after_a_rejected_dispatch_barrier[rejected]",
        _drive_with_barrier("fatal")),
    "event-read-fault-leaks": Mutant(
        "a failing session read in schedule_delete escapes as an exception", S_READ_FAULTS,
        "test_a_failing_read_answers_a_closed_code_and_appends_nothing[delete-event]",
        _set(tools._Handlers, "delete", _delete_guarding_only_corrupt_logs)),
    "clock-read-fault-leaks": Mutant(
        "a failing wall-clock read in schedule_list escapes as an exception", S_READ_FAULTS,
        "test_a_failing_read_answers_a_closed_code_and_appends_nothing[list-clock]",
        _set(tools._Handlers, "list", _list_reading_the_clock_unguarded)),
    "after-seconds-past-9999-wraps": Mutant(
        "an after_seconds target past 9999-12-31T23:59:59.999Z is stored with its year "
        "wrapped to four digits", S_RANGE,
        "test_a_target_past_the_last_instant_is_out_of_range[1-after_seconds-60]",
        _patch(tool_arguments, "create_after_record", _after_target_year_wraps)),
    "time-context-crashes-past-9999": Mutant(
        "a reading at a wall clock past year 9999 raises", TC_EXTREME,
        "test_a_wall_clock_past_year_9999_still_gets_a_true_reading[year-10000]",
        _patch(preparation, "format_timestamp", _datetime_bound_timestamp)),
})


# -- the pre-step listener's place (an ordinary-order watcher sees it) ----------------------


def _unmarked_listener(original: Any) -> Any:
    # The same listener, registered without tryfirst (DSH: without prepend).
    @hookimpl
    def dsh_pre_step(self: Any, agent: Any, turn: int, step: int, signal: Any) -> None:
        original(self, agent, turn, step, signal)

    return dsh_pre_step


MUTANTS.update({
    "listener-not-first": Mutant(
        "the pre-step listener is not tryfirst (not prepended), so ordinary listeners run "
        "before it", TC_TIMING, "test_the_listener_runs_before_an_ordinary_listener",
        _patch(tc_plugin.TimeContextPlugin, "dsh_pre_step", _unmarked_listener)),
})


# -- mutants the envelope, trace and tool-registry seams catch -------------------------


def _step_one_counts_any_event(original: Any) -> Any:
    def step_one_baseline_ms(events: Any) -> int | None:
        for event in reversed(events):
            if event.get("type") not in baselines.MODEL_VISIBLE_TYPES:
                return int(event["time"])
        return None

    return step_one_baseline_ms


def _registers_without_rollback(original: Any) -> Any:
    def register_schedule_tools(
        agent: Any, services: Any, queue: Any, on_durable_change: Any, projection: Any = None
    ) -> Any:
        handlers = tools._Handlers(
            agent, services, queue, on_durable_change,
            projection or tools.ScheduleProjection(),
        )
        by_name = {"schedule_create": handlers.create, "schedule_list": handlers.list,
                   "schedule_delete": handlers.delete}
        # A refused registration escapes the comprehension: the disposers of the
        # tools already registered are lost with it.
        disposers = [
            agent.tools.register(ToolDefinition(
                name=d.name, description=d.description, parameters=d.parameters,
                handler=by_name[d.name], output_schema=d.output_schema,
                render=tools.render_tool_value,
            ))
            for d in tools.tool_definitions()
        ]

        def dispose_all() -> None:
            while disposers:
                disposers.pop()()

        return dispose_all

    return register_schedule_tools


MUTANTS.update({
    "step-one-counts-any-event": Mutant(
        "step 1 measures from the newest event that is not model-visible",
        "dsh_conformance.time_context.timing_semantics.test_step_baselines",
        "test_step_one_measures_from_the_newest_model_visible_message_not_a_newer_event"
        "[turn/start]",
        _patch(baselines, "step_one_baseline_ms", _step_one_counts_any_event)),
    "colliding-registration-not-rolled-back": Mutant(
        "a tool registration that fails halfway leaves the first tools registered",
        "dsh_conformance.schedule.composition.test_tool_registry",
        "test_a_colliding_registration_rolls_back_the_tools_already_registered"
        "[schedule_list]",
        _patch(schedule_plugin, "register_schedule_tools", _registers_without_rollback)),
})

# -- value-shape choices -----------------------------------------------------------------
# Not bugs: details the READMEs leave open, spelled otherwise than the official
# build. The readme level accepts them; compat tests fail through their pins.
# Combined with real bugs, they show that the first screen names the bugs first.

_ERROR_FIELDS = {"code": "error", "message": "reason"}


def _renamed_error(value: Any) -> Any:
    if isinstance(value, dict) and {"code", "message"} <= set(value):
        return {_ERROR_FIELDS.get(key, key): item for key, item in value.items()}
    return value


def _renamed_error_schema(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_renamed_error_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    renamed = {key: _renamed_error_schema(item) for key, item in schema.items()}
    properties = renamed.get("properties")
    if isinstance(properties, dict) and {"code", "message"} <= set(properties):
        renamed["properties"] = {_ERROR_FIELDS.get(k, k): v for k, v in properties.items()}
        renamed["required"] = [_ERROR_FIELDS.get(k, k) for k in renamed.get("required", [])]
    return renamed


def _error_fields_renamed() -> None:
    """Error values are ``{error, reason}`` (the not-found delete value, which
    the README spells, stays ``{id, deleted: false, code}``)."""
    for name in ("error_result", "internal_error_result", "corrupt_log_result",
                 "persistence_uncertain_result"):
        original = getattr(tools, name)
        setattr(tools, name, lambda *a, _original=original, **k: _renamed_error(
            _original(*a, **k)))
    definitions = tools.tool_definitions
    tools.tool_definitions = lambda: tuple(  # type: ignore[assignment]
        replace(d, output_schema=_renamed_error_schema(d.output_schema)) for d in definitions()
    )


VALUE_SHAPE_CHOICES: dict[str, Mutant] = {
    "error-value-fields-renamed": Mutant(
        "error values are {error, reason} instead of {code, message} (pin SCH-ERROR-VALUE-SHAPE)",
        S_TOOLS, "test_persistence_values_render_with_their_operation_and_id",
        _error_fields_renamed),
}


# -- the owner's runtime at moments only the seams reach: inside its claim, after a
# -- dispatch, failed barriers, idle waits, disposal; aborted calls in the queue ------------


@dataclass(frozen=True)
class _DriveBugs:
    """How a ``LiveOwner`` drive (``_drive_once`` and its task ``_deliver``) is broken."""

    stale_fold: bool = False  # the claim decides with the preflight's fold
    stale_clock: bool = False  # the claim decides at the preflight's clock sample
    stale_decision: bool = False  # the claim delivers what the preflight decided
    redrive: bool = True  # drive again after a successful dispatch barrier
    barrier_retry_ms: int | None = None  # a failed dispatch barrier arms a retry timer
    preflight_retry_ms: int | None = None  # a failed due preflight arms a retry timer


def _drive_with_bugs(bugs: _DriveBugs) -> Callable[[], None]:
    async def drive_once(self: Any) -> None:
        self._cancel_timer()
        if not self._runnable:
            return
        if not await owner.checkpoint(self._services, self._agent.session):
            if bugs.preflight_retry_ms is not None and self._runnable:
                self._timer = self._services.clock.set_timer(bugs.preflight_retry_ms,
                                                             self._on_timer)
            return
        if not self._runnable:
            return
        folded = self._fold()
        if folded is None:
            return
        now = self._services.clock.now_ms()
        due = self._decide(folded, now)
        if due is None:
            return
        if isinstance(due, owner.Wait):
            self._arm(due.target_ms)
            return
        self._preflight_seen = (folded, now, due)
        try:
            claim = self._agent.run_maintenance(self._deliver)
        except Exception:
            self._wait_for_idle()
            return
        if not await claim:
            return
        if not await owner.checkpoint(self._services, self._agent.session):
            if bugs.barrier_retry_ms is not None and self._runnable:
                self._timer = self._services.clock.set_timer(bugs.barrier_retry_ms,
                                                             self._on_timer)
            return
        if bugs.redrive and self._runnable:
            self.request_drive()

    async def deliver(self: Any) -> bool:
        if not self._runnable:
            return False
        folded, now, due = self._preflight_seen
        if not bugs.stale_fold:
            folded = self._fold()
            if folded is None:
                return False
        if not bugs.stale_clock:
            now = self._services.clock.now_ms()
        decision = due if bugs.stale_decision else self._decide(folded, now)
        if decision is None:
            return False
        if isinstance(decision, owner.Wait):
            self._arm(decision.target_ms)
            return False
        try:
            if isinstance(decision, owner.OneShotDue):
                text = owner.render_reminder_framing(decision.record)
            else:
                text = owner.render_every_batch_framing(decision.reminders)
            self._agent.followup({"content": [{"type": "text", "text": text}],
                                  "source": owner._SOURCE})
        except Exception:
            return False
        try:
            for change in owner._dispatch_changes(decision):
                self._agent.session.append(owner.SCHEDULE_CHANGE_EVENT_TYPE,
                                           owner.encode_schedule_change(change))
        except Exception:
            self._faulted = True
            self._cancel_timer()
            return False
        return True

    def apply() -> None:
        owner.LiveOwner._drive_once = drive_once  # type: ignore[method-assign]
        owner.LiveOwner._deliver = deliver  # type: ignore[method-assign]

    return apply


def _idle_wait_with_bugs(*, rejection: str = "", ignores_stop: bool = False) -> Callable[[], None]:
    """``LiveOwner._await_idle`` whose rejected wait ``"faults"`` the owner or
    ``"keeps-slot"`` (its slot is never freed, so no later refusal waits again), or
    that waits for idle alone, deaf to disposal (``ignores_stop``)."""

    async def await_idle(self: Any) -> None:
        idle = asyncio.ensure_future(self._agent.when_idle())
        waited = {idle} if ignores_stop else {idle, asyncio.ensure_future(self._stop.wait())}
        await asyncio.wait(waited, return_when=asyncio.FIRST_COMPLETED)
        for other in waited - {idle}:
            other.cancel()
        failed = idle.done() and not idle.cancelled() and idle.exception() is not None
        if failed and rejection == "keeps-slot":
            return
        self._idle_wait = None
        if failed:
            if rejection == "faults":
                self._faulted = True
            return
        if idle.done() and not idle.cancelled():
            self.request_drive()

    return _set(owner.LiveOwner, "_await_idle", await_idle)


def _disposal_leaving_the_idle_wait(original: Any) -> Any:
    # Disposal never signals the stop, so a pending idle wait runs until the agent is idle.
    async def dispose(self: Any) -> None:
        self._stopping = True
        self._requested = False
        self._cancel_timer()
        pending = [task for task in (self._run, self._idle_wait) if task is not None]
        await asyncio.gather(*pending, return_exceptions=True)

    return dispose


def _disposal_awaiting_idle(original: Any) -> Any:
    # Disposal lets the agent settle first: it waits for idle before stopping the owner.
    async def dispose(self: Any) -> None:
        await self._agent.when_idle()
        await original(self)

    return dispose


def _trusts_idle_reports(original: Any) -> Any:
    # An idle report is taken as the claim itself: the task runs without run_maintenance.
    def on_status(self: Any, status: Any) -> None:
        if status != "idle" or not self._changes.any_in(self._agent.session.events):
            return

        async def deliver_now() -> None:
            async with self._queue:
                if await self._deliver():
                    await owner.checkpoint(self._services, self._agent.session)

        asyncio.get_running_loop().create_task(deliver_now())

    return on_status


def _barrier_failure_retries(operation: str) -> Callable[[Any], Any]:
    """A management handler that, when its post-append barrier fails, arms a timer
    asking the owner to drive (and so flush) again five seconds later."""

    def make(original: Any) -> Any:
        async def handler(self: Any, arguments: Any, call: Any) -> Any:
            before = len(self._agent.session.events)
            value = await original(self, arguments, call)
            appended = len(self._agent.session.events) > before
            if (appended and isinstance(value, dict)
                    and value.get("code") == "persistence_uncertain"
                    and value.get("operation") == operation):
                self._services.clock.set_timer(5_000, self._durable_change)
            return value

        return handler

    return make


class _AbortReadAtEntry(_AbortReadOnce):
    """A tool call whose abort flag is read once, when the handler is entered:
    before the call waits in the queue."""

    def __init__(self, call: Any) -> None:
        super().__init__(call)
        self._aborted = bool(call.signal.aborted)


def _abort_read_at_entry(original: Any) -> Any:
    async def handler(self: Any, arguments: Any, call: Any) -> Any:
        return await original(self, arguments, _AbortReadAtEntry(call))

    return handler


def _interval_accepting(kind: type) -> Callable[[Any], Any]:
    """``validate_refresh_interval`` that converts a ``kind`` value instead of refusing it
    (``int("60000")``; a bool, which Python counts as an int)."""

    def make(original: Any) -> Any:
        def validate_refresh_interval(value: object) -> int:
            if isinstance(value, kind) and (kind is bool or str(value).isdigit()):
                return int(value)  # type: ignore[call-overload]
            return int(original(value))

        return validate_refresh_interval

    return make


class _OwnEventsOnly:
    """The newest reading among the session's own events: a fork's seeded prefix skipped."""

    def __init__(self, seed: int) -> None:
        self._seed = seed

    def read(self, events: Any) -> int | None:
        return scheduling.latest_reading_time_ms(list(events)[self._seed:])


@hookimpl(tryfirst=True)
def _interval_skips_the_seed(self: Any, agent: Any, turn: int, step: int, signal: Any) -> None:
    if signal.aborted:
        return
    session = agent.session
    text = tc_plugin.prepare_reading(
        session.events, now_ms=self._clock.now_ms(), turn=turn, step=step,
        settings=self.settings, latest=_OwnEventsOnly(session.header.get("seedLength") or 0),
    )
    if text is not None:
        agent.inject(tc_plugin.reading_message(text))


def _scans_only_the_newest_reading(original: Any) -> Any:
    def check_log(events: Any, *, seed_length: int = 0) -> None:
        for index in reversed(range(max(seed_length, 0), len(events))):
            if reading.is_reading(events[index]):
                tc_invariant.check_reading(events[:index], events[index])
                return

    return check_log


S_RUNTIME = "dsh_conformance.schedule.delivery_lifecycle.test_runtime_lifecycle"
S_RUNTIME_TOOLS = "dsh_conformance.schedule.management_tools.test_runtime_lifecycle"
TC_LIFECYCLE = "dsh_conformance.time_context.timing_semantics.test_timing_semantics_lifecycle"

MUTANTS.update({
    "claim-decides-with-the-preflight-fold": Mutant(
        "the maintenance task decides with the fold its preflight read, so a record deleted "
        "meanwhile is still delivered", S_RUNTIME,
        "test_a_record_deleted_inside_the_claim_is_not_delivered",
        _drive_with_bugs(_DriveBugs(stale_fold=True))),
    "claim-decides-at-the-preflight-clock-sample": Mutant(
        "the maintenance task decides at the clock sample its preflight took", S_RUNTIME,
        "test_a_clock_stepped_back_inside_the_claim_delivers_nothing_early",
        _drive_with_bugs(_DriveBugs(stale_clock=True))),
    "claim-delivers-the-preflight-decision": Mutant(
        "the maintenance task delivers what the preflight decided, without refolding or "
        "resampling", S_RUNTIME,
        "test_a_record_deleted_inside_the_claim_is_not_delivered",
        _drive_with_bugs(_DriveBugs(stale_decision=True))),
    "owner-waits-for-a-trigger-after-dispatch": Mutant(
        "after a dispatch barrier the owner does not drive again, so the next target's timer "
        "waits for the follow-up turn's end", S_RUNTIME,
        "test_a_later_reminder_fires_while_the_first_follow_up_waits",
        _drive_with_bugs(_DriveBugs(redrive=False))),
    "dispatch-barrier-failure-retries-on-a-timer": Mutant(
        "a failed dispatch barrier arms a private five-second retry timer", S_RUNTIME,
        "test_a_failed_dispatch_barrier_starts_no_retry_timer",
        _drive_with_bugs(_DriveBugs(barrier_retry_ms=5_000))),
    "failed-due-preflight-retries-on-a-timer": Mutant(
        "a failed preflight arms a private five-second retry timer", S_LIMITS,
        "test_a_failed_due_preflight_starts_no_retry_flushes",
        _drive_with_bugs(_DriveBugs(preflight_retry_ms=5_000))),
    "owner-never-drives-at-start": Mutant(
        "the owner's start() does nothing: an overdue record of a resumed session waits for "
        "later activity", S_DELIVERY,
        "test_resume_dispatches_overdue_one_shots_then_the_every_batch",
        _set(owner.LiveOwner, "start", lambda self: None)),
    "create-barrier-failure-retries-on-a-timer": Mutant(
        "a failed create barrier arms a private retry timer that drives the owner again",
        S_RUNTIME_TOOLS, "test_a_failed_management_barrier_starts_no_retry_timer[schedule_create]",
        _patch(tools._Handlers, "create", _barrier_failure_retries("create"))),
    "delete-barrier-failure-retries-on-a-timer": Mutant(
        "a failed delete barrier arms a private retry timer that drives the owner again",
        S_RUNTIME_TOOLS, "test_a_failed_management_barrier_starts_no_retry_timer[schedule_delete]",
        _patch(tools._Handlers, "delete", _barrier_failure_retries("delete"))),
    "rejected-idle-wait-faults-the-owner": Mutant(
        "a rejected whenIdle() faults the owner: no later preflight delivers", S_RUNTIME_TOOLS,
        "test_a_rejected_idle_wait_leaves_the_owner_working_for_the_next_preflight",
        _idle_wait_with_bugs(rejection="faults")),
    "rejected-idle-wait-keeps-its-slot": Mutant(
        "a rejected whenIdle() never frees the owner's one idle-wait slot, so a later busy "
        "refusal never waits again", S_RUNTIME,
        "test_after_a_rejected_idle_wait_a_busy_refusal_waits_for_idle_again",
        _idle_wait_with_bugs(rejection="keeps-slot")),
    "idle-wait-deaf-to-disposal": Mutant(
        "the idle wait races nothing but whenIdle(), so disposal waits for the agent to be idle",
        S_RUNTIME, "test_plugin_disposal_ends_an_idle_wait_while_a_long_turn_runs",
        _idle_wait_with_bugs(ignores_stop=True)),
    "disposal-leaves-the-idle-wait-pending": Mutant(
        "disposal never ends the pending idle wait; it awaits it until the agent is idle",
        S_RUNTIME, "test_plugin_disposal_ends_an_idle_wait_while_a_long_turn_runs",
        _patch(owner.LiveOwner, "dispose", _disposal_leaving_the_idle_wait)),
    "disposal-waits-for-the-agent-to-be-idle": Mutant(
        "disposal first waits for the agent to become idle, then stops the owner", S_RUNTIME,
        "test_plugin_disposal_ends_an_idle_wait_while_a_long_turn_runs",
        _patch(owner.LiveOwner, "dispose", _disposal_awaiting_idle)),
    "idle-report-taken-as-the-claim": Mutant(
        "an idle status report runs the maintenance task directly, without claiming the idle "
        "phase", S_RUNTIME_TOOLS, "test_a_stale_idle_report_during_a_claim_delivers_once",
        _patch(owner.LiveOwner, "on_status", _trusts_idle_reports)),
    "delete-abort-read-once": Mutant(
        "schedule_delete reads its abort flag once, so a delete aborted during its preflight "
        "still appends", S_RUNTIME_TOOLS,
        "test_a_delete_aborted_during_its_preflight_appends_nothing",
        _patch(tools._Handlers, "delete", _abort_read_once)),
    "queued-create-abort-read-at-entry": Mutant(
        "schedule_create reads its abort flag when called, so an abort while it waits in the "
        "queue is missed and it flushes and appends", S_RUNTIME_TOOLS,
        "test_a_create_aborted_while_it_waits_in_the_queue_neither_flushes_nor_appends",
        _patch(tools._Handlers, "create", _abort_read_at_entry)),
    "interval-accepts-digit-strings": Mutant(
        "refreshIntervalMs \"60000\" is read as the number 60000", TC_CONFIG,
        "test_a_refresh_interval_that_is_not_a_number_fails_the_load[digit-string]",
        _patch(tc_config, "validate_refresh_interval", _interval_accepting(str))),
    "interval-accepts-booleans": Mutant(
        "refreshIntervalMs true is read as 1 (a Python bool is an int)", TC_CONFIG,
        "test_a_refresh_interval_that_is_not_a_number_fails_the_load[true]",
        _patch(tc_config, "validate_refresh_interval", _interval_accepting(bool))),
    "fork-interval-skips-the-seeded-prefix": Mutant(
        "positive-interval scheduling scans only the session's own events, not a fork's seeded "
        "prefix", TC_LIFECYCLE,
        "test_a_forks_interval_counts_the_readings_of_its_seeded_prefix",
        _set(tc_plugin.TimeContextPlugin, "dsh_pre_step", _interval_skips_the_seed)),
    "registration-scan-checks-only-the-newest": Mutant(
        "the companion's registration scan checks only each session's newest reading",
        TC_LIFECYCLE,
        "test_registration_checks_every_reading_of_a_session_not_only_the_newest",
        _patch(tc_plugin, "check_log", _scans_only_the_newest_reading)),
})


for _name in filter(None, os.environ.get("DSH_MUTANT", "").split(",")):
    (MUTANTS | VALUE_SHAPE_CHOICES)[_name].apply()
IMPLEMENTATION = REFERENCE

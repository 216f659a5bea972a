"""README section "时序语义" (Timing semantics): where a reading lands, how a
positive interval is scheduled from the raw log, the elapsed baselines, and
what happens when a later listener fails the attempt."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_conformance.time_context.readings import (
    READING_SOURCE,
    START_MS,
    is_reading,
    later_step_text,
    parse_reading,
    reading_events,
    reading_texts,
    run_turn,
    seeded_turn,
    step_one_text,
)
from pytest_dsh import reply_text, reply_tools

pytestmark = [pytest.mark.dsh_requires("time-context")]

UTC_CONFIG = {"timeZone": "UTC"}
MINUTE_CONFIG = {"timeZone": "UTC", "refreshIntervalMs": 60_000}


TRANSCRIPT_TYPES = (
    "turn/start", "user/message", "step/start", "assistant/message", "step/end", "turn/end"
)


def types_of(events):
    return [event["type"] for event in events]


def seqs_of(events):
    return [event["seq"] for event in events]


# -- where a reading lands ----------------------------------------------------------


@pytest.mark.spec("TC-016", "TC-032")
def test_the_reading_lands_before_step_start_and_is_part_of_that_steps_request(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    events = agent.events()
    assert types_of(events) == [
        "turn/start", "user/message", "user/message", "step/start",
        "assistant/message", "step/end", "turn/end",
    ]
    assert is_reading(events[2])
    [request] = agent.requests()
    assert seqs_of(request) == [1, 2]
    assert request[-1]["data"] == events[2]["data"]


@pytest.mark.spec("TC-016")
def test_the_reading_is_one_text_block_with_exactly_the_plugin_source(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    [reading] = reading_events(agent.events())
    assert reading["data"] == {
        "content": [
            {"type": "text", "text": step_one_text(1, "2026-01-01T00:00:00+00:00[UTC]", "0s")}
        ],
        "source": {"kind": "plugin", "plugin": "time-context"},
    }


@pytest.mark.spec("TC-015", "TC-016")
def test_the_listener_runs_before_listeners_registered_earlier_or_later(dsh_host):
    earlier = dsh_host.add_pre_step_probe()
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    later = dsh_host.add_pre_step_probe()
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 0)
    readings = reading_events(agent.events())
    for probe in (earlier, later):
        assert [(call.turn, call.step) for call in probe.calls] == [(1, 1), (1, 2)]
        # each listener already sees the reading of the step it is called for
        assert [call.log_length > reading["seq"] for call, reading in
                zip(probe.calls, readings, strict=True)] == [True, True]


@pytest.mark.spec("TC-016")
def test_an_append_the_host_refuses_fails_the_turn_before_step_start(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    dsh_host.faults.fail_appends(event_type="user/message", first=2)
    run_turn(dsh_host, agent)
    events = agent.events()
    assert types_of(events) == ["turn/start", "user/message", "turn/end"]
    assert events[-1]["data"]["reason"]["kind"] == "error"
    assert agent.requests() == []


@pytest.mark.spec("TC-017", "TC-035")
def test_a_suppressed_attempt_appends_nothing(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    before = agent.events()
    dsh_host.advance(1)
    run_turn(dsh_host, agent)
    added = agent.events()[len(before):]
    assert reading_texts(added) == []
    # Only the ordinary turn (whatever bookkeeping the host adds): one user message,
    # the prompt, and no other.
    transcript = [t for t in types_of(added) if t in TRANSCRIPT_TYPES]
    assert sorted(transcript) == sorted(TRANSCRIPT_TYPES)


# -- positive-interval scheduling -----------------------------------------------------


@pytest.mark.spec("TC-018", "TC-020", "TC-030")
def test_a_reading_shadowed_by_compaction_still_schedules_the_next(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    [reading] = reading_events(agent.events())
    agent.compact(seqs_of(agent.history()), "summary of turn 1")
    assert reading["seq"] not in seqs_of(agent.history())
    assert reading in agent.events()
    dsh_host.advance(59.999)
    run_turn(dsh_host, agent)
    assert reading_events(agent.events()) == [reading]
    dsh_host.advance(0.001)
    run_turn(dsh_host, agent)
    assert len(reading_events(agent.events())) == 2


@pytest.mark.spec("TC-019")
def test_scheduling_holds_across_turns(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.advance(30)
    run_turn(dsh_host, agent)
    dsh_host.advance(29.999)
    run_turn(dsh_host, agent)
    dsh_host.advance(0.001)
    run_turn(dsh_host, agent)
    turns = [parse_reading(text)["turn"] for text in reading_texts(agent.events())]
    assert turns == ["1", "4"]


@pytest.mark.spec("TC-019")
def test_scheduling_holds_for_a_fresh_agent_and_plugin_instance_over_the_same_log(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    log, session_id = agent.events(), agent.session_id
    agent.dispose()
    dsh_host.unload_plugin("time-context")
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    dsh_host.advance(30)
    resumed = dsh_host.create_agent(session_id=session_id, seed=log)
    run_turn(dsh_host, resumed)
    assert reading_texts(resumed.events()) == reading_texts(log)
    dsh_host.advance(30)
    run_turn(dsh_host, resumed)
    assert reading_texts(resumed.events())[1:] == [
        step_one_text(3, "2026-01-01T00:01:00+00:00[UTC]", "0s")
    ]


@pytest.mark.spec("TC-018", "TC-019")
def test_readings_left_by_an_earlier_process_schedule_the_next(dsh_host):
    earlier = START_MS - 10_000
    seed = seeded_turn(
        1, earlier, reading=step_one_text(1, "2025-12-31T23:59:50+00:00[UTC]", "0s")
    )
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent(seed=seed)
    run_turn(dsh_host, agent)
    assert len(reading_events(agent.events())) == 1
    dsh_host.advance(50)
    run_turn(dsh_host, agent)
    assert reading_texts(agent.events())[1:] == [
        step_one_text(3, "2026-01-01T00:00:50+00:00[UTC]", "0s")
    ]


@pytest.mark.spec("TC-018")
def test_only_readings_with_the_plugin_source_schedule(dsh_host):
    impostor = dict(READING_SOURCE, plugin="time-context-copy")
    seed = seeded_turn(1, START_MS, reading="Time sampled while preparing turn 1, step 1: x")
    seed[2]["data"]["source"] = impostor
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent(seed=seed)
    run_turn(dsh_host, agent)
    assert len(reading_events(agent.events())) == 1


@pytest.mark.spec("TC-020")
def test_each_session_is_scheduled_independently(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    first, second = dsh_host.create_agent(), dsh_host.create_agent()
    run_turn(dsh_host, first)  # +0 s
    dsh_host.advance(10)
    run_turn(dsh_host, second)  # +10 s: its own first reading
    dsh_host.advance(50)
    run_turn(dsh_host, first)  # +60 s: due
    run_turn(dsh_host, second)  # +60 s: 50 s after its own reading
    assert len(reading_events(first.events())) == 2
    assert len(reading_events(second.events())) == 1


@pytest.mark.spec("TC-020")
def test_existing_readings_are_never_removed(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent()
    seen = []
    for step_ms in ([0, 30_000], [45_000], [], [90_000]):
        run_turn(dsh_host, agent, *step_ms)
        agent.compact(seqs_of(agent.history()), "summary")
        now = reading_events(agent.events())
        assert now[: len(seen)] == seen
        seen = now
    # readings at +0 s (turn 1), +75 s (turn 2, step 2) and +165 s (turn 4, step 2)
    assert len(seen) == 3


# -- elapsed baselines ---------------------------------------------------------------


@pytest.mark.spec("TC-021")
def test_step_one_measures_from_the_prompt_that_opened_the_turn(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.advance(100)
    run_turn(dsh_host, agent)
    assert reading_texts(agent.events())[1] == step_one_text(
        2, "2026-01-01T00:01:40+00:00[UTC]", "0s"
    )


@pytest.mark.spec("TC-022")
def test_later_steps_measure_from_the_previous_reading_of_the_turn(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 30_000, 45_000)
    assert reading_texts(agent.events()) == [
        step_one_text(1, "2026-01-01T00:00:00+00:00[UTC]", "0s"),
        later_step_text(1, 2, "2026-01-01T00:00:30+00:00[UTC]", "30s"),
        later_step_text(1, 3, "2026-01-01T00:01:15+00:00[UTC]", "45s"),
    ]


@pytest.mark.spec("TC-022", "TC-024")
def test_a_later_step_whose_earlier_steps_were_suppressed_is_unavailable(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.advance(10)
    run_turn(dsh_host, agent, 60_000)
    assert reading_texts(agent.events())[1:] == [
        later_step_text(2, 2, "2026-01-01T00:01:10+00:00[UTC]", "unavailable")
    ]


@pytest.mark.spec("TC-022", "TC-024")
def test_a_later_step_measures_from_the_latest_same_turn_reading_past_suppressed_steps(
    dsh_host,
):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": 20_000})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 15_000, 15_000)
    assert reading_texts(agent.events()) == [
        step_one_text(1, "2026-01-01T00:00:00+00:00[UTC]", "0s"),
        later_step_text(1, 3, "2026-01-01T00:00:30+00:00[UTC]", "30s"),
    ]


@pytest.mark.spec("TC-023", "TC-043", "TC-044")
def test_elapsed_time_uses_millisecond_event_times(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    dsh_host.set_wall_clock(START_MS + 900)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 200)
    assert reading_texts(agent.events()) == [
        step_one_text(1, "2026-01-01T00:00:00+00:00[UTC]", "0s"),
        later_step_text(1, 2, "2026-01-01T00:00:01+00:00[UTC]", "0s"),
    ]


@pytest.mark.parametrize(
    "config", [UTC_CONFIG, {"timeZone": "UTC", "refreshIntervalMs": 3_600_000}]
)
@pytest.mark.spec("TC-014", "TC-023")
def test_a_backward_wall_clock_clamps_the_elapsed_time_to_zero(dsh_host, config):
    dsh_host.load_plugin("time-context", config)
    agent = dsh_host.create_agent()
    agent.script(reply_tools(("lookup", {}), thinking_s=10), reply_text("done"))
    agent.prompt("hello")
    dsh_host.set_wall_clock(START_MS - 60_000)
    dsh_host.advance(10)
    assert reading_texts(agent.events()) == [
        step_one_text(1, "2026-01-01T00:00:00+00:00[UTC]", "0s"),
        later_step_text(1, 2, "2025-12-31T23:59:10+00:00[UTC]", "0s"),
    ]


# -- attempts, not committed steps -------------------------------------------------------


@pytest.mark.spec("TC-025", "TC-026", "TC-027")
def test_a_later_listener_failing_the_attempt_leaves_the_reading(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    dsh_host.add_pre_step_probe("raise", only=(1, 1))
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    events = agent.events()
    assert types_of(events) == ["turn/start", "user/message", "user/message", "turn/end"]
    assert is_reading(events[2])
    assert events[-1]["data"]["reason"]["kind"] == "error"
    assert agent.requests() == []


@pytest.mark.spec("TC-025", "TC-026", "TC-027")
def test_a_later_listener_cancelling_the_attempt_leaves_the_reading(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    dsh_host.add_pre_step_probe("abort", only=(1, 2))
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 5_000)
    events = agent.events()
    assert types_of(events)[-3:] == ["step/end", "user/message", "turn/end"]
    assert is_reading(events[-2])
    assert events[-1]["data"]["reason"]["kind"] == "aborted"
    assert len(agent.requests()) == 1


@pytest.mark.spec("TC-025", "TC-032", "TC-046")
def test_a_failed_preparation_leaves_an_extra_reading_in_the_next_request(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    dsh_host.add_pre_step_probe("raise", only=(1, 1))
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    run_turn(dsh_host, agent)
    readings = reading_events(agent.events())
    [request] = agent.requests()
    assert len(readings) == 2
    assert {reading["seq"] for reading in readings} <= set(seqs_of(request))


@pytest.mark.spec("TC-032", "TC-035")
def test_a_suppressed_attempt_reuses_existing_history_in_its_request(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.advance(10)
    run_turn(dsh_host, agent)
    [reading] = reading_events(agent.events())
    first, second = agent.requests()
    assert reading["seq"] in seqs_of(second)
    assert seqs_of(second)[: len(first)] == seqs_of(first)
    assert [event for event in second if is_reading(event)] == [reading]


@pytest.mark.spec("TC-032")
def test_each_request_is_the_surface_prefix_at_its_step_start(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 0, 0)
    events = agent.events()
    step_starts = [event["seq"] for event in events if event["type"] == "step/start"]
    surface = {"user/message", "assistant/message", "tool/result", "steering/message"}
    expected = [
        [e["seq"] for e in events if e["seq"] < start and e["type"] in surface]
        for start in step_starts
    ]
    assert [seqs_of(request) for request in agent.requests()] == expected


@pytest.mark.spec("TC-031")
def test_no_state_outside_the_readings_carries_time_context(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 0)
    assert set(agent.header()) <= {"id", "seedLength"}
    for event in agent.events():
        if not is_reading(event):
            assert "Time sampled" not in json.dumps(event)
            assert "time-context" not in json.dumps(event)


@pytest.mark.spec("TC-030")
def test_readings_stay_in_the_history_until_a_compaction_shadows_them(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    turn_one = seqs_of(agent.history())
    run_turn(dsh_host, agent)
    first, second = reading_events(agent.events())
    assert {first["seq"], second["seq"]} <= set(seqs_of(agent.history()))
    agent.compact(turn_one, "summary of turn 1")
    assert first["seq"] not in seqs_of(agent.history())
    assert second["seq"] in seqs_of(agent.history())
    assert first in agent.events()


# -- a model of positive-interval scheduling ------------------------------------------


def _duration(ms):
    seconds = max(ms, 0) // 1000
    days, seconds = divmod(seconds, 86_400)
    hours, seconds = divmod(seconds, 3_600)
    minutes, seconds = divmod(seconds, 60)
    parts = [f"{n}{u}" for n, u in ((days, "d"), (hours, "h"), (minutes, "m")) if n]
    return " ".join([*parts, f"{seconds}s"])


def _utc_stamp(ms):
    return datetime.fromtimestamp(ms // 1000, tz=UTC).isoformat() + "[UTC]"


class SchedulingModel:
    """What the README says a sequence of attempts must append."""

    def __init__(self, interval):
        self.interval = interval
        self.now = START_MS
        self.last = None
        self.turn = 0
        self.expected = []

    def attempt(self, step, at, same_turn):
        last = self.last
        if self.interval and last is not None and at >= last and at - last < self.interval:
            return same_turn
        if step == 1:
            elapsed = "0s"
        else:
            elapsed = "unavailable" if same_turn is None else _duration(at - same_turn)
        self.expected.append((self.turn, step, _utc_stamp(at), elapsed))
        self.last = at
        return at

    def run_turn(self, steps):
        self.turn += 1
        same_turn = self.attempt(1, self.now, None)
        for step, (jump_ms, thinking_ms) in enumerate(steps, start=2):
            self.now += jump_ms + thinking_ms
            same_turn = self.attempt(step, self.now, same_turn)

    def fail_turn(self):
        self.turn += 1
        self.attempt(1, self.now, None)


def run_jumping_turn(host, agent, steps):
    """A turn whose step ``k + 1`` is prepared after the wall clock jumped by
    ``steps[k][0]`` ms and the model then thought for ``steps[k][1]`` ms."""
    replies = [reply_tools(("lookup", {}), thinking_s=ms / 1000) for _, ms in steps]
    agent.script(*replies, reply_text("done"))
    agent.prompt("hello")
    for jump_ms, thinking_ms in steps:
        if jump_ms:
            host.set_wall_clock(host.now_ms + jump_ms)
        if thinking_ms:
            host.advance(thinking_ms / 1000)


@st.composite
def scheduling_scripts(draw):
    interval = draw(st.sampled_from([0, 1, 1_000, 60_000]) | st.integers(1, 120_000))
    span = max(interval, 1_000)
    # A jump of the wall clock (either way) while the model thinks, so that a
    # later step can be prepared before the previous reading of its turn.
    jumps = st.just(0) | st.integers(-2 * span, 2 * span)
    thinking = st.sampled_from([1, 999, 1_000, interval or 1]) | st.integers(1, 2 * span)
    operation = st.one_of(
        st.tuples(st.just("turn"), st.lists(st.tuples(jumps, thinking), max_size=3)),
        st.tuples(st.just("clock"), jumps),
        st.tuples(st.just("compact")),
        st.tuples(st.just("resume")),
        st.tuples(st.just("fail")),
    )
    return interval, draw(st.lists(operation, min_size=1, max_size=8))


@pytest.mark.spec("TC-014", "TC-018", "TC-019", "TC-020", "TC-022", "TC-023", "TC-024")
@settings(max_examples=100)
@given(script=scheduling_scripts())
def test_interval_scheduling_matches_the_model(dsh_implementation, script):
    interval, operations = script
    config = {"timeZone": "UTC", "refreshIntervalMs": interval}
    model = SchedulingModel(interval)
    host = dsh_implementation.open_host(start_ms=START_MS)
    try:
        host.load_plugin("time-context", config)
        agent = host.create_agent()
        for operation in operations:
            kind = operation[0]
            if kind == "turn":
                run_jumping_turn(host, agent, operation[1])
                model.run_turn(operation[1])
            elif kind == "clock":
                host.set_wall_clock(host.now_ms + operation[1])
                model.now += operation[1]
            elif kind == "compact":
                shadowed = seqs_of(agent.history())
                if shadowed:
                    agent.compact(shadowed, "summary")
            elif kind == "resume":
                log, session_id = agent.events(), agent.session_id
                agent.dispose()
                host.unload_plugin("time-context")
                host.load_plugin("time-context", config)
                agent = host.create_agent(session_id=session_id, seed=log)
            else:
                host.add_pre_step_probe("raise", only=(model.turn + 1, 1))
                agent.prompt("this attempt fails")
                model.fail_turn()
        actual = [
            (int(r["turn"]), int(r["step"]), r["timestamp"], r["elapsed"])
            for r in map(parse_reading, reading_texts(agent.events()))
        ]
        assert actual == model.expected
    finally:
        host.close()

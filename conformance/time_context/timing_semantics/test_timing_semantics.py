"""README section "时序语义" (Timing semantics): where a reading lands, how a
positive interval is scheduled from the raw log, the elapsed baselines, and
what happens when a later listener fails the attempt."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_conformance.expect import all_facts, pinned, reading_facts, readme
from dsh_conformance.time_context.readings import (
    READING_SOURCE,
    START_MS,
    expect_readings,
    is_reading,
    later_step_text,
    parse_reading,
    reading_events,
    reading_texts,
    run_turn,
    seeded_turn,
    step_one_text,
    text_of,
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
    kinds = types_of(events)
    assert kinds == [
        "turn/start", "user/message", "user/message", "step/start",
        "assistant/message", "step/end", "turn/end",
    ], readme("TC-016", "the reading appended after the prompt and before step/start", kinds)
    assert is_reading(events[2]), readme("TC-016", "the message before step/start to be the "
                                         "reading", events[2])
    requests = agent.requests()
    assert len(requests) == 1, readme("TC-032", "one request for the one step", requests)
    request = requests[0]
    assert seqs_of(request) == [1, 2], readme(
        "TC-016, TC-032", "the step's request to be the prompt and the reading (seqs 1, 2)",
        seqs_of(request))
    assert request[-1]["data"] == events[2]["data"], readme(
        "TC-032", "the request to end with the reading as logged", request[-1])


@pytest.mark.spec("TC-016", "TC-033")
def test_the_reading_carries_exactly_the_plugin_source(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    added = [e for e in agent.events() if e["type"] == "user/message"][1:]
    sources = [(e["data"] or {}).get("source") for e in added]
    assert sources == [{"kind": "plugin", "plugin": "time-context"}], readme(
        "TC-016", "one injected user/message besides the prompt, with the source exactly "
        "{kind: 'plugin', plugin: 'time-context'}; sources", sources)
    expected = step_one_text(1, "2026-01-01T00:00:00+00:00[UTC]", "0s")
    assert reading_facts(text_of(added[0])) == reading_facts(expected), readme(
        "TC-033", "the step-1 reading at 2026-01-01T00:00:00 UTC, 0 s", text_of(added[0]))


@pytest.mark.compat("TC-READING-MESSAGE-SHAPE")
@pytest.mark.spec("TC-016", "TC-033")
def test_the_reading_message_is_one_text_block_beside_its_source(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    readings = reading_events(agent.events())
    assert len(readings) == 1, readme("TC-013", "one reading for a one-step turn", readings)
    data = dict(readings[0]["data"])
    assert set(data) == {"content", "source"}, pinned(
        "TC-READING-MESSAGE-SHAPE", "the reading's data to hold exactly content and source",
        data)
    blocks = [sorted(block) for block in data["content"]]
    assert blocks == [["text", "type"]] and data["content"][0]["type"] == "text", pinned(
        "TC-READING-MESSAGE-SHAPE", "one text block {type, text}", data["content"])


@pytest.mark.spec("TC-015", "TC-016")
def test_the_listener_runs_before_listeners_registered_earlier_or_later(dsh_host):
    earlier = dsh_host.add_pre_step_watcher()
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    later = dsh_host.add_pre_step_watcher()
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 0)
    readings = reading_events(agent.events())
    assert len(readings) == 2, readme("TC-013", "a reading before each of the 2 steps",
                                      readings)
    for name, watcher in (("earlier", earlier), ("later", later)):
        calls = [(call.turn, call.step) for call in watcher.calls]
        assert calls == [(1, 1), (1, 2)], readme(
            "TC-015", f"the {name} pre-step listener to be called for (1,1) and (1,2)", calls)
        # each listener already sees the reading of the step it is called for
        sees = [call.log_length > reading["seq"] for call, reading in
                zip(watcher.calls, readings, strict=True)]
        assert sees == [True, True], readme(
            "TC-015", f"the prepended listener to run before the {name} listener, which "
            "already sees the step's reading (per step)", sees)


@pytest.mark.spec("TC-015", "TC-026")
@pytest.mark.parametrize("added", ["before-loading", "after-loading"])
@pytest.mark.dsh_requires("inject-into-the-step")
def test_the_listener_runs_before_an_ordinary_listener(dsh_host, added):
    # An ordinary watcher runs after prepended listeners and before ordinary
    # ones (docs/fake-host.md): only a prepended listener has acted by then.
    if added == "before-loading":
        watcher = dsh_host.add_pre_step_watcher("raise", only=(1, 2), order="ordinary")
        dsh_host.load_plugin("time-context", UTC_CONFIG)
    else:
        dsh_host.load_plugin("time-context", UTC_CONFIG)
        watcher = dsh_host.add_pre_step_watcher("raise", only=(1, 2), order="ordinary")
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 0)
    calls = [(call.turn, call.step) for call in watcher.calls]
    assert calls == [(1, 1), (1, 2)], readme(
        "TC-015", "the ordinary pre-step listener to be called for (1,1) and (1,2)", calls)
    readings = reading_events(agent.events())
    seen = [sum(reading["seq"] < call.log_length for reading in readings)
            for call in watcher.calls]
    assert seen == [1, 2], readme(
        "TC-015", "the prepended listener to run first: an ordinary listener called for "
        "step 1, then step 2, already sees that step's reading (readings in the log: 1, 2)",
        seen)
    kinds = types_of(agent.events())[-2:]
    assert kinds == ["user/message", "turn/end"] and is_reading(agent.events()[-2]), readme(
        "TC-026", "the step-2 reading to stay when the ordinary listener fails the attempt",
        kinds)


@pytest.mark.spec("TC-016")
def test_an_append_the_host_refuses_fails_the_turn_before_step_start(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    dsh_host.faults.fail_appends(event_type="user/message", first=2)
    run_turn(dsh_host, agent)
    events = agent.events()
    kinds = types_of(events)
    assert kinds == ["turn/start", "user/message", "turn/end"], readme(
        "TC-016", "a refused reading append (through agent.inject, before step/start) to end "
        "the turn with no step", kinds)
    reason = events[-1]["data"]["reason"]
    assert reason["kind"] == "error", readme("TC-016", "the turn to end with an error", reason)
    assert agent.requests() == [], readme("TC-016", "no request", agent.requests())


@pytest.mark.spec("TC-017", "TC-035")
def test_a_suppressed_attempt_appends_nothing(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    before = agent.events()
    dsh_host.advance(1)
    run_turn(dsh_host, agent)
    added = agent.events()[len(before):]
    assert reading_texts(added) == [], readme(
        "TC-017", "no reading 1 s after a reading (interval 60 s)", reading_texts(added))
    # Only the ordinary turn (whatever bookkeeping the host adds): one user message,
    # the prompt, and no other.
    transcript = [t for t in types_of(added) if t in TRANSCRIPT_TYPES]
    assert sorted(transcript) == sorted(TRANSCRIPT_TYPES), readme(
        "TC-017", "a suppressed attempt to append nothing besides the ordinary turn", transcript)


# -- positive-interval scheduling -----------------------------------------------------


@pytest.mark.spec("TC-018", "TC-020", "TC-030")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_reading_shadowed_by_compaction_still_schedules_the_next(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    expect_readings(agent.events(), 1, "TC-014", "for the session's first turn")
    [reading] = reading_events(agent.events())
    agent.compact(seqs_of(agent.history()), "summary of turn 1")
    assert reading["seq"] not in seqs_of(agent.history()), readme(
        "TC-030", "compaction to shadow the reading", seqs_of(agent.history()))
    assert reading in agent.events(), readme("TC-018", "the shadowed reading to stay in the log",
                                             agent.events())
    dsh_host.advance(59.999)
    run_turn(dsh_host, agent)
    observed = reading_events(agent.events())
    assert observed == [reading], readme(
        "TC-018", "the shadowed reading to suppress a reading 59.999 s later (interval 60 s)",
        observed)
    dsh_host.advance(0.001)
    run_turn(dsh_host, agent)
    count = len(reading_events(agent.events()))
    assert count == 2, readme("TC-018", "a second reading once 60 s passed since the shadowed "
                              "one (reading count)", count)


@pytest.mark.spec("TC-019")
@pytest.mark.dsh_requires("inject-into-the-step")
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
    assert turns == ["1", "4"], readme(
        "TC-019", "readings in turns 1 and 4 only (turns at +0, +30, +59.999, +60 s; 60 s "
        "interval)", turns)


@pytest.mark.spec("TC-019")
@pytest.mark.dsh_requires("inject-into-the-step")
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
    observed = reading_texts(resumed.events())
    assert observed == reading_texts(log), readme(
        "TC-019", "a fresh plugin instance to read the interval from the log: no reading 30 s "
        "after the logged one", observed)
    dsh_host.advance(30)
    run_turn(dsh_host, resumed)
    observed = reading_texts(resumed.events())[1:]
    expected = [step_one_text(3, "2026-01-01T00:01:00+00:00[UTC]", "0s")]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-019", "a turn-3 reading at 2026-01-01T00:01:00 UTC once 60 s passed", observed)


@pytest.mark.spec("TC-018", "TC-019")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_readings_left_by_an_earlier_process_schedule_the_next(dsh_host_factory):
    # The earlier process (a host of its own, 10 s earlier) writes the log.
    earlier = dsh_host_factory(start_ms=START_MS - 10_000)
    earlier.load_plugin("time-context", MINUTE_CONFIG)
    writer = earlier.create_agent()
    run_turn(earlier, writer)
    seed = writer.events()
    expect_readings(seed, 1, "TC-014", "in the earlier process's first turn")
    host = dsh_host_factory(start_ms=START_MS)
    host.load_plugin("time-context", MINUTE_CONFIG)
    agent = host.create_agent(session_id=writer.session_id, seed=seed)
    run_turn(host, agent)
    count = len(reading_events(agent.events()))
    assert count == 1, readme(
        "TC-018, TC-019", "a reading left 10 s earlier by another process to suppress the next "
        "one (reading count)", count)
    host.advance(50)
    run_turn(host, agent)
    observed = reading_texts(agent.events())[1:]
    expected = [step_one_text(3, "2026-01-01T00:00:50+00:00[UTC]", "0s")]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-018, TC-019", "a turn-3 reading at 2026-01-01T00:00:50 UTC, 60 s after the earlier "
        "process's", observed)


@pytest.mark.spec("TC-018")
@pytest.mark.dsh_probe(
    "interval-counts-only-plugin-readings",
    "Only readings with the plugin's source start the next interval",
)
@pytest.mark.dsh_requires("inject-into-the-step")
def test_only_readings_with_the_plugin_source_schedule(dsh_host):
    impostor = dict(READING_SOURCE, plugin="time-context-copy")
    seed = seeded_turn(1, START_MS, reading="Time sampled while preparing turn 1, step 1: x")
    seed[2]["data"]["source"] = impostor
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent(seed=seed)
    run_turn(dsh_host, agent)
    count = len(reading_events(agent.events()))
    assert count == 1, readme(
        "TC-018", "a message from another source not to count as an earlier reading, so a "
        "reading is appended (reading count)", count)


@pytest.mark.spec("TC-020")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_each_session_is_scheduled_independently(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    first, second = dsh_host.create_agent(), dsh_host.create_agent()
    run_turn(dsh_host, first)  # +0 s
    dsh_host.advance(10)
    run_turn(dsh_host, second)  # +10 s: its own first reading
    dsh_host.advance(50)
    run_turn(dsh_host, first)  # +60 s: due
    run_turn(dsh_host, second)  # +60 s: 50 s after its own reading
    counts = [len(reading_events(first.events())), len(reading_events(second.events()))]
    assert counts == [2, 1], readme(
        "TC-020", "each session scheduled from its own readings (readings per session)", counts)


@pytest.mark.spec("TC-020")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_existing_readings_are_never_removed(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent()
    seen = []
    for step_ms in ([0, 30_000], [45_000], [], [90_000]):
        run_turn(dsh_host, agent, *step_ms)
        agent.compact(seqs_of(agent.history()), "summary")
        now = reading_events(agent.events())
        assert now[: len(seen)] == seen, readme(
            "TC-020", "every earlier reading to stay in the log after compaction", now)
        seen = now
    # readings at +0 s (turn 1), +75 s (turn 2, step 2) and +165 s (turn 4, step 2)
    assert len(seen) == 3, readme("TC-020", "3 readings (+0 s, +75 s, +165 s)", seen)


# -- elapsed baselines ---------------------------------------------------------------


@pytest.mark.spec("TC-021")
def test_step_one_measures_from_the_prompt_that_opened_the_turn(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.advance(100)
    run_turn(dsh_host, agent)
    observed = expect_readings(agent.events(), 2, "TC-013", "for two one-step turns")[1]
    expected = step_one_text(2, "2026-01-01T00:01:40+00:00[UTC]", "0s")
    assert reading_facts(observed) == reading_facts(expected), readme(
        "TC-021", "step 1 of turn 2 to measure from its own prompt: 0 s elapsed, not the 100 s "
        "since turn 1", observed)


@pytest.mark.spec("TC-022")
def test_later_steps_measure_from_the_previous_reading_of_the_turn(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 30_000, 45_000)
    observed = reading_texts(agent.events())
    expected = [
        step_one_text(1, "2026-01-01T00:00:00+00:00[UTC]", "0s"),
        later_step_text(1, 2, "2026-01-01T00:00:30+00:00[UTC]", "30s"),
        later_step_text(1, 3, "2026-01-01T00:01:15+00:00[UTC]", "45s"),
    ]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-022", "steps 2 and 3 to measure from the previous reading: 0 s, 30 s, 45 s",
        observed)


@pytest.mark.spec("TC-022", "TC-024")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_later_step_whose_earlier_steps_were_suppressed_is_unavailable(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.advance(10)
    run_turn(dsh_host, agent, 60_000)
    observed = reading_texts(agent.events())[1:]
    expected = [later_step_text(2, 2, "2026-01-01T00:01:10+00:00[UTC]", "unavailable")]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-024", "turn 2 step 2 (its step 1 suppressed) to read 'unavailable'", observed)


@pytest.mark.spec("TC-022", "TC-024")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_later_step_measures_from_the_latest_same_turn_reading_past_suppressed_steps(
    dsh_host,
):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": 20_000})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 15_000, 15_000)
    observed = reading_texts(agent.events())
    expected = [
        step_one_text(1, "2026-01-01T00:00:00+00:00[UTC]", "0s"),
        later_step_text(1, 3, "2026-01-01T00:00:30+00:00[UTC]", "30s"),
    ]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-022, TC-024", "step 3 to measure 30 s from the step-1 reading past suppressed "
        "step 2", observed)


# -- attempts, not committed steps -------------------------------------------------------


@pytest.mark.spec("TC-025", "TC-026", "TC-027")
def test_a_later_listener_failing_the_attempt_leaves_the_reading(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    dsh_host.add_pre_step_watcher("raise", only=(1, 1))
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    events = agent.events()
    kinds = types_of(events)
    assert kinds == ["turn/start", "user/message", "user/message", "turn/end"], readme(
        "TC-026, TC-027", "the reading to stay when a later listener fails the attempt", kinds)
    assert is_reading(events[2]), readme("TC-026", "the kept message to be the reading",
                                         events[2])
    reason = events[-1]["data"]["reason"]
    assert reason["kind"] == "error", readme("TC-027", "the turn to end with an error", reason)
    assert agent.requests() == [], readme("TC-025", "no request", agent.requests())


@pytest.mark.spec("TC-025", "TC-026", "TC-027")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_later_listener_cancelling_the_attempt_leaves_the_reading(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    dsh_host.add_pre_step_watcher("abort", only=(1, 2))
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 5_000)
    events = agent.events()
    kinds = types_of(events)[-3:]
    assert kinds == ["step/end", "user/message", "turn/end"], readme(
        "TC-026, TC-027", "the step-2 reading to stay when a later listener cancels the "
        "attempt", kinds)
    assert is_reading(events[-2]), readme("TC-026", "the kept message to be the reading",
                                          events[-2])
    reason = events[-1]["data"]["reason"]
    assert reason["kind"] == "aborted", readme("TC-027", "the turn to end aborted", reason)
    count = len(agent.requests())
    assert count == 1, readme("TC-025", "only step 1 to send a request", count)


@pytest.mark.spec("TC-025", "TC-032", "TC-046")
def test_a_failed_preparation_leaves_an_extra_reading_in_the_next_request(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    dsh_host.add_pre_step_watcher("raise", only=(1, 1))
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    run_turn(dsh_host, agent)
    readings = reading_events(agent.events())
    requests = agent.requests()
    assert len(requests) == 1, readme("TC-025", "one request: the failed attempt sends none",
                                      requests)
    request = requests[0]
    assert len(readings) == 2, readme("TC-046", "both readings (failed and retried attempt) "
                                      "in the log", readings)
    assert {reading["seq"] for reading in readings} <= set(seqs_of(request)), readme(
        "TC-032", "the next request to carry the failed attempt's extra reading too",
        seqs_of(request))


@pytest.mark.spec("TC-032", "TC-035")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_suppressed_attempt_reuses_existing_history_in_its_request(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.advance(10)
    run_turn(dsh_host, agent)
    expect_readings(agent.events(), 1, "TC-014, TC-017", "for two turns 10 s apart "
                    "(interval 60 s)")
    [reading] = reading_events(agent.events())
    requests = agent.requests()
    assert len(requests) == 2, readme("TC-032", "a request for each turn's step", requests)
    first, second = requests
    assert reading["seq"] in seqs_of(second), readme(
        "TC-032", "the suppressed attempt's request to reuse the existing reading",
        seqs_of(second))
    assert seqs_of(second)[: len(first)] == seqs_of(first), readme(
        "TC-032", "the second request to extend the first", seqs_of(second))
    in_second = [event for event in second if is_reading(event)]
    assert in_second == [reading], readme("TC-035", "no new reading in the second request",
                                          in_second)


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
    observed = [seqs_of(request) for request in agent.requests()]
    assert observed == expected, readme(
        "TC-032", f"each request to be the surface prefix at its step/start {expected}", observed)


@pytest.mark.spec("TC-031")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_no_state_outside_the_readings_carries_time_context(dsh_host):
    dsh_host.load_plugin("time-context", MINUTE_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 0)
    header = agent.header()
    assert set(header) <= {"id", "seedLength"}, readme(
        "TC-031", "no time-context state in the session header", header)
    for event in agent.events():
        if not is_reading(event):
            text = json.dumps(event)
            assert "Time sampled" not in text and "time-context" not in text, readme(
                "TC-031", "no time-context state outside the readings", event)


@pytest.mark.spec("TC-030")
def test_readings_stay_in_the_history_until_a_compaction_shadows_them(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    turn_one = seqs_of(agent.history())
    run_turn(dsh_host, agent)
    expect_readings(agent.events(), 2, "TC-013", "for two one-step turns")
    first, second = reading_events(agent.events())
    history = seqs_of(agent.history())
    assert {first["seq"], second["seq"]} <= set(history), readme(
        "TC-030", "both readings in the derived history before compaction", history)
    agent.compact(turn_one, "summary of turn 1")
    history = seqs_of(agent.history())
    assert first["seq"] not in history and second["seq"] in history, readme(
        "TC-030", f"compaction of turn 1 to shadow reading {first['seq']} only", history)
    assert first in agent.events(), readme("TC-030", "the shadowed reading to stay in the log",
                                           agent.events())


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
                host.add_pre_step_watcher("raise", only=(model.turn + 1, 1))
                agent.prompt("this attempt fails")
                model.fail_turn()
        actual = all_facts(reading_texts(agent.events()))
        expected = [
            reading_facts(
                step_one_text(turn, stamp, elapsed) if step == 1
                 else later_step_text(turn, step, stamp, elapsed)
            )
            for turn, step, stamp, elapsed in model.expected
        ]
        assert actual == expected, readme(
            "TC-014, TC-018..TC-024", "the readings of the README's scheduling model "
            f"(turn, step, time, elapsed) {model.expected}", reading_texts(agent.events()))
    finally:
        host.close()

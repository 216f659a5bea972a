"""README section "已知限制与暂缓事项" (Known limitations and deferred work)."""

from __future__ import annotations

import pytest

from dsh_conformance.expect import all_facts, pinned, reading_facts, readme
from dsh_conformance.time_context.readings import (
    START_MS,
    expect_readings,
    is_reading,
    later_step_text,
    parse_reading,
    reading_events,
    run_turn,
    step_one_text,
    text_of,
)
from pytest_dsh import reply_text, reply_tools

pytestmark = [pytest.mark.dsh_requires("time-context")]


@pytest.mark.spec("TC-043")
def test_timestamps_omit_sub_second_precision_while_event_times_keep_it(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    dsh_host.set_wall_clock(START_MS + 999)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 1_999)
    expect_readings(agent.events(), 2, "TC-013", "for a two-step turn")
    first, second = reading_events(agent.events())
    times = (first["time"], second["time"])
    assert times == (START_MS + 999, START_MS + 2_998), readme(
        "TC-043", "durable event times to keep their milliseconds (+999, +2998 ms)", times)
    texts = [text_of(r) for r in (first, second)]
    expected = [
        step_one_text(1, "2026-01-01T00:00:00+00:00[UTC]", "0s"),
        later_step_text(1, 2, "2026-01-01T00:00:02+00:00[UTC]", "1s"),
    ]

    def shown(facts):  # the timestamps of both readings and the elapsed time of step 2
        if any(isinstance(f, str) for f in facts):
            return facts
        return [(f.local_time, f.offset, f.zone) for f in facts] + [facts[1].elapsed_s]

    assert shown(all_facts(texts)) == shown(all_facts(expected)), readme(
        "TC-043", "whole-second timestamps (00:00:00, 00:00:02) and a whole-second duration "
        "(1 s for 1999 ms)", texts)


@pytest.mark.compat("TC-TIMESTAMP-TEXT", "TC-DURATION-TEXT")
@pytest.mark.spec("TC-043")
def test_sub_second_precision_is_truncated_in_the_official_text(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    dsh_host.set_wall_clock(START_MS + 999)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 1_999)
    texts = expect_readings(agent.events(), 2, "TC-013", "for a two-step turn")
    parsed = [parse_reading(text) for text in texts]
    observed = [r["timestamp"] for r in parsed] + [parsed[-1]["elapsed"]]
    expected = ["2026-01-01T00:00:00+00:00[UTC]", "2026-01-01T00:00:02+00:00[UTC]", "1s"]
    assert observed == expected, pinned(
        "TC-TIMESTAMP-TEXT, TC-DURATION-TEXT",
        f"the two timestamps and the step-2 elapsed time {expected}", observed)


@pytest.mark.spec("TC-044")
def test_elapsed_time_counts_from_the_durable_append_not_the_send(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    agent.script(reply_text("first", thinking_s=30), reply_text("second"))
    agent.prompt("first")
    dsh_host.advance(5)
    agent.prompt("sent at +5 s, appended when the agent is free at +30 s")
    dsh_host.advance(25)
    observed = expect_readings(agent.events(), 2, "TC-013", "for two one-step turns")[1]
    expected = step_one_text(2, "2026-01-01T00:00:30+00:00[UTC]", "0s")
    assert reading_facts(observed) == reading_facts(expected), readme(
        "TC-044", "a prompt sent at +5 s and appended at +30 s to read 0 s elapsed (from the "
        "durable append) at 00:00:30", observed)


@pytest.mark.dsh_requires("process-zone")
@pytest.mark.spec("TC-045")
def test_the_default_zone_is_the_process_zone_at_load_not_a_later_one(dsh_host, monkeypatch):
    monkeypatch.setenv("TZ", "Europe/London")
    dsh_host.load_plugin("time-context")
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    [observed] = expect_readings(agent.events(), 1, "TC-013", "for a one-step turn")
    facts = reading_facts(observed)
    stamp = facts if isinstance(facts, str) else (facts.local_time, facts.offset, facts.zone)
    assert stamp == ("2026-01-01T00:00:00", "+00:00", "Europe/London"), readme(
        "TC-045", "the zone captured at load (TZ=Europe/London), not the later TZ=Asia/Tokyo",
        observed)


@pytest.mark.spec("TC-046")
def test_cancelled_and_failed_attempts_keep_their_readings_in_history(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    dsh_host.add_pre_step_watcher("raise", only=(1, 1))
    dsh_host.add_pre_step_watcher("abort", only=(2, 1))
    agent = dsh_host.create_agent()
    for _ in range(3):
        run_turn(dsh_host, agent)
    reasons = [e["data"]["reason"]["kind"] for e in agent.events() if e["type"] == "turn/end"]
    assert reasons == ["error", "aborted", "completed"], readme(
        "TC-046", "the failed and cancelled turns to end error and aborted", reasons)
    kept = [e for e in agent.history() if is_reading(e)]
    assert len(kept) == 3, readme(
        "TC-046", "the readings of failed and cancelled attempts to stay in history (3)", kept)


@pytest.mark.spec("TC-046")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_positive_interval_reduces_but_does_not_remove_the_cost(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": 60_000})
    dsh_host.add_pre_step_watcher("raise", only=(1, 1))
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    agent.script(reply_tools(("lookup", {}), thinking_s=5), reply_text("done"))
    agent.prompt("again")
    dsh_host.advance(5)
    readings = [e for e in agent.history() if is_reading(e)]
    assert len(readings) == 1, readme(
        "TC-046", "the failed attempt's reading to stay and suppress the next (60 s interval)",
        readings)
    turn = parse_reading(text_of(readings[0]))["turn"]
    assert turn == "1", readme("TC-046", "the kept reading to be turn 1's", turn)

"""README section "已知限制与暂缓事项" (Known limitations and deferred work)."""

from __future__ import annotations

import pytest

from dsh_conformance.time_context.readings import (
    START_MS,
    is_reading,
    parse_reading,
    reading_events,
    reading_texts,
    run_turn,
    step_one_text,
)
from pytest_dsh import reply_text, reply_tools

pytestmark = [pytest.mark.dsh_requires("time-context")]


@pytest.mark.spec("TC-043")
def test_timestamps_omit_sub_second_precision_while_event_times_keep_it(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    dsh_host.set_wall_clock(START_MS + 999)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 1_999)
    first, second = reading_events(agent.events())
    assert (first["time"], second["time"]) == (START_MS + 999, START_MS + 2_998)
    assert [parse_reading(r["data"]["content"][0]["text"])["timestamp"]
            for r in (first, second)] == [
        "2026-01-01T00:00:00+00:00[UTC]",
        "2026-01-01T00:00:02+00:00[UTC]",
    ]
    assert parse_reading(second["data"]["content"][0]["text"])["elapsed"] == "1s"


@pytest.mark.spec("TC-044")
def test_elapsed_time_counts_from_the_durable_append_not_the_send(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    agent.script(reply_text("first", thinking_s=30), reply_text("second"))
    agent.prompt("first")
    dsh_host.advance(5)
    agent.prompt("sent at +5 s, appended when the agent is free at +30 s")
    dsh_host.advance(25)
    assert reading_texts(agent.events())[1] == step_one_text(
        2, "2026-01-01T00:00:30+00:00[UTC]", "0s"
    )


@pytest.mark.dsh_requires("process-zone")
@pytest.mark.spec("TC-045")
def test_the_default_zone_is_the_process_zone_at_load_not_a_later_one(dsh_host, monkeypatch):
    monkeypatch.setenv("TZ", "Europe/London")
    dsh_host.load_plugin("time-context")
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    assert parse_reading(reading_texts(agent.events())[0])["timestamp"] == (
        "2026-01-01T00:00:00+00:00[Europe/London]"
    )


@pytest.mark.spec("TC-046")
def test_cancelled_and_failed_attempts_keep_their_readings_in_history(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    dsh_host.add_pre_step_probe("raise", only=(1, 1))
    dsh_host.add_pre_step_probe("abort", only=(2, 1))
    agent = dsh_host.create_agent()
    for _ in range(3):
        run_turn(dsh_host, agent)
    reasons = [e["data"]["reason"]["kind"] for e in agent.events() if e["type"] == "turn/end"]
    assert reasons == ["error", "aborted", "completed"]
    assert len([e for e in agent.history() if is_reading(e)]) == 3


@pytest.mark.spec("TC-046")
def test_a_positive_interval_reduces_but_does_not_remove_the_cost(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": 60_000})
    dsh_host.add_pre_step_probe("raise", only=(1, 1))
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    agent.script(reply_tools(("lookup", {}), thinking_s=5), reply_text("done"))
    agent.prompt("again")
    dsh_host.advance(5)
    readings = [e for e in agent.history() if is_reading(e)]
    assert len(readings) == 1
    assert parse_reading(readings[0]["data"]["content"][0]["text"])["turn"] == "1"

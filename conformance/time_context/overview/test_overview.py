"""The README's opening paragraph: what the plugin adds and that it is optional."""

from __future__ import annotations

import pytest

from dsh_conformance.expect import reading_facts, readme
from dsh_conformance.time_context.readings import (
    reading_events,
    run_turn,
    step_one_text,
    text_of,
)

pytestmark = [pytest.mark.dsh_requires("time-context")]


@pytest.mark.spec("TC-001", "TC-003")
def test_a_reading_is_a_durable_session_event_with_the_zoned_time_and_elapsed_time(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "Asia/Shanghai"})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    readings = reading_events(agent.events())
    assert len(readings) == 1, readme("TC-013", "one reading for a one-step turn", readings)
    reading = readings[0]
    assert reading["type"] == "user/message", readme(
        "TC-001, TC-016", "the reading to be a durable user/message event", reading)
    assert reading["time"] == 1_767_225_600_000, readme(
        "TC-001", "the reading logged at the sampling time 1767225600000", reading["time"])
    expected = step_one_text(1, "2026-01-01T08:00:00+08:00[Asia/Shanghai]", "0s")
    assert reading_facts(text_of(reading)) == reading_facts(expected), readme(
        "TC-001", "the zoned time (2026-01-01T08:00:00 +08:00 Asia/Shanghai) and the elapsed "
        "time (0 s)", text_of(reading))


@pytest.mark.spec("TC-002")
def test_nothing_is_added_unless_the_plugin_is_loaded(dsh_host):
    assert "time-context" in dsh_host.available_plugins(), readme(
        "TC-002", "the implementation to offer time-context", dsh_host.available_plugins())
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 0)
    observed = reading_events(agent.events())
    assert observed == [], readme("TC-002", "no reading unless the plugin is loaded", observed)


@pytest.mark.spec("TC-002")
def test_the_plugin_needs_no_other_plugin_and_stops_when_unloaded(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.unload_plugin("time-context")
    run_turn(dsh_host, agent)
    count = len(reading_events(agent.events()))
    assert count == 1, readme(
        "TC-002", "one reading while loaded (with no other plugin) and none after unloading",
        count)

"""The fault plan's start, message and zone seams behave the same on both hosts.

Every test runs on the Python fake host (reference plugins) and on the Node
bridge (official build), see ``conftest.py``:

* ``fail_background_starts``: the host refuses to start a plugin's background
  run (a task on the fake host's loop; ``withoutInitiator`` on the bridge);
* ``fail_followup_messages``: building a plugin's follow-up message fails
  before ``followup`` sees it;
* ``fail_zone_lookups``: a plugin's zone lookup fails while it loads.

These pin the kit's own driver contract (docs/fake-host.md), not a README.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_dsh import PluginLoadError
from pytest_dsh.driving.api import AgentDriver, HostDriver

AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}
SCHEDULE_TOOLS = ["schedule_create", "schedule_list", "schedule_delete"]


def dispatches(agent: AgentDriver) -> list[dict[str, Any]]:
    return [
        e["data"]
        for e in agent.events()
        if e["type"] == "schedule/change" and e["data"].get("operation") == "dispatch"
    ]


def plugin_texts(agent: AgentDriver, plugin: str) -> list[str]:
    """Texts of the ``user/message`` events a plugin contributed."""
    texts = []
    for event in agent.events():
        data = event["data"]
        body = data.get("message", data) if "content" not in data else data
        source = body.get("source") or {}
        if event["type"] == "user/message" and source.get("plugin") == plugin:
            texts.append("".join(block.get("text", "") for block in body["content"]))
    return texts


def seen(host: HostDriver, kind: str) -> list[int]:
    """How many matching calls each planned window of ``kind`` has seen."""
    return [int(w["seen"]) for w in host.faults.snapshot() if w["kind"] == kind]  # type: ignore[call-overload]


def schedule_host(host: HostDriver) -> HostDriver:
    host.load_plugin("schedule")
    return host


# -- background starts ---------------------------------------------------------------


def test_a_refused_start_leaves_the_agent_live_with_its_tools_and_starts_nothing(host):
    schedule_host(host)
    host.faults.fail_background_starts()
    agent = host.create_agent()
    assert agent.is_live is True
    assert agent.tool_names() == SCHEDULE_TOOLS
    assert host.flushes == []  # the owner's first preflight never ran
    assert seen(host, "start") == [1]
    assert [w for w in host.warnings if agent.id in w and "could not start" in w] != []
    assert host.errors == []


def test_without_a_refusal_the_owner_starts_with_a_preflight(host):
    schedule_host(host)
    agent = host.create_agent()
    assert [record.session_id for record in host.flushes] == [agent.session_id]
    assert host.warnings == []


def test_the_next_trigger_starts_the_owner_once_starts_succeed(host):
    schedule_host(host)
    host.faults.fail_background_starts()
    agent = host.create_agent()
    agent.call_tool("schedule_create", AFTER_60)  # its preflight asks the owner to drive
    host.advance(60)
    assert [d["id"] for d in dispatches(agent)] == ["schedule-1"]
    assert len(plugin_texts(agent, "schedule")) == 1


def test_a_refused_start_waits_for_a_trigger_and_arms_no_timer(host):
    schedule_host(host)
    first = host.create_agent()
    first.call_tool("schedule_create", AFTER_60)
    host.crash()
    host.advance(120)  # overdue while the session is cold
    host.faults.fail_background_starts()
    agent = host.resume(first.session_id)
    host.advance(24 * 3600)
    assert dispatches(agent) == []
    agent.call_tool("schedule_list", {})
    assert [d["id"] for d in dispatches(agent)] == ["schedule-1"]


def test_the_hosts_own_work_is_no_background_start(host):
    host.faults.fail_background_starts(count=None)
    agent = host.create_agent()  # no plugin loaded: nothing but the host runs
    agent.prompt("hello")
    assert host.flush_session(agent) is True
    assert seen(host, "start") == [0]
    assert [e["type"] for e in agent.events()].count("turn/end") == 1


# -- follow-up message builds -----------------------------------------------------------


def test_a_failed_message_build_queues_nothing_and_never_reaches_followup(host):
    agent = schedule_host(host).create_agent()
    agent.call_tool("schedule_create", AFTER_60)
    host.faults.fail_followup_messages()
    host.faults.fail_followups(count=None)
    host.advance(60)
    assert (seen(host, "message"), seen(host, "followup")) == ([1], [0])
    assert dispatches(agent) == []
    assert plugin_texts(agent, "schedule") == []
    assert agent.counters().pending_followups == 0
    assert [w for w in host.warnings if "fault plan" in w] != []


def test_a_message_build_fault_counts_from_the_next_build(host):
    agent = schedule_host(host).create_agent()
    agent.call_tool("schedule_create", {"prompt": "A", "after_seconds": 60})
    agent.call_tool("schedule_create", {"prompt": "B", "after_seconds": 120})
    host.faults.fail_followup_messages(first=2)
    host.advance(60)
    assert [d["id"] for d in dispatches(agent)] == ["schedule-1"]
    host.advance(60)
    assert [d["id"] for d in dispatches(agent)] == ["schedule-1"]
    assert seen(host, "message") == [2]
    assert len(plugin_texts(agent, "schedule")) == 1


def test_a_driver_prompt_is_not_a_plugin_message(host):
    host.faults.fail_followup_messages(count=None)
    agent = host.create_agent()
    agent.prompt("hello")
    assert seen(host, "message") == [0]
    assert [e["type"] for e in agent.events()].count("turn/end") == 1


# -- zone lookups at load -------------------------------------------------------------


def test_a_zone_lookup_fault_fails_one_load_and_the_next_load_succeeds(host):
    host.faults.fail_zone_lookups()
    with pytest.raises(PluginLoadError):
        host.load_plugin("time-context", {"timeZone": "Asia/Shanghai"})
    assert seen(host, "zone") == [1]
    host.load_plugin("time-context", {"timeZone": "Asia/Shanghai"})
    agent = host.create_agent()
    agent.prompt("hello")
    (text,) = plugin_texts(agent, "time-context")
    assert "2026-01-01T08:00:00+08:00[Asia/Shanghai]" in text


def test_a_zone_lookup_fault_from_the_second_lookup_spares_the_first_load(host):
    host.faults.fail_zone_lookups(first=2)
    host.load_plugin("time-context", {"timeZone": "UTC"})
    host.unload_plugin("time-context")
    with pytest.raises(PluginLoadError):
        host.load_plugin("time-context", {"timeZone": "UTC"})
    assert seen(host, "zone") == [2]


def test_zone_lookups_outside_a_load_are_neither_faulted_nor_counted(host):
    host.load_plugin("time-context", {"timeZone": "Asia/Shanghai"})
    host.load_plugin("schedule")  # loads without looking a zone up
    host.faults.fail_zone_lookups(count=None)
    agent = host.create_agent()
    agent.prompt("hello")
    local = {"date": "2026-01-02", "time": "09:00:00", "time_zone": "Europe/Berlin"}
    created = agent.call_tool("schedule_create", {"prompt": "Call", "at": local}).value
    assert created["scheduledAt"] == "2026-01-02T08:00:00.000Z"
    assert len(plugin_texts(agent, "time-context")) == 1
    assert seen(host, "zone") == [0]

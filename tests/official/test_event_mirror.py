"""The driver's copy of an agent's live log (``events`` with ``mirror``).

After an agent's first ``events()`` the bridge sends what its log grew by with
every reply, and the driver answers later reads from that copy. These tests
hold every such read to what the bridge itself answers for the same log at
the same moment (a plain ``events`` request, which keeps no copy).
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_dsh.npm.bridge import BridgeHostDriver
from pytest_dsh.npm.bridge.driver import BridgeAgentDriver

pytestmark = pytest.mark.usefixtures("bridge_available")

AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}
EVERY_300 = {"prompt": "Water", "every_seconds": 300}


def bridge_log(host: BridgeHostDriver, agent: BridgeAgentDriver, start: int = 0) -> Any:
    """The log as the bridge answers a request for it now."""
    result, _ = host.process.request("events", agent=agent.handle, start=start)
    return result


def requests_of(host: BridgeHostDriver, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ops the driver sends from now on."""
    sent: list[str] = []
    request = host.process.request

    def counted(op: str, **args: Any) -> Any:
        sent.append(op)
        return request(op, **args)

    monkeypatch.setattr(host.process, "request", counted)
    return sent


def test_every_read_is_the_log_the_bridge_holds(host: BridgeHostDriver) -> None:
    host.load_plugin("schedule")
    host.load_plugin("time-context")
    agent = host.create_agent()
    other = host.create_agent()
    assert agent.events() == bridge_log(host, agent)
    steps = [
        lambda: agent.call_tool("schedule_create", AFTER_60),
        lambda: other.call_tool("schedule_create", EVERY_300),
        lambda: host.advance(60),  # a reminder fires: a turn with the scripted model
        lambda: agent.append_event("custom/note", {"n": 1}),
        lambda: agent.call_tool("schedule_list", {}),
        lambda: agent.prompt("hello"),
        lambda: host.advance(600),
        lambda: agent.compact([e["seq"] for e in agent.history()][:2], "summary"),
    ]
    for step in steps:
        step()
        for each in (agent, other):
            whole = bridge_log(host, each)
            assert each.events() == whole
            assert each.events(3) == whole[3:] == bridge_log(host, each, 3)
            assert each.events(len(whole) + 5) == []
    assert len(agent.events()) > 10


def test_a_crashed_and_a_resumed_agent_read_their_own_logs(host: BridgeHostDriver) -> None:
    host.load_plugin("schedule")
    agent = host.create_agent()
    agent.call_tool("schedule_create", AFTER_60)
    assert agent.events() == bridge_log(host, agent)
    agent.append_event("custom/note", {"lost": True})
    host.crash()
    assert agent.events() == bridge_log(host, agent)
    resumed = host.resume(agent.session_id)
    resumed.events()
    host.advance(60)
    assert resumed.events() == bridge_log(host, resumed)
    assert agent.events() == bridge_log(host, agent)


def test_only_the_first_read_asks_the_bridge(
    host: BridgeHostDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    host.load_plugin("schedule")
    agent = host.create_agent()
    sent = requests_of(host, monkeypatch)
    agent.events()
    agent.call_tool("schedule_create", AFTER_60)
    agent.events()
    agent.events(2)
    assert sent == ["events", "call_tool"]


def test_each_read_is_a_copy_of_its_own(host: BridgeHostDriver) -> None:
    agent = host.create_agent()
    agent.append_event("custom/note", {"n": 1})
    first = agent.events()
    first[-1]["data"]["n"] = 99
    first.append({"type": "forged"})
    second = agent.events()
    assert second[-1]["data"] == {"n": 1}
    assert second == bridge_log(host, agent)
    second[-1]["data"]["n"] = 98
    assert agent.events()[-1]["data"] == {"n": 1}


def test_a_closed_host_reads_nothing(open_host: Any) -> None:
    host = open_host()
    agent = host.create_agent()
    agent.events()
    host.close()
    with pytest.raises(RuntimeError, match="closed"):
        agent.events()


def test_a_log_deeper_than_json_loads_reads_is_copied_whole(host: BridgeHostDriver) -> None:
    deep: dict[str, object] = {}
    for _ in range(3_000):
        deep = {"a": deep}
    agent = host.create_agent()
    agent.events()
    agent.append_event("custom/deep", deep)
    for _ in range(2):
        data = agent.events()[-1]["data"]
        depth = 0
        while data:
            depth, data = depth + 1, data["a"]
        assert depth == 3_000

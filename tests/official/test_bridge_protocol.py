"""The bridge protocol's Python half, with no Node process: the driver runs
over an in-memory transport, and every request it can make is checked against
``protocol.json`` (the file the Node server also reads)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import pytest_dsh
from pytest_dsh.contract import AppendRejectedError
from pytest_dsh.driving.runaway import RunawayError
from pytest_dsh.errors import PluginLoadError
from pytest_dsh.npm._install import bridge_source
from pytest_dsh.npm.bridge import BridgeHostDriver
from pytest_dsh.npm.bridge.channel import (
    BridgeChannel,
    BridgeCrashedError,
    MemoryTransport,
    failed,
    ok,
)
from pytest_dsh.npm.bridge.protocol import (
    PROTOCOL_FILE,
    BridgeProtocolError,
    UndeclaredOpError,
    kit_protocol,
    shape_problem,
)

START_MS = 1_767_225_600_000
PACKAGE = Path(pytest_dsh.__file__).parent
# Every module that sends bridge requests, with the receiver its calls go through.
SENDERS = {
    PACKAGE / "npm" / "bridge" / "driver.py": ("_call", "request"),
    PACKAGE / "official" / "_domain.py": ("request",),
}
AGENT_INFO = {
    "handle": "h1", "id": "session-1", "session_id": "session-1",
    "is_root": True, "status": "idle", "is_live": True,
}


def _answer(request: dict[str, Any]) -> dict[str, Any]:
    """A minimal bridge: a host that answers what these tests ask."""
    op = request["op"]
    if op == "reset":
        return ok(request, {"now": request["start_ms"]}, now=request["start_ms"])
    if op == "create_agent":
        return ok(request, AGENT_INFO)
    if op == "load_plugin" and request["name"] == "broken":
        return failed(request, "PluginLoadError", "config refused", plugin="broken")
    if op == "append_event":
        return failed(request, "NodeError", "session is not live", name="Error")
    if op == "call_tool":
        outcome = {"is_error": False, "value": [], "text": "[]", "error": None}
        flush = {"session_id": "session-1", "outcome": "durable", "wall_ms": START_MS,
                 "durable_length": 3}
        return ok(request, outcome, now=START_MS + 5, flushes=[flush], warnings=["slow"])
    return ok(request, None)


@pytest.fixture
def transport() -> MemoryTransport:
    return MemoryTransport(_answer)


@pytest.fixture
def host(transport: MemoryTransport) -> Iterator[BridgeHostDriver]:
    driver = BridgeHostDriver(
        "memory", "0", start_ms=START_MS, channel=BridgeChannel(transport, where="memory")
    )
    yield driver
    driver.close()


def test_the_channel_greets_with_the_kits_protocol_version(transport: MemoryTransport) -> None:
    BridgeChannel(transport)
    assert transport.requests == [{"id": 1, "op": "hello", "protocol": kit_protocol().version}]


def test_a_bridge_of_another_protocol_version_is_refused_with_one_clear_error() -> None:
    version = kit_protocol().version
    greeting = {"ready": True, "protocol": version + 1, "node": "v22", "versions": {}}
    transport = MemoryTransport(greeting=greeting)
    with pytest.raises(BridgeProtocolError) as raised:
        BridgeChannel(transport, where="/old/bridge")
    message = str(raised.value)
    assert f"/old/bridge speaks protocol {version + 1}" in message
    assert f"this kit speaks protocol {version}" in message
    assert "DSH_BRIDGE_DIR" in message
    assert transport.requests == []  # nothing sent to a bridge we cannot speak to
    assert not transport.running()


def test_a_bridge_without_a_declared_protocol_is_refused() -> None:
    transport = MemoryTransport(greeting={"ready": True, "node": "v22", "versions": {}})
    with pytest.raises(BridgeProtocolError, match="speaks no declared protocol"):
        BridgeChannel(transport, where="/old/bridge")


def test_a_bridge_that_refuses_the_kits_hello_is_refused() -> None:
    def refuse(request: dict[str, Any]) -> dict[str, Any]:
        return failed(request, "ProtocolError", "this bridge speaks protocol 7")

    expected = r"refused this kit's protocol.*speaks protocol 7"
    with pytest.raises(BridgeProtocolError, match=expected):
        BridgeChannel(MemoryTransport(refuse, answer_hello=False), where="/b")


def test_an_undeclared_op_is_refused_before_anything_is_sent(transport: MemoryTransport) -> None:
    channel = BridgeChannel(transport)
    sent = len(transport.requests)
    with pytest.raises(UndeclaredOpError, match="'teleport' is not declared"):
        channel.request("teleport")
    with pytest.raises(UndeclaredOpError, match="declares no parameter 'speed'"):
        channel.request("advance", ms=5, speed=2)
    with pytest.raises(UndeclaredOpError, match="needs 'ms'"):
        channel.request("advance")
    assert len(transport.requests) == sent
    assert channel.alive  # a programming error, not a broken channel


def test_a_reply_to_another_request_stops_the_channel() -> None:
    def stale(request: dict[str, Any]) -> dict[str, Any]:
        return {**ok(request, None), "id": request["id"] + 1} if request["op"] == "settle" \
            else ok(request, None)

    transport = MemoryTransport(stale)
    channel = BridgeChannel(transport)
    with pytest.raises(BridgeCrashedError, match="not its answer"):
        channel.request("settle")
    assert not channel.alive and not transport.running()
    with pytest.raises(BridgeCrashedError, match="unusable"):
        channel.request("settle")


def test_a_line_that_is_not_json_stops_the_channel() -> None:
    def garbage(request: dict[str, Any]) -> bytes:
        return b"Segmentation fault"

    channel = BridgeChannel(MemoryTransport(garbage))
    with pytest.raises(BridgeCrashedError, match="not JSON: 'Segmentation fault'"):
        channel.request("settle")


def test_the_driver_runs_over_an_in_memory_bridge(
    host: BridgeHostDriver, transport: MemoryTransport
) -> None:
    agent = host.create_agent()
    assert (agent.id, agent.session_id, agent.is_root) == ("session-1", "session-1", True)
    outcome = agent.call_tool("schedule_list", {})
    assert (outcome.is_error, outcome.value, outcome.text) == (False, [], "[]")
    # What came back with the reply is mirrored on the Python side.
    assert host.now_ms == START_MS + 5
    assert [(f.session_id, f.outcome, f.durable_length) for f in host.flushes] == [
        ("session-1", "durable", 3)
    ]
    assert host.warnings == ["slow"]
    ops = [request["op"] for request in transport.requests]
    assert ops == ["hello", "reset", "create_agent", "call_tool"]
    assert transport.requests[-1]["arguments"] == {}


def test_the_driver_sends_fault_windows_once_they_change(
    host: BridgeHostDriver, transport: MemoryTransport
) -> None:
    host.run_until_idle()
    assert "faults" not in transport.requests[-1]
    host.faults.fail_flushes("rejected", count=1)
    host.run_until_idle()
    windows = transport.requests[-1]["faults"]
    assert [(w["kind"], w["count"]) for w in windows] == [("flush", 1)]
    host.run_until_idle()
    assert "faults" not in transport.requests[-1]  # unchanged: not sent again


def test_error_replies_become_the_driver_apis_exceptions(host: BridgeHostDriver) -> None:
    with pytest.raises(PluginLoadError, match="config refused"):
        host.load_plugin("broken")
    agent = host.create_agent()
    with pytest.raises(AppendRejectedError, match="session is not live"):
        agent.append_event("note", {})


def test_a_closed_in_memory_host_leaves_its_channel_to_its_owner(
    transport: MemoryTransport,
) -> None:
    channel = BridgeChannel(transport)
    driver = BridgeHostDriver("memory", "0", start_ms=START_MS, channel=channel)
    driver.close()
    assert transport.requests[-1]["op"] == "close"
    assert channel.alive


RECYCLE_ANSWERS = {
    "proved clean": ({"clean": True, "reason": None}, True),
    "not proved clean": ({"clean": False, "reason": "real work still in flight"}, False),
    "recycle failed": (None, False),
}


@pytest.mark.parametrize("case", RECYCLE_ANSWERS, ids=list(RECYCLE_ANSWERS))
def test_after_a_runaway_the_channel_is_kept_only_when_the_bridge_proves_it_clean(
    case: str,
) -> None:
    answer, kept = RECYCLE_ANSWERS[case]

    def bridge(request: dict[str, Any]) -> dict[str, Any]:
        if request["op"] == "prompt":
            return failed(request, "RunawayError", "a turn that never ends", symptom=None)
        if request["op"] == "recycle":
            return ok(request, answer) if answer else failed(request, "NodeError", "boom")
        return _answer(request)

    transport = MemoryTransport(bridge)
    channel = BridgeChannel(transport)
    driver = BridgeHostDriver("memory", "0", start_ms=START_MS, channel=channel)
    agent = driver.create_agent()
    with pytest.raises(RunawayError):
        agent.prompt("hello")
    sent = len(transport.requests)
    with pytest.raises(BridgeCrashedError, match="this host is unusable: the test ran away"):
        agent.events()
    assert len(transport.requests) == sent  # refused here, nothing sent
    driver.close()
    assert [r["op"] for r in transport.requests[sent:]] == ["recycle"]  # instead of close
    assert channel.alive is kept and transport.running() is kept


def test_a_driver_takes_a_runtime_or_a_channel_not_both(transport: MemoryTransport) -> None:
    with pytest.raises(TypeError, match="exactly one"):
        BridgeHostDriver("memory", "0", start_ms=START_MS)


# -- the declaration itself --------------------------------------------------------


def _call_sites() -> Iterator[tuple[str, int, str, set[str]]]:
    """(file, line, op, keyword names) of every literal bridge request in the kit."""
    for path, receivers in SENDERS.items():
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in receivers or not node.args:
                continue
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                names = {keyword.arg for keyword in node.keywords if keyword.arg is not None}
                yield path.name, node.lineno, first.value, names


def test_every_request_the_kit_makes_is_declared() -> None:
    protocol = kit_protocol()
    sites = list(_call_sites())
    assert len(sites) > 50  # the scan sees the driver's calls
    problems = []
    for file, line, op, names in sites:
        spec = protocol.ops.get(op)
        if spec is None:
            problems.append(f"{file}:{line}: op {op!r} is not declared")
            continue
        undeclared = names - set(spec.params)
        if undeclared:
            problems.append(f"{file}:{line}: {op} declares no {sorted(undeclared)}")
    assert problems == []


def test_an_agent_drivers_calls_carry_the_agent_parameter() -> None:
    # BridgeAgentDriver._call adds agent=...: every op it sends must declare it.
    tree = ast.parse((PACKAGE / "npm" / "bridge" / "driver.py").read_text("utf-8"))
    agent_class = next(
        node for node in tree.body
        if isinstance(node, ast.ClassDef) and node.name == "BridgeAgentDriver"
    )
    ops = {
        node.args[0].value
        for node in ast.walk(agent_class)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and node.func.attr == "_call" and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "self" and node.args
        and isinstance(node.args[0], ast.Constant)
    }
    assert ops and all("agent" in kit_protocol().ops[op].params for op in ops)


def test_every_declared_op_has_a_handler_in_the_server_and_back() -> None:
    server = (bridge_source() / "server.mjs").read_text("utf-8")
    start = server.index("const ops = {")
    body = server[start:server.index("\n}\n", start)]
    handled = set(re.findall(r"^  async (\w+)\(", body, re.MULTILINE))
    lifecycle = (bridge_source() / "lib" / "lifecycle.mjs").read_text("utf-8")
    test_ops = set(re.findall(r"^    async (_test_\w+)\(", lifecycle, re.MULTILINE))
    declared = kit_protocol().ops
    assert handled | test_ops == set(declared)
    assert {name for name, spec in declared.items() if spec.test_only} == test_ops


def test_the_declaration_is_shipped_with_the_bridge_and_well_formed() -> None:
    raw = json.loads((bridge_source() / PROTOCOL_FILE).read_text("utf-8"))
    assert isinstance(raw["protocol"], int) and not isinstance(raw["protocol"], bool)
    for name, spec in raw["ops"].items():
        assert set(spec) <= {"doc", "params", "required", "result", "test_only"}, name
        assert set(spec["required"]) <= set(spec["params"]), name
        assert spec["doc"], name


def test_shapes_are_checked_as_declared() -> None:
    protocol = kit_protocol()
    assert protocol.result_problem("agent_info", AGENT_INFO) is None
    assert protocol.result_problem("agent_info", {**AGENT_INFO, "is_live": "yes"}) == (
        "$.is_live: str is not boolean"
    )
    assert protocol.result_problem("reset", {}) == "$: 'now' is missing"
    assert shape_problem(True, {"type": "integer"}, {}) == "$: bool is not integer"
    assert shape_problem([1, "x"], {"type": "array", "items": {"type": "integer"}}, {}) == (
        "$[1]: str is not integer"
    )

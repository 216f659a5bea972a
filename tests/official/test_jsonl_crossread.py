"""Cross-reading real JSONL session files between Python and the official build.

The official JSONL backend (``@deepseek-ai/dsh-session-persistence-jsonl``,
Node >= 22.15) stores a session as ``<root>/_no-cwd/<id>/session.jsonl``: a
header line ``{"type":"session","version":0,"id","createdAt","delegationDepth"}``
and one event per line. A log the Python reference wrote must resume in the
official host, and a log the official host wrote must fold to the same list in
the reference.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from pytest_dsh.npm.bridge import locate_bridge, locate_node
from pytest_dsh.npm.bridge.driver import BridgeHostDriver
from pytest_dsh.npm.bridge.process import node_version
from pytest_dsh.official import IMPLEMENTATION as OFFICIAL

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z (as in conftest)

pytestmark = pytest.mark.usefixtures("bridge_available")

HOUR_MS = 3_600_000


@pytest.fixture
def jsonl_root(tmp_path: Path) -> Path:
    if node_version(locate_node(locate_bridge())) < (22, 15, 0):
        pytest.skip("the official JSONL backend needs Node >= 22.15 (zstd in node:zlib)")
    return tmp_path


def _official(root: Path, start_ms: int) -> BridgeHostDriver:
    return OFFICIAL.open_host(start_ms=start_ms, jsonl_root=root)


def _write_session(root: Path, session_id: str, created_at: int, events: list[Any]) -> Path:
    """The Python-side writer: the DSH session-file format, one JSON object a line."""
    path = root / "_no-cwd" / session_id / "session.jsonl"
    path.parent.mkdir(parents=True)
    header = {
        "type": "session",
        "version": 0,
        "id": session_id,
        "createdAt": created_at,
        "delegationDepth": 0,
    }
    lines = [
        json.dumps(line, ensure_ascii=False, separators=(",", ":")) for line in (header, *events)
    ]
    path.write_text("".join(f"{line}\n" for line in lines), "utf-8")
    return path


def _read_session(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    header, *events = (json.loads(line) for line in path.read_text("utf-8").split("\n") if line)
    return header, events


def _reference_list(events: list[Any], now_ms: int) -> Any:
    host = REFERENCE.open_host(start_ms=now_ms)
    try:
        host.load_plugin("schedule")
        agent = host.create_agent(seed=events)
        return agent.call_tool("schedule_list", {}).value
    finally:
        host.close()


def test_a_log_written_by_python_resumes_in_the_official_host(jsonl_root):
    python_host = REFERENCE.open_host(start_ms=START_MS)
    try:
        python_host.load_plugin("schedule")
        agent = python_host.create_agent(session_id="from-python")
        agent.call_tool("schedule_create", {"prompt": "tea", "after_seconds": 60})
        agent.call_tool("schedule_create", {"prompt": "stand", "every_seconds": 600})
        written = python_host.durable_events("from-python")
    finally:
        python_host.close()
    _write_session(jsonl_root, "from-python", START_MS, written)

    host = _official(jsonl_root, START_MS + HOUR_MS)
    try:
        host.load_plugin("schedule")
        resumed = host.resume("from-python")
        events = resumed.events()
        assert events[: len(written)] == written
        # The overdue one-shot is delivered first, on resume.
        dispatched = [e["data"] for e in events[len(written) :] if e["type"] == "schedule/change"]
        assert dispatched[0] == {"version": 1, "operation": "dispatch", "id": "schedule-1"}
        assert [view["id"] for view in resumed.call_tool("schedule_list", {}).value] == [
            "schedule-2"
        ]
    finally:
        host.close()


def test_a_log_written_by_the_official_host_folds_the_same_in_python(jsonl_root):
    host = _official(jsonl_root, START_MS)
    try:
        host.load_plugin("schedule")
        agent = host.create_agent(session_id="from-node")
        agent.call_tool("schedule_create", {"prompt": "tea", "after_seconds": 7200})
        agent.call_tool("schedule_create", {"prompt": "call", "at": "2026-01-02T09:00:00+01:00"})
        agent.call_tool("schedule_create", {"prompt": "stand", "every_seconds": 600})
        agent.call_tool("schedule_delete", {"id": "schedule-2"})
        official_list = agent.call_tool("schedule_list", {}).value
    finally:
        host.close()
    header, events = _read_session(jsonl_root / "_no-cwd" / "from-node" / "session.jsonl")
    assert header["id"] == "from-node"
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert _reference_list(events, START_MS) == official_list

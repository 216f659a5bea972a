"""Logs written by real hosts pass ``dsh-log check`` in the mode that matches them.

A session of both plugins (a model turn that creates a reminder, then the
reminder's own turn) is written by the reference in the fake host, and by the
official build through its own JSONL backend in the Node bridge. The README's
rules accept the first; ``--official`` accepts the second, whose readings sit
after ``step/start`` (deviations D9, D12). This pins the official build's
file as it is written, not a hand-made imitation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from dsh_reference.log_check import main
from pytest_dsh.driving.replies import reply_text, reply_tools
from pytest_dsh.npm.bridge.process import node_version
from pytest_dsh.official import IMPLEMENTATION as OFFICIAL

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z


def _session(host) -> object:
    host.load_plugin("time-context", {"timeZone": "UTC"})
    host.load_plugin("schedule")
    agent = host.create_agent(session_id="s1")
    agent.script(
        reply_tools(("schedule_create", {"prompt": "tea", "after_seconds": 60})),
        reply_text("ok"),
        reply_text("reminded"),
    )
    agent.prompt("remind me")
    host.run_until_idle()
    host.advance(61)
    host.run_until_idle()
    return agent


def _check(capsys, path: Path, *options: str) -> tuple[int, list[str]]:
    code = main(["check", *options, str(path)])
    return code, capsys.readouterr().out.splitlines()


def test_a_log_written_by_the_reference_passes_the_readme_rules(tmp_path, capsys):
    host = REFERENCE.open_host(start_ms=START_MS)
    try:
        events = _session(host).events()
    finally:
        host.close()
    header = {"type": "session", "version": 0, "id": "s1", "createdAt": START_MS,
              "delegationDepth": 0}
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in (header, *events)), "utf-8")
    readings = [seq for seq, event in enumerate(events)
                if event["data"].get("source", {}).get("plugin") == "time-context"]
    assert len(readings) == 3
    assert _check(capsys, path) == (0, [f"{path}: ok"])
    # README-placed readings come before step/start, where the official build refuses them.
    assert _check(capsys, path, "--official") == (1, [
        f"{path}:{seq + 2}: dsh-time-context: time-context reading must be appended during "
        "prompt assembly" for seq in readings
    ])


@pytest.fixture
def official_jsonl_root(tmp_path: Path, bridge_node: Path) -> Path:
    if node_version(bridge_node) < (22, 15, 0):
        pytest.skip("the official JSONL backend needs Node >= 22.15 (zstd in node:zlib)")
    return tmp_path


def test_a_log_written_by_the_official_jsonl_backend_passes_with_official(
    official_jsonl_root, capsys
):
    host = OFFICIAL.open_host(start_ms=START_MS, jsonl_root=official_jsonl_root)
    try:
        events = _session(host).events()
    finally:
        host.close()
    path = official_jsonl_root / "_no-cwd" / "s1" / "session.jsonl"
    assert json.loads(path.read_text("utf-8").split("\n")[0])["type"] == "session"
    readings = [seq for seq, event in enumerate(events)
                if event["data"].get("source", {}).get("plugin") == "time-context"]
    assert len(readings) == 3
    assert _check(capsys, path, "--official") == (0, [f"{path}: ok"])
    code, lines = _check(capsys, path)
    assert code == 1
    assert [line.split(": ", 1)[0] for line in lines] == [f"{path}:{seq + 2}" for seq in readings]
    assert all("time-context reading must precede step/start, but step" in line for line in lines)

"""One JSONL seam on both hosts: ``open_host(..., jsonl_root=PATH)``.

Both hosts keep durable sessions as session files under the root, and
``durable_events`` reads whichever store is in use (on the bridge it used to
read an empty in-memory store and raise ``KeyError``). Level: kit behaviour.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from pytest_dsh.driving.api import HostDriver

START_MS = 1_767_225_600_000


@pytest.fixture(params=["reference", "official"])
def jsonl_host(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[HostDriver]:
    if request.param == "official":
        node = request.getfixturevalue("bridge_node")
        from pytest_dsh.npm.bridge.process import node_version
        from pytest_dsh.official import IMPLEMENTATION as OFFICIAL

        if node_version(node) < (22, 15, 0):
            pytest.skip("the official JSONL backend needs Node >= 22.15")
        host: HostDriver = OFFICIAL.open_host(start_ms=START_MS, jsonl_root=tmp_path)
    else:
        host = REFERENCE.open_host(start_ms=START_MS, jsonl_root=tmp_path)
    yield host
    host.close()


def _file_events(root: Path, session_id: str) -> list[Any]:
    text = (root / "_no-cwd" / session_id / "session.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines()[1:]]


def test_durable_events_read_the_session_files(jsonl_host, tmp_path):
    jsonl_host.load_plugin("schedule")
    agent = jsonl_host.create_agent(session_id="s")
    created = agent.call_tool("schedule_create", {"prompt": "tea", "after_seconds": 60})
    assert created.value["state"] == "scheduled"
    durable = jsonl_host.durable_events("s")
    assert durable == _file_events(tmp_path, "s")
    assert any(event["type"] == "schedule/change" for event in durable)
    assert jsonl_host.flushes[-1].outcome == "durable"


def test_an_unknown_session_is_a_key_error_on_both(jsonl_host):
    with pytest.raises(KeyError, match="nowhere"):
        jsonl_host.durable_events("nowhere")

"""Real JSONL session files in the Python host.

The fake host persists through :class:`~pytest_dsh.fake_host.jsonl_store.JsonlStore`:
files in DSH's session-file shape, a flush is on disk (``fsync``) before it is
recorded durable, a torn tail left by a crash is tolerated on load, a session
resumes in another process, and the official build reads what Python wrote and
the other way round. Level: kit behaviour (the host side of "flush resolves
truthy only when durable").
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import kit_child_processes as children
import pytest

from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from pytest_dsh.fake_host.driver import PythonHostDriver
from pytest_dsh.fake_host.jsonl_store import JsonlStore, SessionFileError
from pytest_dsh.fake_host.persistence import PersistenceRejectedError

from .conftest import START_MS

HOUR_MS = 3_600_000


def _host(root: Path, start_ms: int = START_MS) -> PythonHostDriver:
    return REFERENCE.open_host(start_ms=start_ms, jsonl_root=root)


def _lines(root: Path, session_id: str) -> list[dict[str, Any]]:
    text = (root / "_no-cwd" / session_id / "session.jsonl").read_text("utf-8")
    assert text.endswith("\n")
    return [json.loads(line) for line in text.split("\n")[:-1]]


def _reminders(events: list[dict[str, Any]]) -> list[str]:
    return [
        block["text"]
        for event in events
        if event["type"] == "user/message" and event["data"].get("source", {}).get("kind")
        for block in event["data"]["content"]
        if "[SCHEDULE REMINDER]" in block.get("text", "")
    ]


def test_a_flushed_session_is_a_session_file_in_dsh_shape(tmp_path):
    host = _host(tmp_path)
    try:
        host.load_plugin("schedule")
        agent = host.create_agent(session_id="s1")
        agent.call_tool("schedule_create", {"prompt": "thé", "after_seconds": 60})
        header, *events = _lines(tmp_path, "s1")
        assert header == {
            "type": "session",
            "version": 0,
            "id": "s1",
            "createdAt": START_MS,
            "delegationDepth": 0,
        }
        assert events == host.durable_events("s1") == agent.events()
        raw = (tmp_path / "_no-cwd" / "s1" / "session.jsonl").read_text("utf-8")
        assert '"prompt":"thé"' in raw  # compact, not ASCII-escaped
    finally:
        host.close()


def test_a_flush_is_recorded_durable_only_after_fsync(tmp_path, monkeypatch):
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    host = _host(tmp_path)
    try:
        host.load_plugin("schedule")
        agent = host.create_agent(session_id="s")
        agent.call_tool("schedule_create", {"prompt": "a", "after_seconds": 60})
        durable_flushes = [r for r in host.flushes if r.outcome == "durable"]
        assert len(synced) >= len(durable_flushes) >= 1

        def failing_fsync(fd: int) -> None:
            raise OSError(28, "No space left on device")

        before = (tmp_path / "_no-cwd" / "s" / "session.jsonl").read_bytes()
        monkeypatch.setattr(os, "fsync", failing_fsync)
        outcome = agent.call_tool("schedule_create", {"prompt": "b", "after_seconds": 60})
        assert outcome.value["code"] == "persistence_uncertain"
        assert host.flushes[-1].outcome == "rejected"
        assert (tmp_path / "_no-cwd" / "s" / "session.jsonl").read_bytes() == before
    finally:
        host.close()


@pytest.mark.parametrize(
    "tail",
    [b'{"type":"user/mes', b'{"type":"x","data":"caf\xe9', b'{"type":"x","data":"caf\xe9"}\n'],
    ids=["cut-json", "cut-utf8", "bad-utf8-last-line"],
)
def test_a_torn_tail_is_ignored_on_load_and_cut_by_the_next_write(tmp_path, tail):
    events: list[Any] = [{"type": "a", "seq": 0, "time": 0, "data": {}}]
    with JsonlStore(tmp_path, now_ms=lambda: START_MS) as store:
        store.persist({"id": "s"}, events)
        path = store.path("s")
    with path.open("ab") as handle:
        handle.write(tail)

    with JsonlStore(tmp_path, now_ms=lambda: START_MS) as fresh:
        assert fresh.load("s") == ({"id": "s"}, events)
        more = [*events, {"type": "b", "seq": 1, "time": 0, "data": {}}]
        fresh.persist({"id": "s"}, more)
    with JsonlStore(tmp_path, now_ms=lambda: 0) as again:
        assert again.load("s")[1] == more
    assert tail not in path.read_bytes()


def test_a_bad_line_before_the_end_is_corruption_naming_the_line(tmp_path):
    with JsonlStore(tmp_path, now_ms=lambda: START_MS) as store:
        store.persist({"id": "s"}, [{"type": "a", "seq": 0, "time": 0, "data": {}}])  # type: ignore[list-item]
        path = store.path("s")
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join([lines[0], b"{not json", *lines[1:]]))
    with (
        JsonlStore(tmp_path, now_ms=lambda: 0) as fresh,
        pytest.raises(SessionFileError, match=r"session\.jsonl:2: not a JSON line"),
    ):
        fresh.load("s")


def test_an_unserialisable_event_leaves_the_file_as_it_was(tmp_path):
    good: Any = {"type": "a", "seq": 0, "time": 0, "data": {}}
    with JsonlStore(tmp_path, now_ms=lambda: START_MS) as store:
        store.persist({"id": "s"}, [good])
        before = store.path("s").read_bytes()
        with pytest.raises(PersistenceRejectedError):
            store.persist({"id": "s"}, [good, {**good, "seq": 1, "data": float("nan")}])
        assert store.path("s").read_bytes() == before


_WRITER = textwrap.dedent(
    """
    import os, signal, sys
    from dsh_reference.implementation import IMPLEMENTATION
    host = IMPLEMENTATION.open_host(start_ms=%d, jsonl_root=sys.argv[1])
    host.load_plugin("schedule")
    agent = host.create_agent(session_id="across")
    agent.call_tool("schedule_create", {"prompt": "tea", "after_seconds": 60})
    agent.call_tool("schedule_create", {"prompt": "stand", "every_seconds": 600})
    os.kill(os.getpid(), signal.SIGKILL)  # a crash: nothing is closed or flushed again
    """
)


def test_a_session_resumes_in_another_process_after_a_crash(tmp_path):
    done = children.run(
        [sys.executable, "-c", _WRITER % START_MS, str(tmp_path)], check=False
    )
    assert done.returncode == -9
    host = _host(tmp_path, START_MS + 30_000)
    try:
        host.load_plugin("schedule")
        resumed = host.resume("across")
        listed = resumed.call_tool("schedule_list", {}).value
        assert [view["prompt"] for view in listed] == ["tea", "stand"]
        host.advance(30)
        assert len(_reminders(resumed.events())) == 1
        assert '"tea"' in _reminders(resumed.events())[0]
    finally:
        host.close()


# -- cross-reading with the official build (through the bridge) ---------------------------


@pytest.fixture
def official_jsonl(bridge_node: Path) -> None:
    from pytest_dsh.npm.bridge.process import node_version

    if node_version(bridge_node) < (22, 15, 0):
        pytest.skip("the official JSONL backend needs Node >= 22.15 (zstd in node:zlib)")


def _official(root: Path, start_ms: int) -> Any:
    from pytest_dsh.official import IMPLEMENTATION as OFFICIAL

    return OFFICIAL.open_host(start_ms=start_ms, jsonl_root=root)


def test_the_official_host_resumes_a_session_the_python_host_wrote(tmp_path, official_jsonl):
    python_host = _host(tmp_path)
    try:
        python_host.load_plugin("schedule")
        agent = python_host.create_agent(session_id="py")
        agent.call_tool("schedule_create", {"prompt": "tea", "after_seconds": 60})
        agent.call_tool("schedule_create", {"prompt": "stand", "every_seconds": 600})
        written = python_host.durable_events("py")
    finally:
        python_host.close()

    host = _official(tmp_path, START_MS + HOUR_MS)
    try:
        host.load_plugin("schedule")
        resumed = host.resume("py")
        assert resumed.events()[: len(written)] == written
        assert [view["id"] for view in resumed.call_tool("schedule_list", {}).value] == [
            "schedule-2"
        ]
    finally:
        host.close()


def test_the_python_host_resumes_a_session_the_official_host_wrote(tmp_path, official_jsonl):
    host = _official(tmp_path, START_MS)
    try:
        host.load_plugin("schedule")
        agent = host.create_agent(session_id="node")
        agent.call_tool("schedule_create", {"prompt": "tea", "after_seconds": 7200})
        agent.call_tool("schedule_create", {"prompt": "stand", "every_seconds": 600})
        agent.call_tool("schedule_delete", {"id": "schedule-1"})
        official_list = agent.call_tool("schedule_list", {}).value
    finally:
        host.close()

    python_host = _host(tmp_path)
    try:
        python_host.load_plugin("schedule")
        resumed = python_host.resume("node")
        assert resumed.call_tool("schedule_list", {}).value == official_list
        # Written back by Python, the file still reads in the official host.
        resumed.call_tool("schedule_create", {"prompt": "more", "after_seconds": 60})
    finally:
        python_host.close()
    again = _official(tmp_path, START_MS)
    try:
        again.load_plugin("schedule")
        listed = again.resume("node").call_tool("schedule_list", {}).value
        assert [view["prompt"] for view in listed] == ["stand", "more"]
    finally:
        again.close()

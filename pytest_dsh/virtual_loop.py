"""An asyncio event loop that runs on virtual time.

Theory of operation: asyncio's ``_run_once`` asks its selector to wait for I/O
for "the time until the next timer". :class:`VirtualSelector` never waits;
instead it moves the :class:`~pytest_dsh.clock.VirtualClock` forward by that
amount, but never past the *horizon* the driver granted. When the loop has
nothing ready and the next timer lies beyond the horizon (or there is no timer),
the loop is idle for this drive: the selector stops it. Timers therefore fire at
their exact virtual times, in order, and nothing ever really sleeps.

Only the driver (``advance``/``run_until_idle``) grants a horizon, so a plugin
cannot make time pass on its own.
"""

from __future__ import annotations

import asyncio
import math
import selectors
from typing import Any

from pytest_dsh.clock import VirtualClock

__all__ = ["VirtualEventLoop", "VirtualSelector"]


class VirtualSelector(selectors.BaseSelector):
    """A selector with no real I/O that turns waiting into virtual time."""

    def __init__(self, clock: VirtualClock) -> None:
        self._clock = clock
        self._map: dict[Any, selectors.SelectorKey] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self.horizon: float = clock.monotonic()

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        # Only asyncio's own self-pipe is registered; it never becomes readable
        # because nothing here uses threads.
        key = selectors.SelectorKey(fileobj, _fd_of(fileobj), events, data)
        self._map[fileobj] = key
        return key

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self._map.pop(fileobj)

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is not None and timeout <= 0:
            return []
        now = self._clock.monotonic()
        if timeout is None or now + timeout > self.horizon:
            # Idle until after the horizon: time reaches the horizon and the
            # drive ends.
            self._clock.advance_monotonic_to(self.horizon)
            assert self._loop is not None
            self._loop.stop()
            return []
        self._clock.advance_monotonic_to(now + timeout)
        return []

    def get_map(self) -> Any:
        return self._map

    def close(self) -> None:
        self._map.clear()


def _fd_of(fileobj: Any) -> int:
    return fileobj if isinstance(fileobj, int) else int(fileobj.fileno())


class VirtualEventLoop(asyncio.SelectorEventLoop):
    """``asyncio`` loop whose ``time()`` is the virtual monotonic clock."""

    def __init__(self, clock: VirtualClock) -> None:
        self._virtual_clock = clock
        self._virtual_selector = VirtualSelector(clock)
        super().__init__(selector=self._virtual_selector)
        self._virtual_selector.attach(self)

    # asyncio pops timers due within one resolution step; keep it tiny but
    # non-zero so float rounding of "now + timeout" cannot strand a timer. A
    # fixed 1e-9 s falls below the float spacing of monotonic time after about
    # 194 virtual days (2**24 s), and the loop would then spin without ever
    # reaching a due timer: the step grows with the spacing of the current time.
    @property
    def _clock_resolution(self) -> float:
        return max(1e-9, 4 * math.ulp(self._virtual_clock.monotonic()))

    @_clock_resolution.setter
    def _clock_resolution(self, value: float) -> None:
        pass  # BaseEventLoop sets the real clock's resolution: not ours

    def time(self) -> float:
        return self._virtual_clock.monotonic()

    def drive(self, seconds: float) -> None:
        """Run callbacks and timers until ``seconds`` of virtual time have passed
        and nothing more is ready at that instant."""
        if seconds < 0:
            raise ValueError("virtual time cannot run backwards")
        self._virtual_selector.horizon = self._virtual_clock.monotonic() + seconds
        while True:
            self.run_forever()
            # A stop() can leave callbacks that became ready during the last
            # iteration; keep going until the loop is really quiet.
            if not _pending_ready(self) and not self._due_timers():
                break

    def _due_timers(self) -> bool:
        scheduled = _internals(self)._scheduled
        if not scheduled:
            return False
        when = scheduled[0].when()
        due_by = self.time() + self._clock_resolution
        return bool(when <= self._virtual_selector.horizon and when <= due_by)


def _internals(loop: asyncio.BaseEventLoop) -> Any:
    # BaseEventLoop keeps its ready queue and timer heap in private attributes;
    # reading them is the only way to know the loop is quiet without running it.
    return loop


def _pending_ready(loop: asyncio.BaseEventLoop) -> bool:
    return bool(_internals(loop)._ready)

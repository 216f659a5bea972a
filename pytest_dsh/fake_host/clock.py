"""The controllable clock: virtual monotonic time and a separate wall clock.

Timers run on *monotonic* time, which only the test driver moves forward. The
*wall clock* normally advances with it, but a test can set it anywhere (an NTP
step backwards, a laptop waking up days later) without moving timers, which is
exactly the situation a scheduler must survive.

While a host is open, ``time-machine`` keeps ``time.time()`` and
``datetime.now()`` equal to the virtual wall clock, for implementations that read
the clock directly instead of through :class:`~pytest_dsh.contract.Clock`.
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, final

from pytest_dsh.driving.api import JS_MAX_TIME_MS
from pytest_dsh.driving.faults import FaultPlan
from pytest_dsh.driving.trace import HostTrace

if TYPE_CHECKING:
    import time_machine

__all__ = ["JS_MAX_TIME_MS", "NODE_MAX_TIMER_DELAY_MS", "HostClock", "VirtualClock"]

#: Largest delay a Node timer honours (2**31 - 1 ms, about 24.86 days). The fake
#: host applies the same platform limit so the suite checks that long waits are
#: split: like Node, a longer delay fires after 1 ms.
NODE_MAX_TIMER_DELAY_MS: Final = 2_147_483_647


@final
class VirtualClock:
    """Monotonic seconds plus a wall clock in epoch milliseconds."""

    def __init__(self, wall_ms: int) -> None:
        self._monotonic = 0.0
        self._wall_base_ms = wall_ms
        self._wall_base_monotonic = 0.0
        self._traveller: time_machine.travel | None = None
        self._coordinates: time_machine.Traveller | None = None
        # The (clamped) wall ms time-machine was last given.
        self._patched_ms = 0
        # The wall clock now, computed when either clock moves (a delivery
        # reads it a dozen times between two moves).
        self._now_ms = wall_ms

    def monotonic(self) -> float:
        return self._monotonic

    def now_ms(self) -> int:
        return self._now_ms

    def _wall_moved(self) -> None:
        elapsed_ms = (self._monotonic - self._wall_base_monotonic) * 1000.0
        # Round so that advancing by exactly 0.001 s moves the wall by 1 ms
        # despite float representation error.
        self._now_ms = self._wall_base_ms + round(elapsed_ms)

    def set_wall_ms(self, wall_ms: int) -> None:
        """Step the wall clock to ``wall_ms`` without touching monotonic time."""
        if isinstance(wall_ms, bool) or not isinstance(wall_ms, int):
            raise TypeError("wall clock values are integer epoch milliseconds")
        if not -JS_MAX_TIME_MS <= wall_ms <= JS_MAX_TIME_MS:
            raise ValueError(
                f"wall clock {wall_ms} ms is outside the JavaScript time range "
                f"(±{JS_MAX_TIME_MS} ms)"
            )
        self._wall_base_ms = wall_ms
        self._wall_base_monotonic = self._monotonic
        self._wall_moved()
        self._sync_time_machine()

    def advance_monotonic_to(self, monotonic: float) -> None:
        if monotonic < self._monotonic:
            raise ValueError("monotonic time never goes backwards")
        self._monotonic = monotonic
        self._wall_moved()
        self._sync_time_machine()

    # -- time-machine ---------------------------------------------------------

    def start_patching(self) -> None:
        """Make ``time.time()``/``datetime.now()`` follow the wall clock."""
        if self._traveller is None:
            # Imported here: time-machine loads pytest when it is installed,
            # and importing a host must not (pytest_dsh.driving is pytest-free).
            import time_machine

            self._patched_ms = _clamped(self.now_ms())
            self._traveller = time_machine.travel(_as_datetime(self._patched_ms), tick=False)
            self._coordinates = self._traveller.start()

    def stop_patching(self) -> None:
        if self._traveller is not None:
            self._traveller.stop()
            self._traveller = None
            self._coordinates = None

    def _sync_time_machine(self) -> None:
        if self._coordinates is None:
            return
        target_ms = _clamped(self.now_ms())
        if target_ms == self._patched_ms:
            return  # a step of less than a millisecond (or beyond the clamp)
        if target_ms > self._patched_ms:
            # Forwards, as every timer wake-up moves it: shifting by an exact
            # timedelta costs a fraction of a move_to (which re-parses a
            # datetime and resets time-machine's uuid1 state, a reset that
            # only matters backwards).
            self._coordinates.shift(datetime.timedelta(milliseconds=target_ms - self._patched_ms))
        else:
            self._coordinates.move_to(_as_datetime(target_ms))
        self._patched_ms = target_ms


class _ZeroOffset(datetime.tzinfo):
    """UTC that is not ``datetime.UTC``: time-machine sets the process ``TZ``
    for a ZoneInfo or ``datetime.UTC`` destination, and the process zone is
    something plugins under test may legitimately read."""

    def utcoffset(self, dt: datetime.datetime | None) -> datetime.timedelta:
        return datetime.timedelta(0)

    def dst(self, dt: datetime.datetime | None) -> datetime.timedelta:
        return datetime.timedelta(0)

    def tzname(self, dt: datetime.datetime | None) -> str:
        return "UTC"


def _as_datetime(epoch_ms: int) -> datetime.datetime:
    # A datetime keeps whole milliseconds exact, where a float of seconds would
    # round 1767225603.234 down to ...233999. Python's datetime ends at years
    # 1 and 9999 while JS time spans ±8.64e15 ms: beyond, the patched
    # time.time() stays at the nearest representable instant (the Clock
    # service and the driver keep the exact value).
    return _EPOCH + datetime.timedelta(milliseconds=_clamped(epoch_ms))


def _clamped(epoch_ms: int) -> int:
    return min(max(epoch_ms, _MIN_MS), _MAX_MS)


_EPOCH: Final = datetime.datetime(1970, 1, 1, tzinfo=_ZeroOffset())
# One day inside the datetime range, so no zone offset can push it out.
_MIN_MS: Final = -62_135_596_800_000 + 86_400_000
_MAX_MS: Final = 253_402_300_799_999 - 86_400_000


class _LoopTimer:
    def __init__(self, handle: asyncio.TimerHandle, trace: HostTrace | None) -> None:
        self._handle = handle
        self._trace = trace

    def cancel(self) -> None:
        if self._trace is not None and self._trace.enabled:
            self._trace.record("timer-cancel", "")
        self._handle.cancel()


@final
class HostClock:
    """The :class:`~pytest_dsh.contract.Clock` service given to plugins."""

    max_timer_delay_ms: int = NODE_MAX_TIMER_DELAY_MS

    def __init__(
        self,
        clock: VirtualClock,
        loop: asyncio.AbstractEventLoop,
        faults: FaultPlan | None = None,
        trace: HostTrace | None = None,
    ) -> None:
        self._clock = clock
        self._loop = loop
        #: The plan whose clock-read faults a plugin's reads consult.
        self._faults = faults
        self._trace = trace

    def now_ms(self) -> int:
        faults = self._faults
        if faults is not None and faults.planned:
            # The fault plan may make a plugin's clock read fail or give a chosen value.
            reading = faults.check_clock_read()
            if reading is not None:
                return reading
        return self._clock.now_ms()

    def set_timer(self, delay_ms: int, callback: Callable[[], None]) -> _LoopTimer:
        if self._trace is not None and self._trace.enabled:
            self._trace.record("timer-arm", "", str(delay_ms))
        # Node semantics: out-of-range or sub-millisecond delays become 1 ms.
        if not 1 <= delay_ms <= NODE_MAX_TIMER_DELAY_MS:
            delay_ms = 1
        return _LoopTimer(self._loop.call_later(delay_ms / 1000.0, callback), self._trace)

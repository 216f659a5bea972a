"""An asyncio event loop that runs on virtual time.

Theory of operation: asyncio's ``_run_once`` asks its selector to wait for I/O
for "the time until the next timer". :class:`VirtualSelector` never waits;
instead it moves the :class:`~pytest_dsh.fake_host.clock.VirtualClock` forward by that
amount, but never past the *horizon* the driver granted. When the loop has
nothing ready and the next timer lies beyond the horizon (or there is no timer),
the loop is idle for this drive: the selector stops it. Timers therefore fire at
their exact virtual times, in order, and nothing ever really sleeps.

Only the driver (``advance``/``run_until_idle``) grants a horizon, so a plugin
cannot make time pass on its own.

Runaway detection. Every loop iteration passes through the selector, so that is
where a plugin that never settles is caught, within seconds, with a
:class:`RunawayError` naming the likely cause and the callback about to run:

- *spinning at one instant*: :data:`SPIN_ITERATIONS` iterations without virtual
  time moving (a callback or zero-delay timer that re-arms itself);
- *creeping*: :data:`CREEP_WAKEUPS` timer wake-ups in a row each at most
  :data:`CREEP_STEP_S` later than the last, the signature of a wait longer
  than the timer range that was not split (Node, and the fake host's clock,
  fire such a timer after 1 ms; re-armed, it fires again 1 ms later, forever);
- the per-test :class:`~pytest_dsh.driving.runaway.Budget` (set by
  :mod:`pytest_dsh.pytest_plugin.budget`): a number of loop iterations (virtual
  work) and a wall-clock deadline.

After a runaway the loop drops its ready callbacks and timers, so closing the
host does not spin again; the test fails with the error.
"""

from __future__ import annotations

import asyncio
import collections
import math
import selectors
import time
from collections.abc import Callable
from typing import Any, Final

from pytest_dsh.driving import runaway
from pytest_dsh.driving.runaway import RunawayError
from pytest_dsh.fake_host.clock import VirtualClock

__all__ = [
    "CREEP_STEP_S",
    "CREEP_WAKEUPS",
    "SPIN_ITERATIONS",
    "VirtualEventLoop",
    "VirtualSelector",
]

#: Loop iterations at one virtual instant before the loop is declared spinning.
SPIN_ITERATIONS: Final = 200_000
#: Consecutive tiny timer steps before the loop is declared creeping.
CREEP_WAKEUPS: Final = 5_000
#: A timer step this small or smaller counts as creeping (Node's 1 ms fallback).
CREEP_STEP_S: Final = 0.001
#: Iterations between two looks at the wall clock (reading it is not free).
_WALL_CHECK_EVERY: Final = 512


class VirtualSelector(selectors.BaseSelector):
    """A selector with no real I/O that turns waiting into virtual time."""

    def __init__(self, clock: VirtualClock) -> None:
        self._clock = clock
        self._map: dict[Any, selectors.SelectorKey] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self.horizon: float = clock.monotonic()
        self._iterations = 0
        self._same_instant = 0
        self._creeping = 0
        self._last_now = clock.monotonic()

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

    def reset_watch(self) -> None:
        self._same_instant = 0
        self._creeping = 0
        self._last_now = self._clock.monotonic()

    def _watch(self, now: float) -> None:
        """Count this iteration against the runaway detectors and the budget."""
        step = now - self._last_now
        self._last_now = now
        if step <= 0:
            self._same_instant += 1
            if self._same_instant >= SPIN_ITERATIONS:
                raise self._runaway(
                    f"{SPIN_ITERATIONS} loop iterations without virtual time advancing: "
                    "a callback or zero-delay timer re-arms itself and never settles"
                )
        else:
            self._same_instant = 0
            self._creeping = self._creeping + 1 if step <= CREEP_STEP_S else 0
            if self._creeping >= CREEP_WAKEUPS:
                raise self._runaway(
                    f"{CREEP_WAKEUPS} timer wake-ups in a row, each at most "
                    f"{CREEP_STEP_S * 1000:g} ms after the last: a timer re-armed at a tiny "
                    "delay forever; likely a wait longer than the timer range (2^31-1 ms) "
                    "that was not split, which fires after 1 ms"
                )
        current = runaway.budget
        if current.overgrown is not None:
            cause, current.overgrown = current.overgrown, None
            raise self._runaway(cause)
        if current.steps_left is not None:
            current.steps_left -= 1
            if current.steps_left < 0:
                current.steps_left = None  # reported once; closing the host may still run
                raise self._runaway(
                    f"the test used its budget of {current.steps} loop iterations "
                    "(virtual work; --dsh-step-budget): the implementation keeps "
                    "scheduling work, or the event log or follow-up queue grows without end"
                )
        self._iterations += 1
        if (
            current.wall_deadline is not None
            and self._iterations % _WALL_CHECK_EVERY == 0
            and time.monotonic() > current.wall_deadline
        ):
            current.wall_deadline = None  # reported once, as above
            raise self._runaway(
                f"the test used its wall-clock budget of {current.wall_s:g} s "
                "(--dsh-wall-budget) inside the event loop: the implementation "
                "never settles"
            )

    def _runaway(self, cause: str) -> RunawayError:
        at = self._clock.monotonic()
        return RunawayError(
            f"runaway implementation at virtual monotonic {at:.3f} s: {cause}. "
            f"Next callback: {_next_callback(self._loop)}"
        )

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        now = self._clock.monotonic()  # _watch never moves the clock
        self._watch(now)
        if timeout is not None and timeout <= 0:
            return []
        loop = self._loop
        assert loop is not None
        if timeout is None or now + timeout > self.horizon:
            # Idle until after the horizon: time reaches the horizon and the
            # drive ends.
            self._clock.advance_monotonic_to(self.horizon)
            loop.stop()
        else:
            self._clock.advance_monotonic_to(now + timeout)
        if isinstance(loop, VirtualEventLoop):
            loop.time_moved()
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
        # BaseEventLoop's queue of ready callbacks (made once, never replaced):
        # a flush asks whether it is empty, and this reads it without a call.
        self._ready_callbacks: collections.deque[Any] = _internals(self)._ready
        self.time_moved()

    # asyncio's self-pipe (a socket pair registered with the selector) wakes a
    # selector blocked in select() when another thread calls
    # call_soon_threadsafe or a signal arrives. The virtual selector never
    # blocks, so nothing needs waking: the pair is made only for a signal
    # handler (which asyncio installs through it). Making and closing it was
    # about a third of opening and closing a bare host (four system calls and
    # a selector registration). _write_to_self already skips a missing pair.
    # Should a Python release rename these methods, the overrides go unused
    # and the loop simply makes its pair as before.
    def _make_self_pipe(self) -> None:
        self._ssock: Any = None
        self._csock: Any = None

    def _close_self_pipe(self) -> None:
        if self._ssock is not None:
            super()._close_self_pipe()  # type: ignore[misc]

    def add_signal_handler(  # type: ignore[override]
        self, sig: int, callback: Callable[..., object], *args: Any
    ) -> None:
        if getattr(self, "_csock", True) is None:  # only the pair this class skipped
            super()._make_self_pipe()  # type: ignore[misc]
        super().add_signal_handler(sig, callback, *args)

    # asyncio pops timers due within one resolution step; keep it tiny but
    # non-zero so float rounding of "now + timeout" cannot strand a timer. A
    # fixed 1e-9 s falls below the float spacing of monotonic time after about
    # 194 virtual days (2**24 s), and the loop would then spin without ever
    # reaching a due timer: the step grows with the spacing of the current time.
    # A plain attribute (asyncio reads it once per iteration), set anew each
    # time the selector moves the clock, the only code that does.
    def time_moved(self) -> None:
        """The virtual clock moved: the resolution follows the new instant."""
        self._clock_resolution = max(1e-9, 4 * math.ulp(self._virtual_clock.monotonic()))

    def time(self) -> float:
        return self._virtual_clock.monotonic()

    def has_ready(self) -> bool:
        """Whether any callback waits to run at this instant (the rest of the
        current iteration's included)."""
        return bool(self._ready_callbacks)

    def drive(self, seconds: float) -> None:
        """Run callbacks and timers until ``seconds`` of virtual time have passed
        and nothing more is ready at that instant."""
        if seconds < 0:
            raise ValueError("virtual time cannot run backwards")
        self._virtual_selector.horizon = self._virtual_clock.monotonic() + seconds
        self._virtual_selector.reset_watch()
        while True:
            try:
                self.run_forever()
            except RunawayError:
                self._drop_pending()
                raise
            # A stop() can leave callbacks that became ready during the last
            # iteration; keep going until the loop is really quiet.
            if not self.has_ready() and not self._due_timers():
                break

    def _drop_pending(self) -> None:
        # What spun must not spin again when the host is closed.
        # Tasks are cancelled rather than dropped, so their cancellation runs.
        internals = _internals(self)
        for handle in [*internals._ready, *internals._scheduled]:
            owner = getattr(getattr(handle, "_callback", None), "__self__", None)
            if not isinstance(owner, asyncio.Task):
                handle.cancel()
        for task in asyncio.all_tasks(self):
            task.cancel()

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


def _next_callback(loop: asyncio.AbstractEventLoop | None) -> str:
    if not isinstance(loop, asyncio.BaseEventLoop):
        return "unknown"
    internals = _internals(loop)
    handles = [*internals._ready, *internals._scheduled[:1]]
    for handle in handles:
        callback = getattr(handle, "_callback", None)
        if callback is None or handle.cancelled():
            continue
        name = getattr(callback, "__qualname__", None) or repr(callback)
        owner = getattr(callback, "__self__", None)
        if isinstance(owner, asyncio.Task):
            coro = owner.get_coro()
            name = getattr(coro, "__qualname__", repr(coro))
        module = getattr(callback, "__module__", None) or ""
        return f"{module}.{name}" if module and owner is None else name
    return "none queued"

"""The agent-scoped transaction queue and persistence checkpoints.

One :class:`AgentQueue` per agent serialises every accepted management
transaction and the live owner's drives, in arrival order, from the preflight
flush through any post-append barrier. :func:`checkpoint` is the one way the
plugin asks for durability: only a truthy flush counts, and every failure shape
(falsy, raising, detached) is the same "uncertain" answer.
"""

from __future__ import annotations

import asyncio
from collections import deque
from types import TracebackType
from typing import final

from pytest_dsh.contract import HostServices, Session

__all__ = ["AgentQueue", "checkpoint"]


@final
class AgentQueue:
    """A FIFO critical section (``async with queue: ...``).

    Entering a free queue takes it at once, without waiting on anything (the
    common case: a drive or a tool call with nothing else queued). Otherwise
    the caller waits its turn; leaving hands the queue straight to the oldest
    waiter still waiting, so nobody who arrives meanwhile can overtake it (as
    ``asyncio.Lock``, which this replaces, without its general bookkeeping).

    Cancellation, at any point: a waiter cancelled before its turn leaves the
    line; one cancelled after the queue was handed to it but before it ran
    passes the queue on to the next, so a cancellation never leaves the queue
    held by nobody.
    """

    __slots__ = ("_held", "_waiters")

    def __init__(self) -> None:
        self._held = False
        self._waiters: deque[asyncio.Future[None]] = deque()

    @property
    def held(self) -> bool:
        """Whether someone is inside (or the queue was handed to a waiter)."""
        return self._held

    async def __aenter__(self) -> None:
        if not self._held:
            # Free means nobody waits either: leaving hands the queue to a
            # waiter without freeing it.
            self._held = True
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                self._leave()  # handed over, then cancelled: the next one's turn
            elif waiter in self._waiters:  # a leave may have dropped it already
                self._waiters.remove(waiter)
            raise

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._leave()

    def _leave(self) -> None:
        waiters = self._waiters
        while waiters:
            waiter = waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)  # handed over: the queue stays held
                return
        self._held = False


async def checkpoint(services: HostServices, session: Session) -> bool:
    """Flush ``session``; True only when the host confirmed durability."""
    sessions = services.sessions
    if sessions is None:
        return False
    try:
        return bool(await sessions.flush(session))
    except Exception:
        # Rejected or detached: the backend's reason is deliberately not exposed.
        return False

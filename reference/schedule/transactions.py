"""The agent-scoped transaction queue and persistence checkpoints.

One :class:`AgentQueue` per agent serialises every accepted management
transaction and the live owner's drives, in arrival order, from the preflight
flush through any post-append barrier. :func:`checkpoint` is the one way the
plugin asks for durability: only a truthy flush counts, and every failure shape
(falsy, raising, detached) is the same "uncertain" answer.
"""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import final

from pytest_dsh.contract import HostServices, Session

__all__ = ["AgentQueue", "checkpoint"]


@final
class AgentQueue:
    """A FIFO critical section (``async with queue: ...``)."""

    def __init__(self) -> None:
        # asyncio.Lock wakes waiters in the order they started waiting.
        self._lock = asyncio.Lock()

    async def __aenter__(self) -> None:
        await self._lock.acquire()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._lock.release()


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

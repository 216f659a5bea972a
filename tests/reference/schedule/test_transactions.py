"""The agent queue: first come, first served, and never left held by a cancellation."""

from __future__ import annotations

import asyncio

import pytest

from dsh_reference.schedule.transactions import AgentQueue


async def _hold(queue: AgentQueue, name: str, order: list[str], release: asyncio.Event) -> None:
    async with queue:
        order.append(name)
        await release.wait()


def _run(coro: object) -> None:
    asyncio.run(coro)  # type: ignore[arg-type]


def test_a_free_queue_is_entered_without_waiting() -> None:
    async def main() -> None:
        queue = AgentQueue()
        entered = queue.__aenter__()
        with pytest.raises(StopIteration):
            entered.send(None)  # done at the first step: nothing was awaited
        assert queue.held
        await queue.__aexit__(None, None, None)
        assert not queue.held

    _run(main())


def test_waiters_enter_in_arrival_order_and_none_overtakes() -> None:
    async def main() -> None:
        queue, order = AgentQueue(), []
        gates = [asyncio.Event() for _ in range(3)]
        tasks = [
            asyncio.create_task(_hold(queue, name, order, gate))
            for name, gate in zip("abc", gates, strict=True)
        ]
        await asyncio.sleep(0)
        assert order == ["a"]
        gates[0].set()
        await asyncio.sleep(0)  # a leaves: the queue is b's before b runs
        late = asyncio.create_task(_hold(queue, "late", order, asyncio.Event()))
        await asyncio.sleep(0)
        assert order == ["a", "b"]
        gates[1].set()
        gates[2].set()
        await asyncio.gather(*tasks)
        await asyncio.sleep(0)
        assert order == ["a", "b", "c", "late"]
        late.cancel()
        await asyncio.gather(late, return_exceptions=True)
        assert not queue.held

    _run(main())


@pytest.mark.parametrize("passes", [0, 1, 2])
def test_a_waiter_cancelled_in_line_leaves_it(passes: int) -> None:
    async def main() -> None:
        queue, order = AgentQueue(), []
        release = asyncio.Event()
        holder = asyncio.create_task(_hold(queue, "holder", order, release))
        await asyncio.sleep(0)
        waiter = asyncio.create_task(_hold(queue, "cancelled", order, asyncio.Event()))
        after = asyncio.create_task(_hold(queue, "after", order, release))
        for _ in range(passes):  # 0: cancelled before its first step
            await asyncio.sleep(0)
        waiter.cancel()
        release.set()
        await asyncio.gather(holder, after)
        assert waiter.cancelled()
        assert order == ["holder", "after"]
        assert not queue.held

    _run(main())


def test_a_waiter_cancelled_after_the_hand_over_passes_the_queue_on() -> None:
    async def main() -> None:
        queue, order = AgentQueue(), []
        await queue.__aenter__()
        waiter = asyncio.create_task(_hold(queue, "handed", order, asyncio.Event()))
        after = asyncio.create_task(_hold(queue, "after", order, _set_event()))
        await asyncio.sleep(0)
        await queue.__aexit__(None, None, None)  # handed to the waiter, not yet resumed
        assert queue.held
        waiter.cancel()
        await asyncio.gather(after)
        assert waiter.cancelled()
        assert order == ["after"]
        assert not queue.held

    _run(main())


def test_a_holder_cancelled_inside_frees_the_queue() -> None:
    async def main() -> None:
        queue, order = AgentQueue(), []
        holder = asyncio.create_task(_hold(queue, "holder", order, asyncio.Event()))
        await asyncio.sleep(0)
        holder.cancel()
        await asyncio.gather(holder, return_exceptions=True)
        assert not queue.held
        await _hold(queue, "next", order, _set_event())
        assert order == ["holder", "next"]

    _run(main())


def _set_event() -> asyncio.Event:
    event = asyncio.Event()
    event.set()
    return event

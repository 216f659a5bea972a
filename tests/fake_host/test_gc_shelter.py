"""The fake host keeps its append-only logs out of the cyclic collector's way
while it is open, and hands everything back when the last host closes."""

from __future__ import annotations

import gc
import weakref

import pytest

from pytest_dsh import FakeHost
from pytest_dsh.fake_host import gc_shelter


@pytest.fixture
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gc_shelter, "THRESHOLD", 10)
    gc.unfreeze()


def test_a_growing_log_is_frozen_while_the_host_is_open(small_threshold: None) -> None:
    host = FakeHost()
    try:
        agent = host.create_agent()
        for n in range(25):
            agent.session.append("test/event", {"n": n})
        assert gc.get_freeze_count() > 0, "the log grew past the threshold"
        assert [e["data"]["n"] for e in agent.session.log] == list(range(25))
    finally:
        host.close()
    assert gc.get_freeze_count() == 0, "closing the last host unfreezes"


def test_a_second_open_host_keeps_the_freeze_until_it_closes(small_threshold: None) -> None:
    first, second = FakeHost(), FakeHost()
    try:
        agent = first.create_agent()
        for n in range(25):
            agent.session.append("test/event", {"n": n})
        first.close()
        assert gc.get_freeze_count() > 0, "another host is still open"
    finally:
        first.close()
        second.close()
    assert gc.get_freeze_count() == 0


def test_a_cycle_made_while_frozen_is_collected_after_close(small_threshold: None) -> None:
    class Node:
        other: object = None

    host = FakeHost()
    try:
        a, b = Node(), Node()
        a.other, b.other = b, a
        watched = weakref.ref(a)
        agent = host.create_agent()
        for n in range(25):
            agent.session.append("test/event", {"n": n})
        del a, b
        gc.collect()
        assert watched() is not None, "frozen: the collector does not see the cycle"
    finally:
        host.close()
    gc.collect()
    assert watched() is None, "after close the cycle is collected"


def test_a_young_cycle_is_collected_when_the_log_is_frozen_not_kept(small_threshold: None) -> None:
    class Node:
        other: object = None

    host = FakeHost()
    try:
        agent = host.create_agent()
        for n in range(5):
            agent.session.append("test/event", {"n": n})
        a, b = Node(), Node()
        a.other, b.other = b, a
        watched = weakref.ref(a)
        del a, b
        for n in range(5, 25):  # crosses the threshold: the log is frozen
            agent.session.append("test/event", {"n": n})
        assert gc.get_freeze_count() > 0
        assert watched() is None, "garbage of the youngest generation is not frozen"
    finally:
        host.close()

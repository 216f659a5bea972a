"""Wall clock versus virtual monotonic time."""

from __future__ import annotations

import datetime
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_dsh import NODE_MAX_TIMER_DELAY_MS, FakeHost

START_MS = 1_767_225_600_000


def _fired_at(host: FakeHost, delay_ms: int) -> list[tuple[float, int]]:
    fired: list[tuple[float, int]] = []
    host.process.clock.set_timer(
        delay_ms, lambda: fired.append((host.clock.monotonic(), host.now_ms))
    )
    return fired


def test_timer_fires_at_its_exact_virtual_instant(host: FakeHost) -> None:
    fired = _fired_at(host, 5000)
    host.advance(4.999)
    assert fired == []
    host.advance(0.001)
    assert fired == [(5.0, START_MS + 5000)]


def test_timers_fire_in_order_of_their_deadlines(host: FakeHost) -> None:
    order: list[str] = []
    for name, delay in (("c", 3000), ("a", 1000), ("b", 2000)):
        host.process.clock.set_timer(delay, lambda name=name: order.append(name))
    host.advance(10)
    assert order == ["a", "b", "c"]


def test_advance_moves_wall_and_monotonic_together(host: FakeHost) -> None:
    host.advance(90.5)
    assert host.clock.monotonic() == pytest.approx(90.5)
    assert host.now_ms == START_MS + 90_500


def test_wall_clock_rollback_does_not_move_timers(host: FakeHost) -> None:
    fired = _fired_at(host, 60_000)
    host.set_wall_clock(START_MS - 3_600_000)
    host.advance(59.999)
    assert fired == []
    host.advance(0.001)
    # The timer fired after 60 s of monotonic time; the wall clock reads an
    # hour earlier than it would have, because it was stepped back.
    assert fired == [(60.0, START_MS - 3_600_000 + 60_000)]


def test_wall_clock_forward_jump_does_not_fire_timers(host: FakeHost) -> None:
    fired = _fired_at(host, 60_000)
    host.set_wall_clock(START_MS + 86_400_000)
    host.run_until_idle()
    assert fired == []
    assert host.now_ms == START_MS + 86_400_000
    host.advance(60)
    assert fired == [(60.0, START_MS + 86_400_000 + 60_000)]


def test_time_time_and_datetime_now_follow_the_virtual_wall_clock(host: FakeHost) -> None:
    host.set_wall_clock(START_MS + 1234)
    assert time.time() == pytest.approx((START_MS + 1234) / 1000)
    host.advance(2)
    assert datetime.datetime.now(datetime.UTC) == datetime.datetime(
        2026, 1, 1, 0, 0, 3, 234_000, tzinfo=datetime.UTC
    )


def test_closing_the_host_restores_the_real_clock() -> None:
    fake = FakeHost({}, start_ms=0)
    assert time.time() == 0
    fake.close()
    assert time.time() > 1_700_000_000


@pytest.mark.parametrize(
    ("delay_ms", "fires_after_s"),
    [
        (NODE_MAX_TIMER_DELAY_MS, NODE_MAX_TIMER_DELAY_MS / 1000),
        (NODE_MAX_TIMER_DELAY_MS + 1, 0.001),
        (0, 0.001),
        (-5, 0.001),
    ],
)
def test_timer_delays_follow_node_platform_limits(
    host: FakeHost, delay_ms: int, fires_after_s: float
) -> None:
    fired = _fired_at(host, delay_ms)
    host.advance(fires_after_s)
    assert [mono for mono, _ in fired] == [pytest.approx(fires_after_s)]


def test_cancelled_timer_never_fires(host: FakeHost) -> None:
    fired: list[int] = []
    handle = host.process.clock.set_timer(1000, lambda: fired.append(1))
    handle.cancel()
    host.advance(5)
    assert fired == []


def test_virtual_time_never_runs_backwards(host: FakeHost) -> None:
    with pytest.raises(ValueError, match="backwards"):
        host.advance(-1)


def test_wall_clock_accepts_only_integer_milliseconds(host: FakeHost) -> None:
    with pytest.raises(TypeError, match="integer epoch milliseconds"):
        host.set_wall_clock(1.5)  # type: ignore[arg-type]


def test_asyncio_sleep_uses_virtual_time(host: FakeHost) -> None:
    import asyncio

    woke: list[float] = []

    async def sleeper() -> None:
        await asyncio.sleep(3600)
        woke.append(host.clock.monotonic())

    host.start(sleeper())
    host.advance(3599)
    assert woke == []
    host.advance(1)
    assert woke == [3600.0]


def test_patching_the_clock_leaves_the_process_time_zone_alone(monkeypatch) -> None:
    import os

    monkeypatch.setenv("TZ", "Asia/Shanghai")
    fake = FakeHost({}, start_ms=START_MS)
    try:
        fake.advance(1)
        fake.set_wall_clock(START_MS - 1000)
        assert os.environ["TZ"] == "Asia/Shanghai"
        monkeypatch.delenv("TZ")
        fake.advance(1)  # must not need TZ to exist
    finally:
        fake.close()
    assert "TZ" not in os.environ


_STEPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("advance"), st.sampled_from([0.0, 0.0004, 0.0006, 0.001, 0.25, 1.0, 300.0])
        ),
        st.tuples(
            st.just("wall"),
            st.sampled_from(
                [START_MS - 5_000, START_MS + 1, -62_135_596_800_000, 253_402_300_799_999]
            )
            | st.integers(-(10**15), 10**15),
        ),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(_STEPS)
def test_process_clock_equals_the_virtual_wall_after_any_steps(steps) -> None:
    # Pins the patched process clock (time-machine, synced by shifts forwards and
    # moves backwards) to the virtual wall, clamped to datetime's range.
    host = FakeHost({}, start_ms=START_MS)
    try:
        for kind, amount in steps:
            if kind == "advance":
                host.advance(amount)
            else:
                host.set_wall_clock(amount)
            expected_ms = min(
                max(host.now_ms, -62_135_596_800_000 + 86_400_000), 253_402_300_799_999 - 86_400_000
            )
            assert time.time_ns() == expected_ms * 1_000_000
            assert datetime.datetime.now(datetime.UTC) == datetime.datetime(
                1970, 1, 1, tzinfo=datetime.UTC
            ) + datetime.timedelta(milliseconds=expected_ms)
    finally:
        host.close()

"""Virtual time keeps running for simulated years (a long benchmark relies on it).

Pins a host detail: asyncio's timer step must stay above the float spacing of
the virtual monotonic clock, which passes 1e-9 s after 2**24 s (about 194 days).
"""

from __future__ import annotations

from pytest_dsh import FakeHost

START = 1_767_225_600_000


def test_timers_still_fire_after_two_hundred_virtual_days():
    host = FakeHost({}, start_ms=START)
    try:
        fired: list[int] = []
        clock = host.process.services.clock
        host.advance(200 * 86_400)
        clock.set_timer(300_000, lambda: fired.append(clock.now_ms()))
        host.advance(300)
        assert fired == [START + 200 * 86_400_000 + 300_000]
    finally:
        host.close()

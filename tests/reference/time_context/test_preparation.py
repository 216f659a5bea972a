"""One preparation attempt: text, suppression and the single clock sample."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dsh_reference.time_context.core import TimeContextSettings, prepare_reading

BASE = 1_783_987_200_000  # 2026-07-14T00:00:00.000Z
READING = {"kind": "plugin", "plugin": "time-context"}


def log(*entries):
    return [
        {"type": kind, "seq": seq, "time": time, "data": data}
        for seq, (kind, time, data) in enumerate(entries)
    ]


def reading(time):
    return ("user/message", time, {"content": [{"type": "text", "text": "r"}], "source": READING})


def settings(zone="UTC", interval=0):
    return TimeContextSettings(zone_key=zone, refresh_interval_ms=interval)


def test_step_one_example_from_the_official_tests():
    events = log(("assistant/message", BASE, {}))
    text = prepare_reading(
        events, now_ms=BASE + 90_061_000, turn=1, step=1, settings=settings("Asia/Shanghai")
    )
    assert text == (
        "Time sampled while preparing turn 1, step 1: 2026-07-15T09:01:01+08:00[Asia/Shanghai]\n"
        "Elapsed since the preceding model-visible message: 1d 1h 1m 1s."
    )


def test_later_step_example_from_the_official_tests():
    events = log(("turn/start", BASE - 5, {"turn": 3}), reading(BASE))
    text = prepare_reading(events, now_ms=BASE + 61_000, turn=3, step=2, settings=settings())
    assert text == (
        "Time sampled while preparing turn 3, step 2: 2026-07-14T00:01:01+00:00[UTC]\n"
        "Elapsed since the preceding step context: 1m 1s."
    )


def test_step_one_without_any_message_is_unavailable():
    text = prepare_reading([], now_ms=BASE, turn=1, step=1, settings=settings())
    assert text is not None
    assert text.endswith("model-visible message: unavailable.")


def test_a_later_step_after_suppressed_steps_is_unavailable():
    events = log(reading(BASE), ("turn/start", BASE + 1, {"turn": 2}))
    text = prepare_reading(
        events, now_ms=BASE + 1_000, turn=2, step=3, settings=settings(interval=1_000)
    )
    assert text is not None
    assert text.endswith("step context: unavailable.")


def test_a_suppressed_attempt_gives_nothing():
    events = log(("turn/start", BASE, {"turn": 1}), reading(BASE))
    assert prepare_reading(
        events, now_ms=BASE + 999, turn=1, step=2, settings=settings(interval=1_000)
    ) is None


def test_a_backward_clock_injects_and_clamps_to_zero():
    events = log(("turn/start", BASE, {"turn": 1}), reading(BASE))
    text = prepare_reading(
        events, now_ms=BASE - 60_000, turn=1, step=2, settings=settings(interval=3_600_000)
    )
    assert text == (
        "Time sampled while preparing turn 1, step 2: 2026-07-13T23:59:00+00:00[UTC]\n"
        "Elapsed since the preceding step context: 0s."
    )


@given(
    gap=st.integers(min_value=-10**9, max_value=10**9),
    interval=st.integers(min_value=0, max_value=10**9),
    step=st.integers(min_value=1, max_value=5),
)
def test_the_same_log_and_instant_always_give_the_same_answer(gap, interval, step):
    events = log(("turn/start", BASE, {"turn": 1}), reading(BASE))
    first = prepare_reading(
        events, now_ms=BASE + gap, turn=1, step=step, settings=settings(interval=interval)
    )
    again = prepare_reading(
        list(events), now_ms=BASE + gap, turn=1, step=step, settings=settings(interval=interval)
    )
    assert first == again
    assert (first is None) == (interval > 0 and 0 <= gap < interval)

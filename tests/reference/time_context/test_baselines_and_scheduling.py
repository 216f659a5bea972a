"""Elapsed baselines (notes §4) and the interval decision (notes §5)."""

from __future__ import annotations

import pytest

from dsh_reference.time_context.core import (
    elapsed_text,
    latest_reading_time_ms,
    reading_due,
    same_turn_reading_time_ms,
    step_one_baseline_ms,
)

READING = {"kind": "plugin", "plugin": "time-context"}


def log(*entries):
    """Events from ``(type, time, data)`` triples, numbered in order."""
    return [
        {"type": kind, "seq": seq, "time": time, "data": data or {}}
        for seq, (kind, time, data) in enumerate(entries)
    ]


def msg(source, time):
    return ("user/message", time, {"content": [{"type": "text", "text": "x"}], "source": source})


@pytest.mark.parametrize(
    "kind", ["user/message", "assistant/message", "tool/result", "steering/message"]
)
def test_step_one_counts_every_model_visible_message_type(kind):
    events = log(("turn/start", 1, {"turn": 1}), (kind, 5, {}), ("step/end", 9, {}))
    assert step_one_baseline_ms(events) == 5


@pytest.mark.parametrize(
    "kind",
    ["turn/start", "turn/end", "step/start", "step/end", "tool/call", "assistant/chunk",
     "prompt/blocked", "request/header", "todo/write", "compact/start", "compact/end",
     "schedule/change"],
)
def test_step_one_ignores_other_event_types(kind):
    events = log(("assistant/message", 3, {}), (kind, 8, {}))
    assert step_one_baseline_ms(events) == 3


@pytest.mark.parametrize(
    "source",
    [{"kind": "user"}, READING, {"kind": "plugin", "plugin": "compact"}, {"kind": "plugin"}],
)
def test_step_one_ignores_the_source(source):
    assert step_one_baseline_ms(log(("assistant/message", 1, {}), msg(source, 7))) == 7


def test_step_one_has_no_baseline_in_a_log_without_messages():
    assert step_one_baseline_ms([]) is None
    assert step_one_baseline_ms(log(("turn/start", 1, {"turn": 1}))) is None


def test_later_steps_use_the_newest_reading_of_the_same_turn():
    events = log(
        ("turn/start", 0, {"turn": 2}),
        msg({"kind": "user"}, 0),
        msg(READING, 10),
        ("step/start", 10, {"turn": 2, "step": 1}),
        msg(READING, 20),
        ("assistant/message", 25, {}),
        ("tool/result", 26, {}),
    )
    assert same_turn_reading_time_ms(events, 2) == 20


def test_later_steps_never_reach_into_an_earlier_turn():
    events = log(
        ("turn/start", 0, {"turn": 1}), msg(READING, 1), ("turn/end", 2, {"turn": 1}),
        ("turn/start", 3, {"turn": 2}), msg({"kind": "user"}, 3),
    )
    assert same_turn_reading_time_ms(events, 2) is None


def test_without_the_turns_turn_start_the_scan_runs_to_the_start_of_the_log():
    events = log(("turn/start", 0, {"turn": 1}), msg(READING, 1))
    assert same_turn_reading_time_ms(events, 5) == 1
    assert same_turn_reading_time_ms([], 5) is None


@pytest.mark.parametrize(
    ("now", "baseline", "expected"),
    [
        (1_000, None, "unavailable"),
        (1_000, 1_000, "0s"),
        (1_100, 900, "0s"),
        (2_100, 900, "1s"),
        (900, 61_900, "0s"),
        (90_061_000, 0, "1d 1h 1m 1s"),
    ],
)
def test_elapsed_text_clamps_and_reports_unavailable(now, baseline, expected):
    assert elapsed_text(now, baseline) == expected


def test_the_latest_reading_is_the_newest_in_any_turn_even_when_shadowed():
    events = log(
        ("turn/start", 0, {"turn": 1}),
        msg(READING, 5),
        msg(READING, 7),
        ("turn/end", 8, {"turn": 1}),
        ("compact/start", 9, {}),
        ("user/message", 9, {"content": [], "source": {"kind": "plugin", "plugin": "compact"}}),
        ("compact/end", 9, {}),
        msg({"kind": "user"}, 10),
    )
    events[5]["sourceEventSeqs"] = [1, 2]
    assert latest_reading_time_ms(events) == 7


@pytest.mark.parametrize(
    "event",
    [
        ("user/message", 1, {"source": {"kind": "user", "plugin": "time-context"}}),
        ("user/message", 1, {"source": {"kind": "plugin", "plugin": "time-contexts"}}),
        ("user/message", 1, {"source": "time-context"}),
        ("user/message", 1, None),
        ("steering/message", 1, {"source": READING}),
        ("assistant/message", 1, {"source": READING}),
    ],
)
def test_only_user_messages_with_the_plugin_source_are_readings(event):
    assert latest_reading_time_ms(log(event)) is None


@pytest.mark.parametrize(
    ("now", "last", "interval", "due"),
    [
        (5_000, None, 1_000, True),
        (5_000, 4_001, 1_000, False),
        (5_000, 4_000, 1_000, True),
        (4_999, 4_000, 1_000, False),
        (4_000, 4_000, 1_000, False),
        (3_999, 4_000, 1_000, True),
        (4_000, 4_000, 0, True),
        (10**15, 0, 2**53 - 1, False),
    ],
)
def test_interval_decision_table(now, last, interval, due):
    assert reading_due(now, last, interval) is due

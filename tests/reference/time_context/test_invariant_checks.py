"""The invariant companion's pure checks, their order and messages (notes §7)."""

from __future__ import annotations

import pytest

from dsh_reference.time_context.core import (
    TimeContextInvariantError,
    check_log,
    check_reading,
)

T = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z
SOURCE = {"kind": "plugin", "plugin": "time-context"}
STEP1 = (
    "Time sampled while preparing turn 1, step 1: 2026-01-01T00:00:00+00:00[UTC]\n"
    "Elapsed since the preceding model-visible message: 0s."
)
STEP2 = (
    "Time sampled while preparing turn 1, step 2: 2026-01-01T00:00:00+00:00[UTC]\n"
    "Elapsed since the preceding step context: unavailable."
)


def ev(kind, data=None, time=T):
    return {"type": kind, "seq": 0, "time": time, "data": data or {}}


def reading(text, time=T, content=None):
    blocks = content if content is not None else [{"type": "text", "text": text}]
    return ev("user/message", {"content": blocks, "source": SOURCE}, time)


OPEN_TURN = [ev("turn/start", {"turn": 1}), ev("user/message", {"content": [], "source": {}})]
AFTER_STEP_1 = [
    *OPEN_TURN,
    ev("step/start", {"turn": 1, "step": 1}),
    ev("assistant/message", {}),
    ev("step/end", {"turn": 1, "step": 1}),
]


def message_of(prefix, candidate):
    with pytest.raises(TimeContextInvariantError) as caught:
        check_reading(prefix, candidate)
    return str(caught.value)


@pytest.mark.parametrize(
    ("prefix", "text"),
    [(OPEN_TURN, STEP1), (AFTER_STEP_1, STEP2), ([ev("turn/start", {"turn": 1})], STEP1)],
)
def test_well_placed_readings_pass(prefix, text):
    check_reading(prefix, reading(text))


def test_leading_zeros_name_the_same_number_as_javascript_reads_it():
    text = STEP1.replace("turn 1, step 1", "turn 0000000000000000000001, step 0001")
    check_reading(OPEN_TURN, reading(text))


@pytest.mark.parametrize(
    "content",
    [[], [{"type": "text", "text": STEP1}] * 2, [{"type": "image", "text": STEP1}], "x", None],
)
def test_exactly_one_text_block_is_required(content):
    candidate = reading(STEP1, content=content)
    if content is None:
        candidate["data"]["content"] = None
    assert message_of(OPEN_TURN, candidate) == (
        "time-context messages must contain exactly one text block"
    )


@pytest.mark.parametrize(
    "text",
    [
        STEP1 + "\n",
        " " + STEP1,
        STEP1.replace("\n", "\r\n"),
        STEP1.replace("0s.", "0s"),
        STEP1.replace("0s.", "0.5s."),
        STEP1.replace("0s.", "1m."),
        STEP1.replace("0s.", "1h 1d 0s."),
        STEP1.replace("+00:00", "+08:05:43"),
        STEP1.replace("[UTC]", ""),
        STEP1.replace("[UTC]", "[]"),
        STEP1.replace("2026-", "26-"),
        STEP1.replace("model-visible message", "prompt"),
        STEP1.replace("turn 1", "turn -1"),
        STEP1.replace("turn 1", "turn \u0661"),
        "Browser time zone for this request: UTC.\n" + STEP1,
    ],
)
def test_the_whole_text_must_match_the_reading_format(text):
    assert message_of(OPEN_TURN, reading(text)) == (
        "time-context message does not match the durable reading format"
    )


def test_a_non_string_text_does_not_match_the_format():
    assert "durable reading format" in message_of(
        OPEN_TURN, reading("", content=[{"type": "text", "text": 5}])
    )


@pytest.mark.parametrize(
    "replacement",
    [
        "turn 0, step 1",
        "turn 1, step 0",
        "turn 9007199254740992, step 1",
        "turn 1, step 00000000000000000000",
        # Past Python's 4,300-digit int conversion: JavaScript reads Infinity.
        "turn " + "9" * 5000 + ", step 1",
        "turn 1, step 1" + "0" * 4400,
    ],
)
def test_turn_and_step_must_be_positive_safe_integers(replacement):
    text = STEP1.replace("turn 1, step 1", replacement)
    assert message_of(OPEN_TURN, reading(text)) == (
        "time-context turn and step must be positive safe integers"
    )


@pytest.mark.parametrize(
    "prefix",
    [
        [],
        [ev("user/message", {})],
        [*OPEN_TURN, ev("turn/end", {"turn": 1})],
        [*OPEN_TURN, ev("turn/end", {"turn": 1}), ev("user/message", {})],
    ],
)
def test_a_reading_must_be_inside_an_open_turn(prefix):
    assert message_of(prefix, reading(STEP1)) == (
        "time-context reading must be appended inside an open turn"
    )


def test_a_reading_must_precede_the_next_step_start():
    prefix = [*AFTER_STEP_1, ev("step/start", {"turn": 1, "step": 2}), ev("tool/result", {})]
    assert message_of(prefix, reading(STEP2)) == (
        "time-context reading must precede step/start, but step 2 is already open"
    )


@pytest.mark.parametrize(
    ("prefix", "text", "message"),
    [
        (OPEN_TURN, STEP2, "time-context reading names turn 1/step 2, expected turn 1/step 1"),
        (AFTER_STEP_1, STEP1, "time-context reading names turn 1/step 1, expected turn 1/step 2"),
        (
            OPEN_TURN,
            STEP1.replace("turn 1", "turn 2"),
            "time-context reading names turn 2/step 1, expected turn 1/step 1",
        ),
    ],
)
def test_a_reading_must_name_the_open_turn_and_the_next_step(prefix, text, message):
    assert message_of(prefix, reading(text)) == message


def test_step_one_must_measure_from_the_preceding_model_visible_message():
    text = STEP1.replace("model-visible message", "step context")
    assert message_of(OPEN_TURN, reading(text)) == (
        'time-context step 1 uses the wrong elapsed-time baseline "step context"'
    )


def test_later_steps_must_measure_from_the_preceding_step_context():
    text = STEP2.replace("step context", "model-visible message")
    assert message_of(AFTER_STEP_1, reading(text)) == (
        'time-context step 2 uses the wrong elapsed-time baseline "model-visible message"'
    )


@pytest.mark.parametrize(
    ("timestamp", "time"),
    [
        ("2026-01-01T00:00:01+00:00", T + 999),
        ("2026-01-01T08:00:00+07:59", T),
        ("2026-02-32T00:00:00+00:00", T + 10**12),
        ("2026-01-01T23:60:00+00:00", T + 10**12),
        ("2026-01-01T00:00:00+24:00", T + 10**12),
        ("2026-01-01T00:00:00+00:00", T + 0.5),
        ("2026-01-01T00:00:00+00:00", "1767225600000"),
        ("2026-01-01T00:00:00+00:00", None),
    ],
)
def test_the_rendered_timestamp_must_parse_and_not_postdate_the_event(timestamp, time):
    text = STEP1.replace("2026-01-01T00:00:00+00:00", timestamp)
    assert message_of(OPEN_TURN, reading(text, time=time)) == (
        "time-context rendered timestamp must parse and not postdate its durable event"
    )


@pytest.mark.parametrize(
    ("timestamp", "time"),
    [
        ("2026-01-01T00:00:00+00:00", T + 60_000),  # a pause between sampling and appending
        ("2026-01-01T00:00:00+00:00", T + 999),
        ("2026-01-01T00:00:00Z", T),
        ("2026-01-01T08:00:00+08:00", T),
        ("2025-12-31T24:00:00+00:00", T),
        ("2025-11-31T00:00:00+00:00", T),  # rolls over to December 1
    ],
)
def test_parseable_timestamps_not_after_the_event_pass(timestamp, time):
    text = STEP1.replace("2026-01-01T00:00:00+00:00", timestamp)
    check_reading(OPEN_TURN, reading(text, time=time))


def test_the_elapsed_value_and_its_baseline_are_not_checked():
    text = STEP1.replace("0s.", "400d 0s.")
    check_reading([ev("turn/start", {"turn": 1})], reading(text))


def test_the_source_shape_beyond_attribution_is_not_checked():
    candidate = reading(STEP1)
    candidate["data"]["source"] = {**SOURCE, "form": "snapshot"}
    check_reading(OPEN_TURN, candidate)


def test_the_first_failing_check_wins():
    text = STEP1.replace("turn 1, step 1", "turn 0, step 1") + "!"
    assert "exactly one text block" in message_of(
        [], reading(text, content=[{"type": "text", "text": text}] * 2)
    )
    assert "durable reading format" in message_of([], reading(text))
    assert "positive safe integers" in message_of([], reading(text[:-1]))
    assert "open turn" in message_of([], reading(STEP1.replace("[UTC]", "[Nowhere]")))


def test_check_log_checks_every_reading_against_its_prefix():
    good = [*OPEN_TURN, reading(STEP1), ev("step/start", {"turn": 1, "step": 1})]
    check_log(good)
    bad = [*good, reading(STEP2)]
    with pytest.raises(TimeContextInvariantError, match="already open"):
        check_log(bad)


def test_check_log_skips_a_forks_inherited_prefix():
    inherited = [reading(STEP1), *OPEN_TURN]
    check_log(inherited, seed_length=1)
    with pytest.raises(TimeContextInvariantError, match="open turn"):
        check_log(inherited, seed_length=0)


def test_check_log_ignores_other_sources():
    check_log([ev("user/message", {"content": [], "source": {"kind": "plugin", "plugin": "x"}})])

"""Behaviours a mutation run of the reference showed the suite did not yet pin
(docs/conformance-power.md): the invariant companion's reading of a rendered
timestamp on any calendar day and clock time (with the official build's
``Date.parse`` edge cases), turn and step numbers beyond the small integers,
offsets that carry seconds, and the load error for a timeZone that is not a
string. Readme-level tests probe the companion with readings the implementation
wrote itself. What the README leaves open is pinned: the ``Date.parse`` edge
cases (TC-INVARIANT-DATE-PARSE), the companion's wording
(TC-INVARIANT-DIAGNOSTICS), an offset's seconds (TC-TIMESTAMP-TEXT) and the
load error's wording (TC-LOAD-MESSAGES)."""

from __future__ import annotations

import re

import pytest

from dsh_conformance.expect import pinned, readme
from dsh_conformance.time_context.readings import (
    READING_SOURCE,
    edited,
    reading_events,
    step_one_text,
    text_of,
    written_readings,
)
from pytest_dsh.contract import AppendRejectedError

TURN = ("turn/start", {"turn": 1, "trigger": {"kind": "message", "source": {"kind": "user"}}})
PROMPT = ("user/message", {"content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}})


MARCH_2_MS = 1_772_409_600_000  # 2026-03-02T00:00:00.000Z
HEAD = re.compile(r"Time sampled while preparing turn \d+, step \d+: ")
UNPARSABLE = "time-context rendered timestamp must parse and not postdate its durable event"


def _open_turn(host, turn_start=TURN):
    agent = host.create_agent()
    for kind, data in (turn_start, PROMPT):
        agent.append_event(kind, data)
    return agent


def _reading(timestamp, turn=1, step=1):
    text = (step_one_text(turn, timestamp, "0s") if step == 1 else
            f"Time sampled while preparing turn {turn}, step {step}: {timestamp}\n"
            "Elapsed since the preceding step context: 0s.")
    return {"content": [{"type": "text", "text": text}], "source": dict(READING_SOURCE)}


def text_of_data(data):
    return text_of({"data": data})


def _in_turn(turn):
    """An edit naming ``turn`` in the template's first line, step 1."""
    return lambda text: HEAD.sub(f"Time sampled while preparing turn {turn}, step 1: ", text,
                                 count=1)


def _invariant_host(dsh_host_factory, start_ms):
    host = dsh_host_factory(start_ms=start_ms)
    host.load_plugin("time-context-invariant")
    return host


# Each instant is the event time; the implementation's own reading sampled then
# names exactly that second, so it is accepted, and its reading sampled one
# second later postdates the event. Dates and times vary every field the parse
# reads (month 12, a leap day, non-zero hours, minutes and seconds, offsets of
# both signs, a year early in a 400-year cycle).
@pytest.mark.parametrize(
    ("event_ms", "zone"),
    [
        (1_784_123_130_250, "Asia/Kolkata"),  # 2026-07-15T19:15:30+05:30
        (1_835_475_005_000, "America/St_Johns"),  # 2028-02-29T18:40:05-03:30
        (1_798_761_599_000, "UTC"),  # 2026-12-31T23:59:59+00:00
        (1_798_761_599_000, "Pacific/Chatham"),  # 2027-01-01T13:44:59+13:45
        (1_055_678_400_000, "UTC"),  # 2003-06-15T12:00:00+00:00
    ],
    ids=["kolkata-july", "st-johns-leap-day", "utc-new-years-eve", "chatham-new-year",
         "utc-2003"],
)
@pytest.mark.dsh_requires("time-context", "time-context-invariant")
@pytest.mark.spec("TC-028", "TC-029")
def test_a_rendered_timestamp_is_read_as_its_exact_instant(
    dsh_implementation, dsh_host_factory, event_ms, zone
):
    [exact] = written_readings(dsh_implementation, start_ms=event_ms, zone=zone)
    [later] = written_readings(dsh_implementation, start_ms=event_ms + 1_000, zone=zone)
    agent = _open_turn(_invariant_host(dsh_host_factory, event_ms))
    before = agent.events()
    with pytest.raises(AppendRejectedError):
        agent.append_event("user/message", later)
    assert agent.events() == before, readme(
        "TC-029", f"a refused reading sampled one second after its event ({text_of_data(later)!r})"
        " to leave the log unchanged", agent.events()[len(before):])
    try:
        agent.append_event("user/message", exact)
    except AppendRejectedError as refused:
        pytest.fail(readme("TC-028, TC-029", f"a reading sampled at its event's instant "
                           f"({text_of_data(exact)!r}) to be accepted; refused: {refused}"))
    readings = reading_events(agent.events())
    assert len(readings) == 1, readme(
        "TC-028, TC-029", "the reading sampled at its event's instant to be the one reading",
        readings)


# Pins the official build's Date.parse: a day past the month's end (up to 31)
# rolls over, 24:00:00 is the next midnight and +23:59 is the largest offset;
# each reads as its exact instant.
@pytest.mark.parametrize(
    ("exact", "one_second_later"),
    [
        ("2026-02-30T00:00:00+00:00[UTC]", "2026-02-30T00:00:01+00:00[UTC]"),
        ("2026-03-01T24:00:00+00:00[UTC]", "2026-03-02T00:00:01+00:00[UTC]"),
        ("2026-03-02T23:59:00+23:59[UTC]", "2026-03-02T23:59:01+23:59[UTC]"),
    ],
    ids=["february-30", "hour-24", "offset-23h59"],
)
@pytest.mark.dsh_requires("time-context-invariant")
@pytest.mark.compat("TC-INVARIANT-DATE-PARSE")
@pytest.mark.spec("TC-029")
def test_edge_timestamps_are_read_like_date_parse(
    dsh_host_factory, exact, one_second_later
):
    agent = _open_turn(_invariant_host(dsh_host_factory, MARCH_2_MS))
    before = agent.events()
    with pytest.raises(AppendRejectedError):
        agent.append_event("user/message", _reading(one_second_later))
    assert agent.events() == before, pinned(
        "TC-INVARIANT-DATE-PARSE", f"{one_second_later}, read like Date.parse, to postdate "
        "its event by one second and be refused without a trace", agent.events()[len(before):])
    agent.append_event("user/message", _reading(exact))
    readings = reading_events(agent.events())
    assert len(readings) == 1, pinned(
        "TC-INVARIANT-DATE-PARSE", f"{exact}, read like Date.parse, to be exactly its "
        "event's instant and accepted", readings)


# Pins the official build's Date.parse: these give NaN, so the reading is refused.
@pytest.mark.parametrize(
    "timestamp",
    [
        "2026-02-32T00:00:00+00:00[UTC]",
        "2026-13-01T00:00:00+00:00[UTC]",
        "2026-03-01T23:60:00+00:00[UTC]",
        "2026-03-01T23:59:60+00:00[UTC]",
        "2026-03-01T00:00:00+24:00[UTC]",
    ],
    ids=["day-32", "month-13", "minute-60", "second-60", "offset-24h"],
)
@pytest.mark.dsh_requires("time-context-invariant")
@pytest.mark.compat("TC-INVARIANT-DATE-PARSE", "TC-INVARIANT-DIAGNOSTICS")
@pytest.mark.spec("TC-029")
def test_timestamps_date_parse_rejects_are_refused(dsh_host_factory, timestamp):
    agent = _open_turn(_invariant_host(dsh_host_factory, MARCH_2_MS))
    before = agent.events()
    with pytest.raises(AppendRejectedError) as caught:
        agent.append_event("user/message", _reading(timestamp))
    assert UNPARSABLE in str(caught.value), pinned(
        "TC-INVARIANT-DATE-PARSE, TC-INVARIANT-DIAGNOSTICS",
        f"{timestamp}, which Date.parse does not read, to be refused with {UNPARSABLE!r}",
        str(caught.value))
    assert agent.events() == before, pinned(
        "TC-INVARIANT-DATE-PARSE", f"the refused reading stamped {timestamp} to leave the "
        "log unchanged", agent.events()[len(before):])


# The companion compares turn numbers by value, whatever their size.
@pytest.mark.dsh_requires("time-context", "time-context-invariant")
@pytest.mark.spec("TC-028")
def test_a_reading_in_a_high_numbered_turn_is_accepted(dsh_implementation, dsh_host_factory):
    [own] = written_readings(dsh_implementation, start_ms=MARCH_2_MS)
    turn_start = ("turn/start", {**TURN[1], "turn": 300})
    agent = _open_turn(_invariant_host(dsh_host_factory, MARCH_2_MS), turn_start)
    data = edited(own, _in_turn(300))
    try:
        agent.append_event("user/message", data)
    except AppendRejectedError as refused:
        pytest.fail(readme("TC-028", "a reading naming turn 300, the open turn, to be accepted; "
                           f"refused: {refused}"))
    readings = reading_events(agent.events())
    assert len(readings) == 1, readme(
        "TC-028", "a reading naming turn 300, the open turn, to be accepted", readings)


# One block that is not text is refused by the content rule, not the format rule.
@pytest.mark.dsh_requires("time-context-invariant")
@pytest.mark.compat("TC-INVARIANT-DIAGNOSTICS")
@pytest.mark.spec("TC-028")
def test_a_single_non_text_block_is_refused_by_the_content_rule(dsh_host_factory):
    agent = _open_turn(_invariant_host(dsh_host_factory, MARCH_2_MS))
    data = {"content": [{"type": "image", "text": "x"}], "source": dict(READING_SOURCE)}
    with pytest.raises(AppendRejectedError) as caught:
        agent.append_event("user/message", data)
    assert "time-context messages must contain exactly one text block" in str(
        caught.value
    ), pinned(
        "TC-INVARIANT-DIAGNOSTICS", "a lone image block to be refused by the one-text-block "
        "rule, not the reading-format rule", str(caught.value))


def _agent_in_turn_two(dsh_host_factory):
    agent = _open_turn(_invariant_host(dsh_host_factory, MARCH_2_MS))
    for kind, data in [
        ("turn/end", {"turn": 1, "reason": {"kind": "completed"}}),
        ("turn/start", {**TURN[1], "turn": 2}),
        PROMPT,
    ]:
        agent.append_event(kind, data)
    return agent


# A reading naming an earlier turn than the open one is misplaced too.
@pytest.mark.dsh_requires("time-context", "time-context-invariant")
@pytest.mark.spec("TC-028")
def test_a_reading_naming_an_earlier_turn_is_refused(dsh_implementation, dsh_host_factory):
    [own] = written_readings(dsh_implementation, start_ms=MARCH_2_MS)
    agent = _agent_in_turn_two(dsh_host_factory)
    before = agent.events()
    try:
        agent.append_event("user/message", own)
    except AppendRejectedError:
        pass
    else:
        pytest.fail(readme("TC-028", "a reading naming turn 1, appended while turn 2 is open, to "
                           "be refused; it was appended"))
    assert agent.events() == before, readme(
        "TC-028", "a reading naming turn 1, appended while turn 2 is open, to be refused "
        "without a trace", agent.events()[len(before):])


# Which position the companion says it expected (the wording is pinned).
@pytest.mark.dsh_requires("time-context-invariant")
@pytest.mark.compat("TC-INVARIANT-DIAGNOSTICS")
@pytest.mark.spec("TC-028")
def test_a_reading_naming_an_earlier_turn_names_the_expected_position(dsh_host_factory):
    agent = _agent_in_turn_two(dsh_host_factory)
    with pytest.raises(AppendRejectedError) as caught:
        agent.append_event("user/message", _reading("2026-03-02T00:00:00+00:00[UTC]"))
    wanted = "time-context reading names turn 1/step 1, expected turn 2/step 1"
    assert wanted in str(caught.value), pinned(
        "TC-INVARIANT-DIAGNOSTICS", f"a turn-1 reading appended in turn 2 to be refused "
        f"with {wanted!r}", str(caught.value))


# Turn and step must be at least 1: zero is refused by that rule, before the
# position check (official order of checks).
@pytest.mark.parametrize(("turn", "step"), [(0, 1), (1, 0)], ids=["turn-0", "step-0"])
@pytest.mark.dsh_requires("time-context-invariant")
@pytest.mark.compat("TC-INVARIANT-DIAGNOSTICS")
@pytest.mark.spec("TC-028")
def test_turn_or_step_zero_is_refused_as_not_positive(dsh_host_factory, turn, step):
    agent = _open_turn(_invariant_host(dsh_host_factory, MARCH_2_MS))
    with pytest.raises(AppendRejectedError) as caught:
        agent.append_event(
            "user/message", _reading("2026-03-02T00:00:00+00:00[UTC]", turn=turn, step=step)
        )
    wanted = "time-context turn and step must be positive safe integers"
    assert wanted in str(caught.value), pinned(
        "TC-INVARIANT-DIAGNOSTICS", f"turn {turn}, step {step} to be refused with {wanted!r} "
        "before the position check", str(caught.value))

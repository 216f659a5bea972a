"""Behaviours a mutation run of the reference showed the suite did not yet pin
(docs/conformance-power.md): the invariant companion's reading of a rendered
timestamp on any calendar day and clock time, offsets that carry seconds, and
the diagnostic for a timeZone that is not a string."""

from __future__ import annotations

import pytest

from dsh_conformance.time_context.readings import (
    READING_SOURCE,
    parse_reading,
    reading_events,
    reading_texts,
    run_turn,
    step_one_text,
)
from pytest_dsh import PluginLoadError
from pytest_dsh.contract import AppendRejectedError

TURN = ("turn/start", {"turn": 1, "trigger": {"kind": "message", "source": {"kind": "user"}}})
PROMPT = ("user/message", {"content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}})


def _open_turn(host):
    agent = host.create_agent()
    for kind, data in (TURN, PROMPT):
        agent.append_event(kind, data)
    return agent


def _reading(timestamp):
    text = step_one_text(1, timestamp, "0s")
    return {"content": [{"type": "text", "text": text}], "source": dict(READING_SOURCE)}


# Each instant is the event time; its rendering in the zone names exactly that
# second, so it is accepted, and the same rendering one second later postdates
# the event. Dates and times vary every field the parse reads (month 12, a leap
# day, non-zero hours, minutes and seconds, offsets of both signs).
@pytest.mark.parametrize(
    ("event_ms", "exact", "one_second_later"),
    [
        (1_784_123_130_250, "2026-07-15T19:15:30+05:30[Asia/Kolkata]",
         "2026-07-15T19:15:31+05:30[Asia/Kolkata]"),
        (1_835_475_005_000, "2028-02-29T18:40:05-03:30[America/St_Johns]",
         "2028-02-29T18:40:06-03:30[America/St_Johns]"),
        (1_798_761_599_000, "2026-12-31T23:59:59+00:00[UTC]",
         "2027-01-01T00:00:00+00:00[UTC]"),
        (1_798_761_599_000, "2027-01-01T13:44:59+13:45[Pacific/Chatham]",
         "2027-01-01T13:45:00+13:45[Pacific/Chatham]"),
    ],
    ids=["kolkata-july", "st-johns-leap-day", "utc-new-years-eve", "chatham-new-year"],
)
@pytest.mark.dsh_requires("time-context-invariant")
@pytest.mark.spec("TC-028", "TC-029")
def test_a_rendered_timestamp_is_read_as_its_exact_instant(
    dsh_host_factory, event_ms, exact, one_second_later
):
    host = dsh_host_factory(start_ms=event_ms)
    host.load_plugin("time-context-invariant")
    agent = _open_turn(host)
    before = agent.events()
    with pytest.raises(AppendRejectedError, match="must parse and not postdate"):
        agent.append_event("user/message", _reading(one_second_later))
    assert agent.events() == before
    agent.append_event("user/message", _reading(exact))
    assert len(reading_events(agent.events())) == 1


# Pins an official detail (README leaves it open, TC-034 only says "numeric
# offset"): an offset with seconds, such as local mean time, keeps its seconds.
@pytest.mark.dsh_requires("time-context")
@pytest.mark.spec("TC-034")
def test_an_offset_with_seconds_is_printed_with_its_seconds(dsh_host_factory):
    host = dsh_host_factory(start_ms=-2_208_988_800_000)  # 1900-01-01T00:00:00Z
    host.load_plugin("time-context", {"timeZone": "Asia/Shanghai"})
    agent = host.create_agent()
    run_turn(host, agent)
    timestamp = parse_reading(reading_texts(agent.events())[0])["timestamp"]
    assert timestamp == "1900-01-01T08:05:43+08:05:43[Asia/Shanghai]"


# Pins an official detail: the diagnostic quotes the configured value as JSON,
# whatever its type (the README only says an invalid zone fails the load).
@pytest.mark.dsh_requires("time-context")
@pytest.mark.spec("TC-011")
def test_a_list_given_as_time_zone_fails_the_load_quoting_it_as_json(dsh_host):
    with pytest.raises(PluginLoadError) as caught:
        dsh_host.load_plugin("time-context", {"timeZone": ["Not/A_Real_Zone"]})
    assert caught.value.message == 'time-context: invalid IANA timeZone ["Not/A_Real_Zone"]'

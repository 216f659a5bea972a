"""README section "模型体验" (Model experience): the two lines the model sees,
the timestamp and duration formats, and the token and KV-cache effects."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, example, given, settings

from dsh_conformance.expect import all_facts, pinned, reading_facts, readme, seconds_of
from dsh_conformance.time_context.readings import (
    START_MS,
    expect_readings,
    is_reading,
    later_step_text,
    parse_reading,
    reading_events,
    reading_texts,
    run_turn,
    step_one_text,
    text_of,
)
from pytest_dsh import pinned_zone
from pytest_dsh.strategies.time_context import host_neutral_zone_keys, instants

pytestmark = [pytest.mark.dsh_requires("time-context")]

JULY_MS = 1_783_987_200_000  # 2026-07-14T00:00:00.000Z


def seqs_of(events):
    return [event["seq"] for event in events]


def types_of(events):
    return [event["type"] for event in events]


# -- what the model sees -------------------------------------------------------------


@pytest.mark.spec("TC-033", "TC-036", "TC-037")
def test_the_first_step_reading_is_exactly_the_two_documented_lines(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "Asia/Shanghai"})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    observed = reading_texts(agent.events())
    expected = [
        "Time sampled while preparing turn 1, step 1: 2026-01-01T08:00:00+08:00[Asia/Shanghai]\n"
        "Elapsed since the preceding model-visible message: 0s."
    ]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-033, TC-036, TC-037", "one reading of the two first-step lines: 'Time sampled while "
        "preparing turn 1, step 1: <2026-01-01T08:00:00, +08:00, Asia/Shanghai>' and 'Elapsed "
        "since the preceding model-visible message: <0 s>.'", observed)


@pytest.mark.spec("TC-033", "TC-038", "TC-039")
def test_later_step_readings_are_exactly_the_two_documented_lines(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.advance(3)
    run_turn(dsh_host, agent, 61_000, 0)
    observed = reading_texts(agent.events())[2:]
    assert all_facts(observed) == all_facts(LATER_STEP_TEXTS), readme(
        "TC-033, TC-038, TC-039", "two later-step readings 'Time sampled while preparing turn 2, "
        "step N: <2026-01-01T00:01:04, +00:00, UTC>' / 'Elapsed since the preceding step "
        "context: <61 s, then 0 s>.'", observed)


@pytest.mark.compat("TC-TIMESTAMP-TEXT", "TC-DURATION-TEXT")
@pytest.mark.spec("TC-033", "TC-038", "TC-039")
def test_later_step_readings_are_exactly_the_official_text(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.advance(3)
    run_turn(dsh_host, agent, 61_000, 0)
    observed = reading_texts(agent.events())[2:]
    assert observed == LATER_STEP_TEXTS, pinned(
        "TC-TIMESTAMP-TEXT, TC-DURATION-TEXT", f"exactly {LATER_STEP_TEXTS!r}", observed)


LATER_STEP_TEXTS = [
    "Time sampled while preparing turn 2, step 2: 2026-01-01T00:01:04+00:00[UTC]\n"
    "Elapsed since the preceding step context: 1m 1s.",
    "Time sampled while preparing turn 2, step 3: 2026-01-01T00:01:04+00:00[UTC]\n"
    "Elapsed since the preceding step context: 0s.",
]


@pytest.mark.spec("TC-033")
def test_every_injecting_attempt_produces_one_source_tagged_message(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 0, 0)
    step_starts = [e for e in agent.events() if e["type"] == "step/start"]
    readings = reading_events(agent.events())
    counts = (len(readings), len(step_starts))
    assert counts == (3, 3), readme("TC-033", "one reading per step of a 3-step turn "
                                    "(readings, step starts)", counts)
    for step, reading in enumerate(readings, start=1):
        source = reading["data"]["source"]
        assert source == {"kind": "plugin", "plugin": "time-context"}, readme(
            "TC-016, TC-033", "the source exactly {kind: 'plugin', plugin: 'time-context'}",
            source)
        # How many content blocks hold the two lines is pinned (TC-READING-MESSAGE-SHAPE).
        facts = reading_facts(text_of(reading))
        shown = facts if isinstance(facts, str) else (facts.turn, facts.step)
        assert shown == (1, step), readme(
            "TC-033", f"a message holding the two lines of turn 1, step {step}", text_of(reading))


TIMESTAMP_TABLE = pytest.mark.parametrize(
    ("start_ms", "zone", "timestamp"),
    [
        (START_MS, "UTC", "2026-01-01T00:00:00+00:00[UTC]"),
        (START_MS, "America/New_York", "2025-12-31T19:00:00-05:00[America/New_York]"),
        (JULY_MS, "America/New_York", "2026-07-13T20:00:00-04:00[America/New_York]"),
        (JULY_MS, "Europe/London", "2026-07-14T01:00:00+01:00[Europe/London]"),
        (JULY_MS, "America/St_Johns", "2026-07-13T21:30:00-02:30[America/St_Johns]"),
        (START_MS, "Australia/Adelaide", "2026-01-01T10:30:00+10:30[Australia/Adelaide]"),
        (START_MS, "Pacific/Chatham", "2026-01-01T13:45:00+13:45[Pacific/Chatham]"),
        (JULY_MS, "Pacific/Kiritimati", "2026-07-14T14:00:00+14:00[Pacific/Kiritimati]"),
    ],
)


@TIMESTAMP_TABLE
@pytest.mark.spec("TC-034")
def test_timestamps_are_iso_shaped_local_times_with_offset_and_zone(
    dsh_host_factory, start_ms, zone, timestamp
):
    host = dsh_host_factory(start_ms=start_ms)
    host.load_plugin("time-context", {"timeZone": zone})
    agent = host.create_agent()
    run_turn(host, agent)
    [observed] = expect_readings(agent.events(), 1, "TC-013", "for a one-step turn")
    facts = reading_facts(observed)
    stamp = facts if isinstance(facts, str) else (facts.local_time, facts.offset, facts.zone)
    expected = reading_facts(step_one_text(1, timestamp, "0s"))
    assert not isinstance(expected, str), f"the expected timestamp is malformed: {expected}"
    assert stamp == (expected.local_time, expected.offset, expected.zone), readme(
        "TC-034", f"an ISO-shaped local time with numeric offset and IANA zone: {timestamp}",
        observed)


@pytest.mark.compat("TC-TIMESTAMP-TEXT")
@TIMESTAMP_TABLE
@pytest.mark.spec("TC-034")
def test_timestamps_are_printed_exactly_with_the_zone_in_brackets(
    dsh_host_factory, start_ms, zone, timestamp
):
    host = dsh_host_factory(start_ms=start_ms)
    host.load_plugin("time-context", {"timeZone": zone})
    agent = host.create_agent()
    run_turn(host, agent)
    [text] = expect_readings(agent.events(), 1, "TC-013", "for a one-step turn")
    observed = parse_reading(text)["timestamp"]
    assert observed == timestamp, pinned("TC-TIMESTAMP-TEXT", f"the timestamp {timestamp}",
                                         observed)


@pytest.mark.spec("TC-034")
def test_a_quarter_hour_offset_is_printed_with_its_minutes(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "Asia/Kathmandu"})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    [observed] = expect_readings(agent.events(), 1, "TC-013", "for a one-step turn")
    facts = reading_facts(observed)
    stamp = facts if isinstance(facts, str) else (facts.local_time, facts.offset)
    assert stamp == ("2026-01-01T05:45:00", "+05:45"), readme(
        "TC-034", "the local time 2026-01-01T05:45:00 with the offset +05:45 (minutes kept)",
        observed)
    # ICU builds label this zone with its older spelling; both are IANA identifiers.
    zone = None if isinstance(facts, str) else facts.zone
    assert zone in {"Asia/Kathmandu", "Asia/Katmandu"}, readme(
        "TC-034", "the IANA zone Asia/Kathmandu (or its older spelling Asia/Katmandu)", observed)


DURATION_TABLE = pytest.mark.parametrize(
    ("elapsed_ms", "duration"),
    [
        (999, "0s"),
        (1_999, "1s"),
        (59_999, "59s"),
        (60_000, "1m 0s"),
        (3_600_000, "1h 0s"),
        (3_661_000, "1h 1m 1s"),
        (86_400_000, "1d 0s"),
        (90_061_000, "1d 1h 1m 1s"),
        (172_860_000, "2d 1m 0s"),
    ],
)


@DURATION_TABLE
@pytest.mark.spec("TC-034", "TC-039")
def test_durations_use_compact_whole_second_units(dsh_host, elapsed_ms, duration):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, elapsed_ms)
    texts = expect_readings(agent.events(), 2, "TC-013", "for a two-step turn")
    observed = parse_reading(texts[1])["elapsed"]
    try:
        seconds = seconds_of(observed)
    except ValueError:
        seconds = None
    assert seconds == elapsed_ms // 1000, readme(
        "TC-034, TC-039, TC-043", f"{elapsed_ms} ms elapsed shown in compact whole-second "
        f"units ({elapsed_ms // 1000} s, sub-second part dropped)", observed)


@pytest.mark.compat("TC-DURATION-TEXT")
@DURATION_TABLE
@pytest.mark.spec("TC-034", "TC-039")
def test_durations_are_spelled_exactly(dsh_host, elapsed_ms, duration):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, elapsed_ms)
    texts = expect_readings(agent.events(), 2, "TC-013", "for a two-step turn")
    observed = parse_reading(texts[1])["elapsed"]
    assert observed == duration, pinned(
        "TC-DURATION-TEXT", f"{elapsed_ms} ms elapsed spelled {duration!r}", observed)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _reading_at(dsh_implementation, instant: int, zone: str) -> tuple[str, datetime]:
    """The one reading of a first step at ``instant`` in ``zone``, and that
    instant's local time computed independently (zoneinfo, whole seconds)."""
    host = dsh_implementation.open_host(start_ms=instant)
    try:
        host.load_plugin("time-context", {"timeZone": zone})
        agent = host.create_agent()
        run_turn(host, agent)
        [text] = expect_readings(agent.events(), 1, "TC-013", f"for a one-step turn at {instant}"
                                 f" ms in {zone}")
    finally:
        host.close()
    return text, (_EPOCH + timedelta(seconds=instant // 1000)).astimezone(pinned_zone(zone))


#: Known minimal failing examples, checked by every run (docs/reproducibility.md):
#: 2026-01-01T00:00:00.999Z in UTC caught a timestamp rounded to the nearest
#: second and a zero offset printed as Z (tests/mutants).
SUB_SECOND_UTC = {"instant": 1_767_225_600_999, "zone": "UTC"}


@pytest.mark.spec("TC-034", "TC-036")
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(instant=instants(), zone=host_neutral_zone_keys())
@example(**SUB_SECOND_UTC)
def test_timestamps_match_an_independent_rendering_for_any_instant_and_zone(
    dsh_implementation, instant, zone
):
    text, local = _reading_at(dsh_implementation, instant, zone)
    expected = step_one_text(1, f"{local.isoformat()}[{zone}]", "0s")
    assert reading_facts(text) == reading_facts(expected), readme(
        "TC-034, TC-036", f"a step-1 reading of {local.isoformat()} in {zone}, 0 s elapsed",
        text)


@pytest.mark.compat("TC-TIMESTAMP-TEXT")
@pytest.mark.spec("TC-034")
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(instant=instants(), zone=host_neutral_zone_keys())
@example(**SUB_SECOND_UTC)
def test_timestamps_are_printed_exactly_for_any_instant_and_zone(
    dsh_implementation, instant, zone
):
    text, local = _reading_at(dsh_implementation, instant, zone)
    expected = f"{local.isoformat()}[{zone}]"
    observed = parse_reading(text)["timestamp"]
    assert observed == expected, pinned("TC-TIMESTAMP-TEXT", f"the timestamp {expected}",
                                        observed)


@pytest.mark.spec("TC-035")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_positive_interval_can_leave_a_step_attempt_without_a_new_reading(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": 60_000})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 10_000)
    events = agent.events()
    starts = [e["seq"] for e in events if e["type"] == "step/start"]
    ends = [e["seq"] for e in events if e["type"] == "step/end"]
    assert len(starts) == 2 and ends, readme(
        "TC-035", "the turn's two steps to run (a suppressed attempt still runs its step)",
        types_of(events))
    # Between the end of step 1 and the start of step 2: step 2's preparation.
    between = [e for e in events if ends[0] < e["seq"] < starts[1] and is_reading(e)]
    assert between == [], readme(
        "TC-035", "no reading before step 2, 10 s after a reading with a 60 s interval", between)
    requests = agent.requests()
    assert len(requests) == 2, readme("TC-035", "both step attempts to send a request",
                                      len(requests))


# -- token effect --------------------------------------------------------------------


@pytest.mark.spec("TC-040")
def test_readings_accumulate_in_history_until_compaction_shadows_them(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    for _ in range(3):
        run_turn(dsh_host, agent, 0)
    in_history = [e for e in agent.history() if is_reading(e)]
    assert len(in_history) == 6, readme(
        "TC-040", "all 6 readings of 3 two-step turns to stay in the derived history",
        len(in_history))
    agent.compact(seqs_of(agent.history()), "summary")
    shadowed = [e for e in agent.history() if is_reading(e)]
    assert shadowed == [], readme("TC-040", "compaction to shadow the readings", shadowed)
    kept = len(reading_events(agent.events()))
    assert kept == 6, readme("TC-040, TC-018", "the 6 readings to stay in the durable log", kept)


@pytest.mark.parametrize(
    ("config", "added"),
    [
        ({"timeZone": "UTC"}, 6),
        ({"timeZone": "UTC", "refreshIntervalMs": 0}, 6),
        ({"timeZone": "UTC", "refreshIntervalMs": 20_000}, 3),
        ({"timeZone": "UTC", "refreshIntervalMs": 60_000}, 1),
    ],
)
@pytest.mark.spec("TC-041")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_positive_interval_reduces_additions(dsh_host, config, added):
    dsh_host.load_plugin("time-context", config)
    agent = dsh_host.create_agent()
    for _ in range(3):  # steps prepared at +0/10, +20/30, +40/50 s
        run_turn(dsh_host, agent, 10_000)
        dsh_host.advance(10)
    observed = len(reading_events(agent.events()))
    assert observed == added, readme(
        "TC-041", f"{added} readings for 6 step attempts 10 s apart with {config}", observed)


# -- KV-cache effect -----------------------------------------------------------------


@pytest.mark.spec("TC-042")
def test_readings_only_ever_extend_the_previous_request(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 1_000, 1_000)
    run_turn(dsh_host, agent, 1_000)
    requests = [seqs_of(request) for request in agent.requests()]
    assert len(requests) == 5, readme("TC-042", "5 requests for 5 steps", requests)
    for earlier, later in itertools.pairwise(requests):
        assert later[: len(earlier)] == earlier, readme(
            "TC-042", f"each request to extend the previous one (seqs {earlier})", later)
    for request in agent.requests():
        assert is_reading(request[-1]), readme(
            "TC-042", "the new reading to be the last item of its step's request", request[-1])


@pytest.mark.spec("TC-039")
def test_the_later_step_label_is_used_for_every_step_after_the_first(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 0, 0, 0, 0)
    texts = reading_texts(agent.events())
    expected = [
        later_step_text(1, step, "2026-01-01T00:00:00+00:00[UTC]", "0s") for step in range(2, 6)
    ]
    assert all_facts(texts[1:]) == all_facts(expected), readme(
        "TC-039", "steps 2..5 to use the later-step lines ('... step N: ...' / 'Elapsed since "
        "the preceding step context: ...')", texts[1:])

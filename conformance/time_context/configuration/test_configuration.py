"""README section "配置" (Configuration): the two optional keys, their validation
at load, the process-zone default and the refresh interval's meaning."""

from __future__ import annotations

import math

import pytest

from dsh_conformance.expect import all_facts, pinned, reading_facts, readme
from dsh_conformance.time_context.readings import (
    START_MS,
    parse_reading,
    reading_texts,
    run_turn,
    step_one_text,
)
from pytest_dsh import PluginLoadError

pytestmark = [pytest.mark.dsh_requires("time-context")]

INTERVAL_MESSAGE = "time-context: refreshIntervalMs must be a non-negative safe integer, got "


def only_reading(agent):
    texts = reading_texts(agent.events())
    assert len(texts) == 1, readme("TC-013", "exactly one reading for one one-step turn", texts)
    return texts[0]


def zone_facts(text):
    """(local time, offset, zone) of a reading's timestamp, as the README fixes them."""
    facts = reading_facts(text)
    return facts if isinstance(facts, str) else (facts.local_time, facts.offset, facts.zone)


# -- the documented example -------------------------------------------------------


@pytest.mark.spec("TC-004", "TC-005", "TC-006", "TC-007", "TC-008")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_the_documented_example_configuration_loads_and_takes_effect(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "Asia/Shanghai", "refreshIntervalMs": 60000})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.advance(30)
    run_turn(dsh_host, agent)
    observed = reading_texts(agent.events())
    expected = [step_one_text(1, "2026-01-01T08:00:00+08:00[Asia/Shanghai]", "0s")]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-004..TC-008",
        "the documented example to load, read in Asia/Shanghai, and suppress a second "
        "reading 30 s later (interval 60000 ms): one turn-1 step-1 reading at "
        "2026-01-01T08:00:00 +08:00 Asia/Shanghai, 0 s elapsed", observed)


@pytest.mark.spec("TC-004", "TC-006", "TC-007", "TC-008")
def test_both_keys_are_optional(dsh_host, monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    dsh_host.load_plugin("time-context", {})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    run_turn(dsh_host, agent)
    observed = reading_texts(agent.events())
    assert len(observed) == 2, readme(
        "TC-004..TC-008", "an empty config to load and read before each of two turns", observed)


# -- timeZone ---------------------------------------------------------------------


ZONE_TABLE = [
    ("UTC", "2026-01-01T00:00:00+00:00[UTC]"),
    ("Asia/Shanghai", "2026-01-01T08:00:00+08:00[Asia/Shanghai]"),
    ("Asia/Tokyo", "2026-01-01T09:00:00+09:00[Asia/Tokyo]"),
    ("America/New_York", "2025-12-31T19:00:00-05:00[America/New_York]"),
    ("Europe/London", "2026-01-01T00:00:00+00:00[Europe/London]"),
]


@pytest.mark.parametrize(("zone", "timestamp"), ZONE_TABLE)
@pytest.mark.spec("TC-007", "TC-011")
def test_an_explicit_iana_zone_overrides_the_display_zone(dsh_host, zone, timestamp):
    dsh_host.load_plugin("time-context", {"timeZone": zone})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    observed = only_reading(agent)
    assert reading_facts(observed) == reading_facts(step_one_text(1, timestamp, "0s")), readme(
        "TC-007, TC-011", f"timeZone {zone!r} to set the display zone: a step-1 reading of "
        f"{timestamp} (local time, offset, zone) with 0 s elapsed", observed)


@pytest.mark.compat("TC-TIMESTAMP-TEXT")
@pytest.mark.parametrize(("zone", "timestamp"), ZONE_TABLE)
@pytest.mark.spec("TC-007", "TC-011")
def test_an_explicit_zone_is_printed_exactly(dsh_host, zone, timestamp):
    dsh_host.load_plugin("time-context", {"timeZone": zone})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    observed = parse_reading(only_reading(agent))["timestamp"]
    assert observed == timestamp, pinned("TC-TIMESTAMP-TEXT", f"the timestamp {timestamp}",
                                         observed)


@pytest.mark.compat("TC-ZONE-NAME-CASE")
@pytest.mark.parametrize(
    ("zone", "label"), [("asia/shanghai", "Asia/Shanghai"), ("utc", "UTC")]
)
@pytest.mark.spec("TC-011")
def test_zone_names_are_matched_like_intl_and_printed_canonically(dsh_host, zone, label):
    dsh_host.load_plugin("time-context", {"timeZone": zone})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    observed = parse_reading(only_reading(agent))["timestamp"]
    assert observed.endswith(f"[{label}]"), pinned(
        "TC-ZONE-NAME-CASE", f"timeZone {zone!r} to load and print as [{label}]", observed)


INVALID_ZONES = [
    ("Not/A_Real_Zone", 'time-context: invalid IANA timeZone "Not/A_Real_Zone"'),
    ("Mars/Olympus_Mons", 'time-context: invalid IANA timeZone "Mars/Olympus_Mons"'),
    ("", 'time-context: invalid IANA timeZone ""'),
]


@pytest.mark.parametrize("zone", [zone for zone, _ in INVALID_ZONES])
@pytest.mark.spec("TC-011")
def test_an_invalid_explicit_zone_fails_the_load(dsh_host, zone):
    try:
        dsh_host.load_plugin("time-context", {"timeZone": zone})
    except PluginLoadError:
        return
    pytest.fail(readme("TC-011", f"timeZone {zone!r} (not an IANA identifier) to fail the "
                       "plugin load; it loaded"))


@pytest.mark.compat("TC-LOAD-MESSAGES")
@pytest.mark.parametrize(("zone", "message"), INVALID_ZONES)
@pytest.mark.spec("TC-011")
def test_an_invalid_explicit_zone_fails_with_the_official_message(dsh_host, zone, message):
    with pytest.raises(PluginLoadError) as caught:
        dsh_host.load_plugin("time-context", {"timeZone": zone})
    assert caught.value.message == message, pinned(
        "TC-LOAD-MESSAGES", f"the load error {message!r}", caught.value.message)


@pytest.mark.spec("TC-011")
def test_a_plugin_that_failed_to_load_appends_nothing(dsh_host):
    with pytest.raises(PluginLoadError):
        dsh_host.load_plugin("time-context", {"timeZone": "Not/A_Real_Zone"})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    observed = reading_texts(agent.events())
    assert observed == [], readme("TC-011", "a plugin whose load failed to append no reading",
                                  observed)


@pytest.mark.dsh_requires("process-zone")
@pytest.mark.spec("TC-007", "TC-009", "TC-010", "TC-045")
def test_an_omitted_zone_is_the_process_zone_captured_once_at_load(dsh_host, monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    dsh_host.load_plugin("time-context")
    monkeypatch.setenv("TZ", "America/New_York")
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    observed = only_reading(agent)
    expected = step_one_text(1, "2026-01-01T08:00:00+08:00[Asia/Shanghai]", "0s")
    assert reading_facts(observed) == reading_facts(expected), readme(
        "TC-009, TC-010, TC-045", "the process zone captured at load (TZ=Asia/Shanghai, "
        "changed later) to be the display zone: 2026-01-01T08:00:00 +08:00 Asia/Shanghai, "
        "0 s elapsed", observed)


@pytest.mark.parametrize(
    ("tz", "timestamp"),
    [
        ("Asia/Tokyo", "2026-01-01T09:00:00+09:00[Asia/Tokyo]"),
        ("America/New_York", "2025-12-31T19:00:00-05:00[America/New_York]"),
        ("Europe/London", "2026-01-01T00:00:00+00:00[Europe/London]"),
    ],
)
@pytest.mark.dsh_requires("process-zone")
@pytest.mark.spec("TC-009", "TC-010")
def test_the_process_zone_follows_tz(dsh_host, monkeypatch, tz, timestamp):
    monkeypatch.setenv("TZ", tz)
    dsh_host.load_plugin("time-context")
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    observed = only_reading(agent)
    assert zone_facts(observed) == zone_facts(step_one_text(1, timestamp, "0s")), readme(
        "TC-009, TC-010", f"TZ={tz} at load to be the display zone ({timestamp})", observed)


@pytest.mark.compat("TC-TIMESTAMP-TEXT")
@pytest.mark.dsh_requires("process-zone")
@pytest.mark.spec("TC-009", "TC-010")
def test_the_process_zone_is_printed_exactly(dsh_host, monkeypatch):
    monkeypatch.setenv("TZ", "America/New_York")
    dsh_host.load_plugin("time-context")
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    observed = parse_reading(only_reading(agent))["timestamp"]
    expected = "2025-12-31T19:00:00-05:00[America/New_York]"
    assert observed == expected, pinned("TC-TIMESTAMP-TEXT", f"the timestamp {expected}",
                                        observed)


# -- refreshIntervalMs ------------------------------------------------------------


BAD_INTERVALS = pytest.mark.parametrize(
    ("value", "rendered"),
    [
        (-1, "-1"),
        (0.5, "0.5"),
        (2**53, "9007199254740992"),
        (math.inf, "Infinity"),
        (math.nan, "NaN"),
    ],
    ids=["negative", "fraction", "unsafe", "infinity", "nan"],
)


@BAD_INTERVALS
@pytest.mark.spec("TC-012")
def test_a_refresh_interval_that_is_not_a_non_negative_safe_integer_fails_the_load(
    dsh_host, value, rendered
):
    try:
        dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": value})
    except PluginLoadError:
        return
    pytest.fail(readme("TC-012", f"refreshIntervalMs {rendered} (not a non-negative safe "
                       "integer) to fail the plugin load; it loaded"))


# Not numbers at all. Which layer refuses them (the plugin, or a host checking the
# config against the plugin's schema first) and with what message is left open.
@pytest.mark.parametrize("value", ["60000", "0", True, False, [60000]],
                         ids=["digit-string", "zero-string", "true", "false", "list"])
@pytest.mark.spec("TC-012")
@pytest.mark.dsh_probe(
    "interval-refuses-non-numbers", "refreshIntervalMs that is not a number fails the load"
)
def test_a_refresh_interval_that_is_not_a_number_fails_the_load(dsh_host, value):
    try:
        dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": value})
    except PluginLoadError:
        return
    pytest.fail(readme("TC-012", f"refreshIntervalMs {value!r} (not a number, so no "
                       "non-negative safe integer) to fail the plugin load; it loaded"))


@pytest.mark.compat("TC-LOAD-MESSAGES")
@BAD_INTERVALS
@pytest.mark.spec("TC-012")
def test_a_refused_refresh_interval_fails_with_the_official_message(dsh_host, value, rendered):
    with pytest.raises(PluginLoadError) as caught:
        dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": value})
    expected = INTERVAL_MESSAGE + rendered
    assert caught.value.message == expected, pinned(
        "TC-LOAD-MESSAGES", f"the load error {expected!r}", caught.value.message)


@pytest.mark.spec("TC-011", "TC-012")
def test_a_config_with_both_keys_invalid_fails_the_load(dsh_host):
    try:
        dsh_host.load_plugin(
            "time-context", {"timeZone": "Not/A_Real_Zone", "refreshIntervalMs": -1}
        )
    except PluginLoadError:
        return
    pytest.fail(readme("TC-011, TC-012", "a config with an invalid timeZone and "
                       "refreshIntervalMs -1 to fail the plugin load; it loaded"))


@pytest.mark.compat("TC-LOAD-CHECK-ORDER", "TC-LOAD-MESSAGES")
@pytest.mark.spec("TC-011", "TC-012")
def test_the_refresh_interval_is_checked_before_the_zone(dsh_host):
    with pytest.raises(PluginLoadError) as caught:
        dsh_host.load_plugin(
            "time-context", {"timeZone": "Not/A_Real_Zone", "refreshIntervalMs": -1}
        )
    assert caught.value.message == INTERVAL_MESSAGE + "-1", pinned(
        "TC-LOAD-CHECK-ORDER", "the refreshIntervalMs error (it is checked before timeZone): "
        f"{INTERVAL_MESSAGE + '-1'!r}", caught.value.message)


@pytest.mark.parametrize("value", [0, 1, 60000, 2**53 - 1])
@pytest.mark.spec("TC-012")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_non_negative_safe_integers_are_accepted(dsh_host, value):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": value})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    observed = reading_texts(agent.events())
    assert len(observed) == 1, readme(
        "TC-012", f"refreshIntervalMs {value} to load and read before the first step", observed)


@pytest.mark.parametrize(
    "config", [{"timeZone": "UTC"}, {"timeZone": "UTC", "refreshIntervalMs": 0}],
    ids=["omitted", "zero"],
)
@pytest.mark.spec("TC-008", "TC-013")
def test_omitted_or_zero_appends_before_every_eligible_step(dsh_host, config):
    dsh_host.load_plugin("time-context", config)
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent, 0, 0)
    run_turn(dsh_host, agent)
    heads = [(r["turn"], r["step"]) for r in map(parse_reading, reading_texts(agent.events()))]
    assert heads == [("1", "1"), ("1", "2"), ("1", "3"), ("2", "1")], readme(
        "TC-008, TC-013", "a reading before every step (turn, step): (1,1) (1,2) (1,3) (2,1)",
        heads)


@pytest.mark.spec("TC-013", "TC-017")
@pytest.mark.dsh_probe("aborted-step-gets-no-reading", "An already aborted step gets no reading")
def test_a_step_whose_signal_is_already_aborted_gets_no_reading(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    agent.abort_next_pre_step()
    run_turn(dsh_host, agent)
    observed = reading_texts(agent.events())
    assert observed == [], readme("TC-013", "no reading for a step whose signal is aborted",
                                  observed)
    # The turn opens and ends aborted without a step (whether the host logged the
    # prompt first is the host's business).
    turn_types = ("turn/start", "step/start", "assistant/message", "step/end", "turn/end")
    kinds = [e["type"] for e in agent.events() if e["type"] in turn_types]
    assert kinds == ["turn/start", "turn/end"], readme(
        "TC-013", "the aborted turn to run no step (turn/start, turn/end only)", kinds)
    plugin_messages = [e for e in agent.events() if e["type"] == "user/message"
                       and e["data"].get("source", {}).get("kind") == "plugin"]
    assert not plugin_messages, readme(
        "TC-013, TC-017", "no plugin message at all for an aborted step", plugin_messages)
    [end] = [e["data"].get("reason") for e in agent.events() if e["type"] == "turn/end"]
    assert (end or {}).get("kind") == "aborted", readme(
        "TC-013", "the turn to end aborted (the plugin must not swallow the abort)", end)


@pytest.mark.spec("TC-014")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_positive_interval_appends_when_the_session_has_no_earlier_reading(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": 2**53 - 1})
    first, second = dsh_host.create_agent(), dsh_host.create_agent()
    run_turn(dsh_host, first)
    run_turn(dsh_host, second)
    run_turn(dsh_host, first)
    observed = [len(reading_texts(first.events())), len(reading_texts(second.events()))]
    assert observed == [1, 1], readme(
        "TC-014, TC-020", "with a huge interval, one reading in each session (the first "
        "reading of a session is always due; sessions are scheduled independently); "
        "readings per session", observed)


@pytest.mark.parametrize(
    ("delay_ms", "appended"), [(999, False), (1000, True), (1001, True)]
)
@pytest.mark.spec("TC-014")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_positive_interval_appends_once_at_least_that_many_ms_passed(
    dsh_host, delay_ms, appended
):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": 1000})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.set_wall_clock(START_MS + delay_ms)
    run_turn(dsh_host, agent)
    observed = reading_texts(agent.events())
    assert len(observed) == (2 if appended else 1), readme(
        "TC-014", f"with refreshIntervalMs 1000, a second reading {delay_ms} ms after the "
        f"first {'to be' if appended else 'not to be'} appended", observed)


@pytest.mark.spec("TC-014")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_positive_interval_appends_when_the_wall_clock_moved_backwards(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": 3_600_000})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    dsh_host.set_wall_clock(START_MS - 1)
    run_turn(dsh_host, agent)
    observed = reading_texts(agent.events())
    expected = [
        step_one_text(1, "2026-01-01T00:00:00+00:00[UTC]", "0s"),
        step_one_text(2, "2025-12-31T23:59:59+00:00[UTC]", "0s"),
    ]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-014", "a reading when the wall clock moved backwards, even inside the interval: "
        "turn 1 at 2026-01-01T00:00:00 UTC, turn 2 at 2025-12-31T23:59:59 UTC, both 0 s",
        observed)

"""A zone lookup that fails once while time-context loads.

The README resolves the display zone at load: an explicit ``timeZone`` "is
validated when the plugin loads" (TC-011), an omitted one is "the Node
process's system time zone, resolved once, at load" (TC-009). A host whose zone
data cannot be read at that moment leaves the plugin without a zone it can
vouch for, so the load must be refused (not completed with some other zone,
which would print a lie in every reading), must leave nothing behind, and a
later load, once lookups work again, must read in the right zone. The exact
refusal message is left open and follows the official build
(TC-ZONE-LOOKUP-FAILURE).
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned, reading_facts, readme
from dsh_conformance.time_context.readings import reading_texts, run_turn
from pytest_dsh import PluginLoadError

pytestmark = [pytest.mark.dsh_requires("time-context")]

#: What a reading at the default start (2026-01-01T00:00:00Z) shows in Asia/Shanghai.
SHANGHAI = ("2026-01-01T08:00:00", "+08:00", "Asia/Shanghai")


def zones_read(agent):
    """(local time, offset, zone) of every reading, as the README fixes them."""
    shown = []
    for text in reading_texts(agent.events()):
        facts = reading_facts(text)
        shown.append(facts if isinstance(facts, str) else
                     (facts.local_time, facts.offset, facts.zone))
    return shown


def refuse_once(host, config):
    """Plan one failing zone lookup, then load: the refusal, or None if it loaded."""
    host.faults.fail_zone_lookups()
    try:
        host.load_plugin("time-context", config)
    except PluginLoadError as refused:
        return refused
    return None


@pytest.mark.spec("TC-011")
def test_an_explicit_zone_that_cannot_be_looked_up_refuses_the_load_once(dsh_host):
    config = {"timeZone": "Asia/Shanghai"}
    refused = refuse_once(dsh_host, config)
    assert refused is not None, readme(
        "TC-011", "a timeZone that cannot be validated at load (its lookup failed) to fail the "
        "plugin load; it loaded")
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    assert reading_texts(agent.events()) == [], readme(
        "TC-011", "a plugin whose load was refused to append no reading",
        reading_texts(agent.events()))
    dsh_host.load_plugin("time-context", config)
    later = dsh_host.create_agent()
    run_turn(dsh_host, later)
    assert zones_read(later) == [SHANGHAI], readme(
        "TC-011", "a second load, once the lookup works, to read in the configured zone: "
        f"one reading at {SHANGHAI}", zones_read(later))


@pytest.mark.dsh_requires("process-zone")
@pytest.mark.spec("TC-009", "TC-010")
def test_a_process_zone_that_cannot_be_resolved_refuses_the_load_once(dsh_host, monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    refused = refuse_once(dsh_host, {})
    assert refused is not None, readme(
        "TC-009", "an omitted timeZone whose process zone cannot be resolved at load (the "
        "lookup failed) to fail the plugin load; it loaded")
    dsh_host.load_plugin("time-context", {})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    assert zones_read(agent) == [SHANGHAI], readme(
        "TC-009, TC-010", "a second load, once the lookup works, to read in the process zone "
        f"(TZ=Asia/Shanghai): one reading at {SHANGHAI}", zones_read(agent))


@pytest.mark.dsh_requires("process-zone")
@pytest.mark.compat("TC-ZONE-LOOKUP-FAILURE")
@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"timeZone": "Asia/Shanghai"}, 'time-context: invalid IANA timeZone "Asia/Shanghai"'),
        ({}, "time-context: failed to resolve the system time zone"),
    ],
    ids=["explicit", "process"],
)
@pytest.mark.spec("TC-009", "TC-011")
def test_a_failed_zone_lookup_refuses_with_the_official_message(
    dsh_host, monkeypatch, config, message
):
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    refused = refuse_once(dsh_host, config)
    observed = None if refused is None else refused.message
    assert observed == message, pinned(
        "TC-ZONE-LOOKUP-FAILURE", f"the load error {message!r}", observed)

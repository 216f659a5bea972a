"""README section "时序语义" (timing semantics) over a session's lifecycle: a
fork's seeded prefix, and the companion's registration scan of a log that holds
more than one reading.

README sentences: positive-interval scheduling scans the raw durable session
events for the newest reading (TC-018), and a fork's session holds its parent's
events as its seeded prefix, so a reading the parent appended counts for the
fork's interval. The ``./invariant`` companion checks every reading attributed
to the plugin (TC-028): at registration that is every reading already in a
live session, not only the newest.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.time_context.readings import (
    reading_events,
    reading_texts,
    run_turn,
    written_readings,
)

HOUR_MS = 3_600_000


@pytest.mark.dsh_requires("time-context")
@pytest.mark.dsh_requires("inject-into-the-step")  # counts one reading per turn
@pytest.mark.spec("TC-018")
@pytest.mark.dsh_probe(
    "fork-interval-counts-seeded-readings", "A fork's interval counts its seeded readings"
)
def test_a_forks_interval_counts_the_readings_of_its_seeded_prefix(dsh_host):
    dsh_host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": HOUR_MS})
    parent = dsh_host.create_agent()
    run_turn(dsh_host, parent)
    assert len(reading_events(parent.events())) == 1, readme(
        "TC-017", "the parent's first turn to get a reading", reading_texts(parent.events()))
    dsh_host.advance(60)
    child = dsh_host.fork(parent)
    seeded = len(reading_events(child.events()))
    assert seeded == 1, readme(
        "TC-018", "the fork's session to hold the parent's reading in its seeded prefix",
        reading_texts(child.events()))
    run_turn(dsh_host, child)
    assert len(reading_events(child.events())) == seeded, readme(
        "TC-018", "a turn of the fork a minute after the parent's reading (interval one hour) "
        "to get no reading: the scan of the raw log finds the seeded reading",
        reading_texts(child.events()))
    dsh_host.advance(3600)
    run_turn(dsh_host, child)
    assert len(reading_events(child.events())) == seeded + 1, readme(
        "TC-018", "the fork's turn once the interval passed since the seeded reading to get one",
        reading_texts(child.events()))


@pytest.mark.dsh_requires("time-context", "time-context-invariant")
@pytest.mark.spec("TC-028")
def test_registration_checks_every_reading_of_a_session_not_only_the_newest(
    dsh_host, dsh_implementation
):
    [step_one] = written_readings(dsh_implementation)  # the implementation's own reading
    dsh_host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = dsh_host.create_agent()
    agent.append_event("user/message", step_one)  # outside any turn: refused
    run_turn(dsh_host, agent)  # the plugin's own, well-placed reading is the newest
    assert len(reading_events(agent.events())) == 2, readme(
        "TC-017", "the turn to add the plugin's own reading after the misplaced one",
        reading_texts(agent.events()))
    try:
        dsh_host.load_plugin("time-context-invariant")
    except Exception:
        return
    pytest.fail(readme("TC-028", "registering the invariant to check every reading already in "
                       "a live session, so the older one outside any turn is refused although "
                       "the newest is well placed; it registered"))

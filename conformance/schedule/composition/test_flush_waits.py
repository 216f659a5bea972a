"""A flush that hangs is awaited however long it takes.

README sentences: every operation that reads or decides from the fold first
awaits the session flush (SCH-011), and a create confirms only after awaiting
its post-append barrier (SCH-013, SCH-034). Nothing bounds that wait: a flush
that ends durable an hour of virtual time later is a successful checkpoint,
not a failure, whether it is a create's barrier or the owner's due preflight.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.layout_free import closed_codes_in, mentions, schedule_changes
from dsh_conformance.schedule.session_logs import reminder_messages
from dsh_conformance.schedule.written_logs import create, transition_events, transitions

pytestmark = [pytest.mark.dsh_requires("schedule")]

HOUR_S = 3600


@pytest.mark.spec("SCH-013", "SCH-034")
def test_a_create_whose_barrier_ends_durable_an_hour_later_confirms(host, agent):
    host.faults.fail_flushes("hang", first=2)  # the barrier hangs
    call = agent.start_tool("schedule_create", {"prompt": "Slow", "after_seconds": 4 * HOUR_S})
    host.advance(HOUR_S)
    assert call.done is False, readme(
        "SCH-013", "a create to keep awaiting its hung barrier an hour later", call.done)
    host.faults.release_hung_flush()
    value = call.result().value
    logged = schedule_changes(agent.events())
    confirmed = isinstance(value, dict) and not closed_codes_in(value) and len(logged) == 1
    assert confirmed and mentions(logged[0], value.get("id")), readme(
        "SCH-013, SCH-034", "the create to confirm once its barrier ends durable, however late",
        value)
    durable = [e["type"] for e in host.durable_events(agent.session_id)]
    assert "schedule/change" in durable, readme(
        "SCH-013", "the confirmed create to be durable", durable)


@pytest.mark.spec("SCH-011", "SCH-046")
def test_a_due_preflight_that_ends_durable_an_hour_later_delivers(host, agent):
    record = create(agent, {"prompt": "Slow", "after_seconds": 60})
    host.faults.fail_flushes("hang")
    host.advance(60)  # the due preflight hangs
    host.advance(HOUR_S)
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-011", "the owner to decide nothing while its preflight hangs",
        transition_events(agent.events(), [record]))
    host.faults.release_hung_flush()
    sent = transitions(agent.events(), [record])
    assert sent == [record.id], readme(
        "SCH-011, SCH-046", "the owner to dispatch once its preflight ends durable, however late",
        sent)
    assert len(reminder_messages(agent.events())) == 1, readme(
        "SCH-046", "the reminder to reach the agent", reminder_messages(agent.events()))

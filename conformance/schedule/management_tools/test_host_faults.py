"""README section "Management tools": the live owner under host faults that strike outside
any tool call.

The helpers these tests share with ``schedule/delivery_lifecycle/test_host_faults.py``
are defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.delivery_lifecycle.test_host_faults import (
    DAY_S,
    create,
    reminder,
    states,
)
from dsh_conformance.schedule.session_logs import reminder_framings
from dsh_conformance.schedule.written_logs import transition_events, transitions

pytestmark = [pytest.mark.dsh_requires("schedule")]


def resumed_without_an_owner(host, agent):
    """Leave a durable one-shot overdue in a cold session, then resume it while
    the host refuses to start the owner's run: (the resumed agent, the record)."""
    record = create(agent, "Stretch")
    host.crash()
    host.advance(120)
    host.faults.fail_background_starts()
    resumed = host.resume(agent.session_id)
    host.faults.clear()
    return resumed, record


@pytest.mark.spec("SCH-037", "SCH-085")
@pytest.mark.parametrize("trigger", ["preflight", "activity"])
def test_an_owner_that_could_not_start_recomputes_at_the_next_trigger(host, agent, trigger):
    resumed, record = resumed_without_an_owner(host, agent)
    schedule_id = record.id
    host.advance(DAY_S)
    assert transitions(resumed.events(), [record]) == [], readme(
        "SCH-085", "no delivery, and no private retry, while nothing triggers the owner "
        "after its run could not start", transition_events(resumed.events(), [record]))
    if trigger == "preflight":
        listed = states(resumed)
        assert listed == [(schedule_id, "overdue")], readme(
            "SCH-035", "the undelivered record to be listed as overdue", listed)
    else:
        resumed.prompt("hello")  # the agent becoming idle after a turn is activity
    expected = [reminder(schedule_id, "2026-01-01T00:01:00.000Z", "Stretch")]
    sentence = "SCH-037" if trigger == "preflight" else "SCH-085"
    assert reminder_framings(resumed.events()) == expected, readme(
        sentence, f"the {trigger} to make the owner recompute and deliver the overdue "
        "reminder once", reminder_framings(resumed.events()))
    assert transitions(resumed.events(), [record]) == [schedule_id], readme(
        "SCH-049", "one dispatch of the delivered one-shot",
        transition_events(resumed.events(), [record]))

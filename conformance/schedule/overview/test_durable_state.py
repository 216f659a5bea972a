"""The README's opening paragraphs: its tests that also exercise the section "Durable
state".

The helpers these tests share with ``schedule/durable_state/test_durable_state.py`` are
defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.durable_state.test_durable_state import _create
from dsh_conformance.schedule.session_logs import reminder_framings

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.spec("SCH-003", "SCH-020")
def test_state_survives_a_crash_because_the_log_owns_it(host, agent):
    first = _create(agent, "A", after_seconds=600)
    _create(agent, "B", every_seconds=900)
    agent.call_tool("schedule_delete", {"id": first})
    before = agent.call_tool("schedule_list", {}).value
    host.crash()
    resumed = host.resume(agent.session_id)
    after = resumed.call_tool("schedule_list", {}).value
    assert after == before, readme("SCH-003", "the same active records after a crash", after)
    host.advance(900)
    delivered = reminder_framings(resumed.events())
    assert len(delivered) == 1, readme("SCH-003", "the surviving Every reminder delivered",
                                       delivered)


@pytest.mark.spec("SCH-003", "SCH-042")
def test_timers_are_rebuilt_from_the_log_after_a_crash(host, agent):
    agent.call_tool("schedule_create", {"prompt": "A", "after_seconds": 600})
    host.crash()
    resumed = host.resume(agent.session_id)
    host.advance(599.999)
    assert reminder_framings(resumed.events()) == [], readme(
        "SCH-042", "no reminder before the target", reminder_framings(resumed.events()))
    host.advance(0.001)
    messages = [e for e in resumed.events() if e["type"] == "user/message"]
    assert [m["time"] for m in messages] == [1_767_226_200_000], readme(
        "SCH-003, SCH-042", "the timer rebuilt from the log to fire once, exactly at the target",
        messages)

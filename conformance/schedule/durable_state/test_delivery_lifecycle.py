"""README section "Durable state": its tests that also exercise the section "Delivery
lifecycle".

The helpers these tests share with
``schedule/delivery_lifecycle/test_delivery_lifecycle.py`` are defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned
from dsh_conformance.schedule.delivery_lifecycle.test_delivery_lifecycle import HOUR_MS, _dispatch
from dsh_conformance.schedule.session_logs import START_MS, dispatches
from dsh_conformance.schedule.written_logs import create, overdue_after_resume

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.compat("SCH-PAYLOAD-LAYOUT")
@pytest.mark.spec("SCH-017", "SCH-018", "SCH-049", "SCH-050")
def test_dispatch_payloads_follow_the_official_layout(host, agent):
    one = create(agent, {"prompt": "One", "after_seconds": 60})
    five = create(agent, {"prompt": "Five", "every_seconds": 300})
    hourly = create(agent, {"prompt": "Hourly", "every_seconds": 3600})
    host.advance(60)
    assert dispatches(agent.events()) == [_dispatch(one.id)], pinned(
        "SCH-PAYLOAD-LAYOUT", "a one-shot dispatch {version, operation: dispatch, id}",
        dispatches(agent.events()))
    host.set_wall_clock(START_MS + 7 * HOUR_MS + 123)
    agent.call_tool("schedule_list", {})
    accepted = "2026-01-01T07:00:00.123Z"
    expected = [_dispatch(one.id), _dispatch(five.id, accepted), _dispatch(hourly.id, accepted)]
    assert dispatches(agent.events()) == expected, pinned(
        "SCH-PAYLOAD-LAYOUT", "Every dispatches {version, operation, id, acceptedAt} with the "
        "decision time, in batch order", dispatches(agent.events()))
    resumed = overdue_after_resume(host, agent, 3 * 3600 + 10)
    accepted = "2026-01-01T10:00:10.123Z"
    expected += [_dispatch(five.id, accepted), _dispatch(hourly.id, accepted)]
    assert dispatches(resumed.events()) == expected, pinned(
        "SCH-PAYLOAD-LAYOUT", "the batch at resume to carry the resume's decision time",
        dispatches(resumed.events()))

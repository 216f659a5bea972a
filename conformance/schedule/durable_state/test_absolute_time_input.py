"""README section "Durable state": its tests that also exercise the section "Absolute-time
input".

The helpers these tests share with
``schedule/absolute_time_input/test_absolute_time_input.py`` are defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned, readme
from dsh_conformance.layout_free import mentions, schedule_changes
from dsh_conformance.schedule.absolute_time_input.test_absolute_time_input import (
    RETAINED,
    _create,
    _created_at,
)
from dsh_conformance.schedule.session_logs import changes

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.spec("SCH-015", "SCH-016", "SCH-030")
def test_at_record_retains_only_the_canonical_utc_instant(agent):
    values = [_created_at(agent, at, scheduled_at, "SCH-016, SCH-030")
              for at, scheduled_at in RETAINED]
    records = schedule_changes(agent.events())
    held = [mentions(record, value.get("id")) and mentions(record, "Reminder")
            for record, value in zip(records, values, strict=True)]
    assert held == [True, True], readme(
        "SCH-015", "each create record to contain its ScheduleId and the prompt", records)
    text = str(agent.events())
    for leftover in ("America/New_York", "-04:00", "01:30:00", "time_zone", "timeZone"):
        assert leftover not in text, readme(
            "SCH-016, SCH-030", f"no copy of the submitted zone, offset or local fields "
            f"({leftover!r}) in the log", text)


@pytest.mark.compat("SCH-PAYLOAD-LAYOUT", "SCH-INSTANT-TEXT")
@pytest.mark.spec("SCH-016", "SCH-030")
def test_at_records_are_the_official_payloads(agent):
    values = [_create(agent, at) for at, _ in RETAINED]
    records = [change["schedule"] for change in changes(agent.events())]
    expected = [{"id": value.get("id"), "kind": "at", "prompt": "Reminder",
                 "scheduledAt": scheduled_at}
                for value, (_, scheduled_at) in zip(values, RETAINED, strict=True)]
    assert records == expected, pinned(
        "SCH-PAYLOAD-LAYOUT", f"at records exactly {expected}", records)

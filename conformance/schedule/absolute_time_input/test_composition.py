"""README section "Absolute-time input": its tests that also exercise the section
"Composition".
"""

from __future__ import annotations

import time

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.session_logs import suite_instant

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.dsh_requires("process-zone")
@pytest.mark.spec("SCH-030")
@pytest.mark.parametrize("process_zone", ["Pacific/Kiritimati", "America/Adak"])
def test_process_time_zone_does_not_change_the_interpretation_of_at(
    dsh_host, monkeypatch, process_zone
):
    monkeypatch.setenv("TZ", process_zone)
    time.tzset()
    try:
        dsh_host.load_plugin("schedule")
        agent = dsh_host.create_agent()
        local = {"date": "2026-03-08", "time": "02:30:00", "time_zone": "UTC"}
        value = agent.call_tool("schedule_create", {"prompt": "x", "at": local}).value
        assert suite_instant(value.get("scheduledAt")) == "2026-03-08T02:30:00.000Z", readme(
            "SCH-030", "a local at in UTC to be read in UTC, whatever the process zone", value)
        value = agent.call_tool(
            "schedule_create",
            {"prompt": "y", "at": {"date": "2026-07-01", "time": "12:00:00",
                                   "time_zone": "Asia/Tokyo"}},
        ).value
        assert suite_instant(value.get("scheduledAt")) == "2026-07-01T03:00:00.000Z", readme(
            "SCH-030", "a local at in Asia/Tokyo to be read in that zone, whatever the process "
            "zone", value)
    finally:
        monkeypatch.undo()
        time.tzset()

"""README section "Durable state": its tests that also exercise the section "Management
tools".

The helpers these tests share with
``schedule/management_tools/test_management_tools.py`` are defined there.
"""

from __future__ import annotations

import pytest
from hypothesis import given

from dsh_conformance.expect import pinned
from dsh_conformance.schedule.management_tools.test_management_tools import REUSE_AGENT
from dsh_conformance.schedule.session_logs import START_MS, changes
from pytest_dsh.strategies.schedule import create_arguments

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.compat("SCH-VIEW-FIELDS", "SCH-PAYLOAD-LAYOUT")
@pytest.mark.spec("SCH-017", "SCH-036")
def test_a_delete_is_the_official_value_and_change(agent):
    created = agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 600}).value
    value = agent.call_tool("schedule_delete", {"id": created["id"]}).value
    assert value == {"id": created["id"], "deleted": True}, pinned(
        "SCH-VIEW-FIELDS", "{id, deleted: true} for an active id", value)
    last = changes(agent.events())[-1]
    assert last == {"version": 1, "operation": "delete", "id": created["id"]}, pinned(
        "SCH-PAYLOAD-LAYOUT", "the delete change {version: 1, operation: delete, id}", last)


@pytest.mark.compat("SCH-PAYLOAD-LAYOUT", "SCH-VIEW-FIELDS")
@pytest.mark.spec("SCH-015", "SCH-034")
@REUSE_AGENT
@given(arguments=create_arguments(now_ms=START_MS))
def test_any_valid_create_appends_the_official_change(agent, arguments):
    value = agent.call_tool("schedule_create", arguments).value
    last = changes(agent.events())[-1]
    expected = {
        "version": 1, "operation": "create",
        "schedule": {k: v for k, v in value.items() if k not in ("state", "deliveryMode")},
    }
    assert last == expected, pinned("SCH-PAYLOAD-LAYOUT", f"exactly {expected}", last)

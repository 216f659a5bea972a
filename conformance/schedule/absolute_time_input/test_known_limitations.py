"""README section "Absolute-time input": its tests that also exercise the section "Known
Limitations and Deferred Work".
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.compat("SCH-CODE-MAPPING")
@pytest.mark.spec("SCH-026", "SCH-086")
@pytest.mark.parametrize(
    "at",
    ["2026-01-02T09:00:00", {"date": "2026-01-02", "time": "09:00:00"},
     "2026-01-02T09:00:00 Europe/Paris", "tomorrow 9am"],
)
def test_a_zoneless_at_is_invalid_rule(agent, at):
    value = agent.call_tool("schedule_create", {"prompt": "x", "at": at}).value
    assert isinstance(value, dict) and value.get("code") == "invalid_rule", pinned(
        "SCH-CODE-MAPPING", f"invalid_rule for the zoneless at {at!r}", value)

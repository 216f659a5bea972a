"""README section "Management tools": its tests that also exercise the section "Known
Limitations and Deferred Work".

The helpers these tests share with
``schedule/known_limitations/test_known_limitations.py`` are defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned
from dsh_conformance.schedule.known_limitations.test_known_limitations import _TOO_FAST_OR_CALENDAR

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.compat("SCH-CODE-MAPPING")
@pytest.mark.spec("SCH-039", "SCH-087")
@pytest.mark.parametrize(
    ("arguments", "code"),
    _TOO_FAST_OR_CALENDAR,
)
def test_too_frequent_or_calendar_rules_get_their_codes(agent, arguments, code):
    value = agent.call_tool("schedule_create", arguments).value
    assert isinstance(value, dict) and value.get("code") == code, pinned(
        "SCH-CODE-MAPPING", f"{code} for {arguments}", value)

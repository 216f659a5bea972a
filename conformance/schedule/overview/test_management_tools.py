"""The README's opening paragraphs: its tests that also exercise the section "Management
tools".
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.tool_values import epoch_ms, instant_ms

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.spec("SCH-002", "SCH-087")
@pytest.mark.parametrize(
    ("arguments", "scheduled_at"),
    [
        ({"prompt": "x", "after_seconds": 1}, "2026-01-01T00:00:01.000Z"),
        ({"prompt": "x", "after_seconds": 86400}, "2026-01-02T00:00:00.000Z"),
        ({"prompt": "x", "every_seconds": 300}, "2026-01-01T00:05:00.000Z"),
        ({"prompt": "x", "every_seconds": 86400}, "2026-01-02T00:00:00.000Z"),
    ],
)
@pytest.mark.dsh_probe(
    "five-minute-interval-accepted",
    "Positive delays and intervals of five minutes or more are accepted",
)
def test_version_one_accepts_positive_delays_and_intervals_of_five_minutes_or_more(
    agent, arguments, scheduled_at
):
    value = agent.call_tool("schedule_create", arguments).value
    observed = instant_ms(value.get("scheduledAt")) if isinstance(value, dict) else None
    assert observed == epoch_ms(scheduled_at), readme(
        "SCH-002, SCH-032", f"{arguments!r} accepted with scheduledAt {scheduled_at}", value)

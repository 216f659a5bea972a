"""Behaviours a mutation run of the reference showed the suite did not yet pin
(docs/conformance-power.md): the exact ends of the four-digit-year range."""

from __future__ import annotations

import pytest

NOT_FUTURE = "The scheduled time must be strictly in the future."


def _create(agent, at):
    result = agent.call_tool("schedule_create", {"prompt": "Reminder", "at": at})
    assert result.is_error is False, result.error
    return result.value


# The range is inclusive at both ends (official build: epoch < MIN or > MAX is
# out of range), so the first instant of year 1 is in range and merely past.
@pytest.mark.spec("SCH-015", "SCH-039")
@pytest.mark.parametrize("at", ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000+00:00"])
def test_the_first_instant_of_year_one_is_not_future_rather_than_out_of_range(agent, at):
    assert _create(agent, at) == {"code": "not_future", "message": NOT_FUTURE}


@pytest.mark.spec("SCH-015", "SCH-030")
def test_the_last_instant_of_year_9999_is_a_valid_target(agent):
    value = _create(agent, "9999-12-31T23:59:59.999Z")
    assert value["scheduledAt"] == "9999-12-31T23:59:59.999Z"
    assert value["state"] == "scheduled"

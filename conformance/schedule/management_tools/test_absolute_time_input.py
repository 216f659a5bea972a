"""README section "Management tools": its tests that also exercise the section "Absolute-
time input".

The helpers these tests share with
``schedule/absolute_time_input/test_absolute_time_input.py`` are defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.schedule.absolute_time_input.test_absolute_time_input import (
    LOCAL_OUT_OF_RANGE,
    OUT_OF_RANGE_STRINGS,
    Y1400_MS,
    _rejected,
)

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.spec("SCH-039")
@pytest.mark.parametrize("at", OUT_OF_RANGE_STRINGS)
def test_offsets_that_leave_the_four_digit_years_are_out_of_range(agent, at):
    _rejected(agent, at, "SCH-015", "outside four-digit years")


@pytest.mark.spec("SCH-039")
@pytest.mark.parametrize("at", LOCAL_OUT_OF_RANGE)
def test_local_times_outside_the_four_digit_years_are_out_of_range(dsh_host_factory, at):
    host = dsh_host_factory(start_ms=Y1400_MS)
    host.load_plugin("schedule")
    agent = host.create_agent()
    _rejected(agent, at, "SCH-015", "outside four-digit years")

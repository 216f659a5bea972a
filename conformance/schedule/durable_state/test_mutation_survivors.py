"""README section "Durable state": behaviours mutation runs of the reference showed the
suite did not yet pin.

The helpers these tests share with
``schedule/absolute_time_input/test_mutation_survivors.py`` are defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned, readme
from dsh_conformance.schedule.absolute_time_input.test_mutation_survivors import YEAR_ONE, _create
from dsh_conformance.schedule.session_logs import suite_instant

pytestmark = [pytest.mark.dsh_requires("schedule")]


NOT_FUTURE = "The scheduled time must be strictly in the future."


@pytest.mark.compat("SCH-AT-MESSAGES")
@pytest.mark.spec("SCH-015", "SCH-039")
@YEAR_ONE
def test_the_first_instant_of_year_one_says_the_not_future_message(agent, at):
    value = _create(agent, at)
    assert value == {"code": "not_future", "message": NOT_FUTURE}, pinned(
        "SCH-AT-MESSAGES", f"{at} to answer not_future with {NOT_FUTURE!r}", value)


@pytest.mark.spec("SCH-015", "SCH-030")
def test_the_last_instant_of_year_9999_is_a_valid_target(agent):
    value = _create(agent, "9999-12-31T23:59:59.999Z")
    assert suite_instant(value.get("scheduledAt")) == "9999-12-31T23:59:59.999Z", readme(
        "SCH-015, SCH-030",
        "the last millisecond of year 9999, still a four-digit-year instant, to be accepted "
        "as scheduledAt 9999-12-31T23:59:59.999Z", value)
    listed = agent.call_tool("schedule_list", {}).value
    states = [view.get("state") for view in listed] if isinstance(listed, list) else listed
    assert states == ["scheduled"], readme(
        "SCH-035", "a target far in the future to be listed as scheduled", listed)

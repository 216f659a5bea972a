"""Targets at the very end of the four-digit-year range.

A create stores a canonical four-digit-year UTC ``scheduledAt`` (SCH-015,
SCH-030): the last representable target, 9999-12-31T23:59:59.999Z, is
accepted; one millisecond later is rejected with a closed code (the official
build's ``time_out_of_range`` is pinned, SCH-CODE-MAPPING). The wall clock is
moved next to that instant so that an ordinary ``after_seconds`` or
``every_seconds`` lands exactly on it or past it.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned, readme
from dsh_conformance.layout_free import mentions, schedule_changes
from dsh_conformance.schedule.tool_values import instant_ms, instants_in, rejection_codes

pytestmark = [pytest.mark.dsh_requires("schedule")]

LAST_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z
LAST = "9999-12-31T23:59:59.999Z"
OUT_OF_RANGE = {
    "code": "time_out_of_range",
    "message": (
        "The scheduled time must be representable as a four-digit-year RFC 3339 UTC instant."
    ),
}


def changes(agent):
    return schedule_changes(agent.events())


@pytest.mark.spec("SCH-030", "SCH-034", "SCH-039")
@pytest.mark.parametrize(("selector", "seconds"), [("after_seconds", 60), ("every_seconds", 300)])
def test_a_target_exactly_on_the_last_instant_is_accepted(host, agent, selector, seconds):
    host.set_wall_clock(LAST_MS - seconds * 1000)
    value = agent.call_tool("schedule_create", {"prompt": "Edge", selector: seconds}).value
    assert not rejection_codes(value) and instant_ms(value.get("scheduledAt")) == LAST_MS, readme(
        "SCH-030, SCH-034", f"a {selector} target on {LAST} to be accepted", value)
    logged = changes(agent)
    assert len(logged) == 1 and mentions(logged[0], value.get("id")) and LAST_MS in instants_in(
        logged[0]), readme("SCH-015, SCH-030", f"the appended create to store its id and "
                           f"scheduledAt {LAST}", logged)


@pytest.mark.spec("SCH-034", "SCH-039")
@pytest.mark.parametrize(("selector", "seconds"), [("after_seconds", 60), ("every_seconds", 300)])
@pytest.mark.parametrize("past_ms", [1, 1000])
def test_a_target_past_the_last_instant_is_out_of_range(host, agent, selector, seconds, past_ms):
    host.set_wall_clock(LAST_MS - seconds * 1000 + past_ms)
    value = agent.call_tool("schedule_create", {"prompt": "Edge", selector: seconds}).value
    assert rejection_codes(value), readme(
        "SCH-015, SCH-039", f"a {selector} target {past_ms} ms past {LAST} rejected with a "
        "closed code (scheduledAt has a four-digit year)", value)
    assert changes(agent) == [], readme(
        "SCH-034", "a rejected create to append nothing", changes(agent))


@pytest.mark.compat("SCH-ERROR-MESSAGES", "SCH-CODE-MAPPING")
@pytest.mark.spec("SCH-039")
@pytest.mark.parametrize(("selector", "seconds"), [("after_seconds", 60), ("every_seconds", 300)])
def test_a_target_past_the_last_instant_answers_the_exact_out_of_range_value(
    host, agent, selector, seconds
):
    host.set_wall_clock(LAST_MS - seconds * 1000 + 1)
    value = agent.call_tool("schedule_create", {"prompt": "Edge", selector: seconds}).value
    assert value == OUT_OF_RANGE, pinned(
        "SCH-CODE-MAPPING, SCH-ERROR-MESSAGES", f"the out-of-range value to be exactly "
        f"{OUT_OF_RANGE}", value)


@pytest.mark.spec("SCH-035", "SCH-042")
def test_a_record_on_the_last_instant_is_listed_and_becomes_overdue(host, agent):
    host.set_wall_clock(LAST_MS - 60_000)
    agent.call_tool("schedule_create", {"prompt": "Edge", "after_seconds": 60})
    [record] = agent.call_tool("schedule_list", {}).value
    assert (instant_ms(record["scheduledAt"]), record["state"]) == (LAST_MS, "scheduled"), readme(
        "SCH-035, SCH-042", f"a record due at {LAST} to be listed as scheduled before then",
        record)
    host.faults.fail_maintenance(count=None)  # keep it from being delivered
    host.set_wall_clock(LAST_MS + 1)
    [record] = agent.call_tool("schedule_list", {}).value
    assert (instant_ms(record["scheduledAt"]), record["state"]) == (LAST_MS, "overdue"), readme(
        "SCH-042", f"an undelivered record due at {LAST} to be listed as overdue after it",
        record)

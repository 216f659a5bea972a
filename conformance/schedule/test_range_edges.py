"""Targets at the very end of the four-digit-year range.

``time_out_of_range`` is one of the closed codes (SCH-039) and a create stores
a canonical four-digit-year UTC ``scheduledAt`` (SCH-030, SCH-032): the last
representable target, 9999-12-31T23:59:59.999Z, is accepted; one millisecond
later is out of range. The wall clock is moved next to that instant so that an
ordinary ``after_seconds`` or ``every_seconds`` lands exactly on it or past it.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import code_of, pinned, readme

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
    return [e["data"] for e in agent.events() if e["type"] == "schedule/change"]


@pytest.mark.spec("SCH-030", "SCH-034", "SCH-039")
@pytest.mark.parametrize(("selector", "seconds"), [("after_seconds", 60), ("every_seconds", 300)])
def test_a_target_exactly_on_the_last_instant_is_accepted(host, agent, selector, seconds):
    host.set_wall_clock(LAST_MS - seconds * 1000)
    value = agent.call_tool("schedule_create", {"prompt": "Edge", selector: seconds}).value
    seen = (value.get("id"), value.get("scheduledAt"), value.get("state"))
    logged = [c["schedule"]["id"] for c in changes(agent)]
    assert [seen] == [(i, LAST, "scheduled") for i in logged], readme(
        "SCH-030, SCH-034", f"a {selector} target on {LAST} to be accepted as scheduled", value)
    stored = changes(agent)[-1]["schedule"]["scheduledAt"] if changes(agent) else None
    assert stored == LAST, readme(
        "SCH-030", f"the appended create to store scheduledAt {LAST}", stored)


@pytest.mark.spec("SCH-034", "SCH-039")
@pytest.mark.parametrize(("selector", "seconds"), [("after_seconds", 60), ("every_seconds", 300)])
@pytest.mark.parametrize("past_ms", [1, 1000])
def test_a_target_past_the_last_instant_is_out_of_range(host, agent, selector, seconds, past_ms):
    host.set_wall_clock(LAST_MS - seconds * 1000 + past_ms)
    value = agent.call_tool("schedule_create", {"prompt": "Edge", selector: seconds}).value
    assert code_of(value) == "time_out_of_range", readme(
        "SCH-039", f"a {selector} target {past_ms} ms past {LAST} to answer time_out_of_range",
        value)
    assert changes(agent) == [], readme(
        "SCH-034", "a rejected create to append nothing", changes(agent))


@pytest.mark.compat("SCH-ERROR-MESSAGES")
@pytest.mark.spec("SCH-039")
@pytest.mark.parametrize(("selector", "seconds"), [("after_seconds", 60), ("every_seconds", 300)])
def test_a_target_past_the_last_instant_answers_the_exact_out_of_range_value(
    host, agent, selector, seconds
):
    host.set_wall_clock(LAST_MS - seconds * 1000 + 1)
    value = agent.call_tool("schedule_create", {"prompt": "Edge", selector: seconds}).value
    assert value == OUT_OF_RANGE, pinned(
        "SCH-ERROR-MESSAGES", f"the out-of-range value to be exactly {OUT_OF_RANGE}", value)


@pytest.mark.spec("SCH-035", "SCH-042")
def test_a_record_on_the_last_instant_is_listed_and_becomes_overdue(host, agent):
    host.set_wall_clock(LAST_MS - 60_000)
    agent.call_tool("schedule_create", {"prompt": "Edge", "after_seconds": 60})
    [record] = agent.call_tool("schedule_list", {}).value
    assert (record["scheduledAt"], record["state"]) == (LAST, "scheduled"), readme(
        "SCH-035, SCH-042", f"a record due at {LAST} to be listed as scheduled before then",
        record)
    host.faults.fail_maintenance(count=None)  # keep it from being delivered
    host.set_wall_clock(LAST_MS + 1)
    [record] = agent.call_tool("schedule_list", {}).value
    assert (record["scheduledAt"], record["state"]) == (LAST, "overdue"), readme(
        "SCH-042", f"an undelivered record due at {LAST} to be listed as overdue after it",
        record)

"""README section "Composition": management transactions and the live owner in flight.

The helpers these tests share with ``schedule/management_tools/test_transactions.py``
are defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned, readme
from dsh_conformance.layout_free import closed_codes_in, mentions
from dsh_conformance.schedule.management_tools.test_transactions import (
    AFTER_60,
    changes,
    created_id,
)
from pytest_dsh import HostStuckError

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.spec("SCH-013", "SCH-034")
def test_a_create_held_on_its_barrier_completes_once_the_flush_is_released(host, agent):
    host.faults.fail_flushes("hang", first=2)
    call = agent.start_tool("schedule_create", AFTER_60)
    assert call.done is False, readme(
        "SCH-013, SCH-034", "a create not to confirm before its barrier", call.done)
    with pytest.raises(HostStuckError):
        call.result()
    host.faults.release_hung_flush()
    schedule_id = created_id(call.result().value, "SCH-013, SCH-034", "the released create")
    logged = changes(agent)
    assert len(logged) == 1 and mentions(logged[0], schedule_id), readme(
        "SCH-034", "exactly one create, of the confirmed id, to be appended", logged)
    durable = [e["type"] for e in host.durable_events(agent.session_id)]
    assert "schedule/change" in durable, readme(
        "SCH-013", "the confirmed create to be durable", durable)


@pytest.mark.spec("SCH-013", "SCH-034")
@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
def test_a_held_barrier_released_as_a_failure_reports_the_kept_create(host, agent, outcome):
    host.faults.fail_flushes("hang", first=2)
    call = agent.start_tool("schedule_create", AFTER_60)
    host.faults.release_hung_flush(outcome)
    value = call.result().value
    assert closed_codes_in(value) == {"persistence_uncertain"}, readme(
        "SCH-012, SCH-013", f"a barrier released as {outcome} to answer persistence_uncertain",
        value)
    logged = changes(agent)
    assert len(logged) == 1 and mentions(logged[0], "Stretch"), readme(
        "SCH-013, SCH-034", "the appended create to stay in the log", logged)


@pytest.mark.compat("SCH-ERROR-VALUE-SHAPE")
@pytest.mark.spec("SCH-013", "SCH-039")
def test_a_held_barrier_released_as_a_failure_names_the_kept_id(host, agent):
    host.faults.fail_flushes("hang", first=2)
    call = agent.start_tool("schedule_create", AFTER_60)
    host.faults.release_hung_flush("rejected")
    value = call.result().value
    logged = [change["schedule"]["id"] for change in changes(agent)]
    assert [value.get("id")] == logged and value.get("operation") == "create", pinned(
        "SCH-ERROR-VALUE-SHAPE", f"the uncertain answer to carry operation create and the "
        f"appended record's id {logged}", value)

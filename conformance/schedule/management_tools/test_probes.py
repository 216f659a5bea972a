"""Probes written for a basic behaviour no existing test isolates.

An existing test of the same sentence mixes in behaviours a probe must not
depend on (a delete, an interval record, a target a minute away that fires
early under a clock bug); these probes exercise only their own behaviour.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.layout_free import NOT_FOUND_CODE, schedule_changes
from dsh_conformance.schedule.written_logs import (
    create,
)

pytestmark = [pytest.mark.dsh_requires("schedule")]


# Created latest-target first: creation order and target order disagree. Every
# target is hours away, so no delivery can interfere with the listing.
FAR_APART = (
    {"prompt": "third target", "at": "2026-01-01T06:00:00Z"},
    {"prompt": "first target", "at": "2026-01-01T02:00:00Z"},
    {"prompt": "second target", "at": "2026-01-01T04:00:00Z"},
)


@pytest.mark.spec("SCH-035")
@pytest.mark.dsh_probe(
    "list-in-creation-order", "schedule_list shows active records in creation order"
)
def test_list_shows_records_in_creation_order_not_target_order(agent):
    ids = [agent.call_tool("schedule_create", arguments).value.get("id")
           for arguments in FAR_APART]
    listed = agent.call_tool("schedule_list", {}).value
    observed = [view.get("id") for view in listed] if isinstance(listed, list) else listed
    assert observed == ids, readme(
        "SCH-035", f"the three active records in creation order {ids}, not target order", listed)


@pytest.mark.spec("SCH-036")
@pytest.mark.dsh_probe(
    "delete-unknown-id-not-found", "Deleting an unknown or finished id answers not found"
)
def test_deleting_a_deleted_or_never_issued_id_answers_not_found(agent):
    # One record, an hour away: no other create, no delivery on the way.
    record = create(agent, {"prompt": "once", "after_seconds": 3600})
    agent.call_tool("schedule_delete", {"id": record.id})
    before = schedule_changes(agent.events())
    unknown = "never-issued" if record.id != "never-issued" else "never-issued-either"
    answers = [agent.call_tool("schedule_delete", {"id": one}).value
               for one in (record.id, unknown)]
    expected = [{"id": one, "deleted": False, "code": NOT_FOUND_CODE}
                for one in (record.id, unknown)]
    assert (answers, schedule_changes(agent.events())) == (expected, before), readme(
        "SCH-036", "{id, deleted: false, code: schedule_not_found} for a deleted and a never "
        "issued id, and no change appended", answers)

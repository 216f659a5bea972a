"""Probes written for a basic behaviour no existing test isolates.

An existing test of the same sentence mixes in behaviours a probe must not
depend on (a delete, an interval record, a target a minute away that fires
early under a clock bug); these probes exercise only their own behaviour.
"""

from __future__ import annotations

import json

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.layout_free import NOT_FOUND_CODE, schedule_changes
from dsh_conformance.schedule.session_logs import BATCH_HEADER, START_MS, reminder_framings
from dsh_conformance.schedule.written_logs import (
    create,
    overdue_after_resume,
    transition_events,
    transitions,
)
from pytest_dsh.contract import AppendRejectedError

pytestmark = [pytest.mark.dsh_requires("schedule")]

DAY_MS = 86_400_000

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


# Every record has exactly one due occurrence at resume, so the batch order is
# the same whether read by first target or by occurrence; intervals are above
# five minutes so that the interval floor is not what the probe checks.
BATCHED = (  # (prompt, every_seconds, seconds after the previous create)
    ("A", 1200, 0), ("B", 600, 60), ("C", 900, 60), ("E", 900, 0), ("D", 600, 60),
)


@pytest.mark.spec("SCH-045", "SCH-076", "SCH-080")
@pytest.mark.dsh_probe(
    "batch-in-target-then-creation-order",
    "A batch lists its reminders in target, then creation order",
)
def test_a_batch_lists_its_reminders_in_target_then_creation_order(host, agent):
    records = {}
    for prompt, every_seconds, wait in BATCHED:
        host.advance(wait)
        records[prompt] = create(agent, {"prompt": prompt, "every_seconds": every_seconds})
    # Targets B 00:11, D 00:13, C and E 00:17 (C created first), A 00:20.
    resumed = overdue_after_resume(host, agent, 1050)  # 00:20:30
    framings = reminder_framings(resumed.events())
    batches = [text for text in framings if text.startswith(BATCH_HEADER)]
    listed = [json.loads(text.partition("reminders_json: ")[2]) for text in batches]
    ids = [[item.get("schedule_id") for item in batch] for batch in listed]
    expected = [[records[p].id for p in ("B", "D", "C", "E", "A")]]
    assert ids == expected, readme(
        "SCH-045, SCH-076, SCH-080", f"one batch listing the reminders {expected[0]} in target, "
        "then creation order", framings)


@pytest.mark.spec("SCH-043")
@pytest.mark.dsh_probe(
    "rollback-never-fires-early", "A wall clock stepped back never fires a reminder early"
)
def test_a_wall_clock_stepped_back_delays_the_reminder_until_it_reaches_the_target(host, agent):
    record = create(agent, {"prompt": "Roll", "after_seconds": 3600})
    host.set_wall_clock(START_MS - DAY_MS)
    host.advance(3600)  # the timer elapses, but the wall clock says a day early
    early = transitions(agent.events(), [record])
    host.advance(86_400)
    assert (early, transitions(agent.events(), [record])) == ([], [record.id]), readme(
        "SCH-043", "no dispatch when the timer elapses with the wall clock rolled back, one "
        "once the wall clock reaches the target", transition_events(agent.events(), [record]))


@pytest.mark.spec("SCH-021")
@pytest.mark.dsh_probe(
    "fork-inherits-no-reminders", "A forked agent does not inherit its parent's reminders"
)
def test_a_fork_lists_none_of_its_parents_reminders(host, agent):
    create(agent, {"prompt": "P1", "after_seconds": 600})
    child = host.fork(agent)
    listed = child.call_tool("schedule_list", {}).value
    assert listed == [], readme("SCH-021", "the fork to list no reminder", listed)


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


@pytest.mark.spec("SCH-022", "SCH-019")
@pytest.mark.dsh_requires("schedule-invariant")
@pytest.mark.dsh_probe(
    "sch-companion-rejects-bad-appends",
    "The companion rejects a broken schedule change when appended",
)
def test_the_companion_rejects_a_second_create_of_an_existing_id(dsh_host):
    dsh_host.load_plugin("schedule")
    dsh_host.load_plugin("schedule-invariant")
    agent = dsh_host.create_agent()
    create(agent, {"prompt": "X", "after_seconds": 3600})
    (written,) = schedule_changes(agent.events())
    before = agent.events()
    try:
        agent.append_event("schedule/change", written)
    except AppendRejectedError:
        rejected = True
    else:
        rejected = False
    assert (rejected, agent.events() == before) == (True, True), readme(
        "SCH-022, SCH-019", "the companion to reject a candidate that creates an existing id "
        "again (a reused id breaks replay) and leave the log unchanged", written)

"""README section "Durable state": probes, each isolating one basic behaviour
(``dsh_probe``).
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.layout_free import schedule_changes
from dsh_conformance.schedule.written_logs import create
from pytest_dsh.contract import AppendRejectedError

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.spec("SCH-021")
@pytest.mark.dsh_probe(
    "fork-inherits-no-reminders", "A forked agent does not inherit its parent's reminders"
)
def test_a_fork_lists_none_of_its_parents_reminders(host, agent):
    create(agent, {"prompt": "P1", "after_seconds": 600})
    child = host.fork(agent)
    listed = child.call_tool("schedule_list", {}).value
    assert listed == [], readme("SCH-021", "the fork to list no reminder", listed)


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

"""A wall-clock or session-event read that fails inside a management call.

The README's error contract is closed: every failure is one of the version-1
codes (SCH-039), and diagnostics never expose backend exceptions (SCH-040).
A read that throws is such a backend failure, so the call must answer a closed
code value (not a host error carrying the exception) and append nothing. Which
code (``internal_error``) is left open: pinned detail SCH-CODE-MAPPING.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned, readme
from dsh_conformance.layout_free import CLOSED_CODES, closed_codes_in

pytestmark = [pytest.mark.dsh_requires("schedule")]
# Every read each call needs (a delete renders no view, so it reads no clock).
CASES = [
    pytest.param("schedule_create", {"prompt": "Stretch", "after_seconds": 60}, "clock",
                 id="create-clock"),
    pytest.param("schedule_list", {}, "clock", id="list-clock"),
    pytest.param("schedule_create", {"prompt": "Stretch", "after_seconds": 60}, "event",
                 id="create-event"),
    pytest.param("schedule_list", {}, "event", id="list-event"),
    pytest.param("schedule_delete", {"id": "schedule-1"}, "event", id="delete-event"),
]


def changes(agent):
    return [e for e in agent.events() if e["type"] == "schedule/change"]


@pytest.mark.spec("SCH-039", "SCH-040")
@pytest.mark.parametrize(("tool", "arguments", "read"), CASES)
def test_a_failing_read_answers_a_closed_code_and_appends_nothing(
    host, agent, tool, arguments, read
):
    agent.call_tool("schedule_create", {"prompt": "Keep", "after_seconds": 3600})
    before = changes(agent)
    getattr(host.faults, f"fail_{read}_reads")(count=None)
    outcome = agent.call_tool(tool, arguments)
    host.faults.clear()
    assert outcome.is_error is False, readme(
        "SCH-039, SCH-040", f"{tool} to answer a closed error value, not a host error, when a "
        f"{read} read fails", outcome.error)
    assert isinstance(outcome.value, dict), readme(
        "SCH-039", f"{tool} to answer an error value when a {read} read fails", outcome.value)
    assert len(closed_codes_in(outcome.value) & CLOSED_CODES) == 1, readme(
        "SCH-039", "the failure to be one of the closed version-1 codes", outcome.value)
    assert "fault plan" not in outcome.text, readme(
        "SCH-040", "the answer not to expose the backend exception", outcome.text)
    assert changes(agent) == before, readme(
        "SCH-039", f"{tool} to append nothing when a {read} read fails", changes(agent))


@pytest.mark.spec("SCH-039", "SCH-040")
@pytest.mark.parametrize("read", ["clock", "event"])
def test_the_tools_work_again_once_reads_succeed(host, agent, read):
    getattr(host.faults, f"fail_{read}_reads")(count=None)
    agent.call_tool("schedule_list", {})
    host.faults.clear()
    value = agent.call_tool("schedule_create", {"prompt": "Later", "after_seconds": 60}).value
    assert isinstance(value, dict) and isinstance(value.get("id"), str) and not closed_codes_in(
        value), readme("SCH-039", f"a create to succeed once {read} reads work again", value)
    listed = agent.call_tool("schedule_list", {}).value
    ids = [r.get("id") for r in listed] if isinstance(listed, list) else listed
    assert ids == [value["id"]], readme(
        "SCH-035", "the new record to be listed once reads work again", listed)


@pytest.mark.compat("SCH-CODE-MAPPING")
@pytest.mark.spec("SCH-039")
@pytest.mark.parametrize(("tool", "arguments", "read"), CASES)
def test_a_failing_read_answers_internal_error(host, agent, tool, arguments, read):
    agent.call_tool("schedule_create", {"prompt": "Keep", "after_seconds": 3600})
    getattr(host.faults, f"fail_{read}_reads")(count=None)
    outcome = agent.call_tool(tool, arguments)
    host.faults.clear()
    assert not outcome.is_error and outcome.value == {
        "code": "internal_error", "message": "The schedule operation failed."}, pinned(
        "SCH-CODE-MAPPING", f"internal_error from {tool} when a {read} read fails",
        outcome.value if not outcome.is_error else outcome.error)

"""README section "Composition": a root agent that is no longer live by the
time its creation is announced (disposed before the announcement reached the
plugin) is not a runtime root, so it does not receive Schedule.

Level: readme. SCH-006 installs Schedule on runtime roots and SCH-059 shows the
tools only in a live root Agent; SCH-058 has disposal stop new work. The host
presents such an agent with ``create_agent(gone_when_announced=True)``
(docs/fake-host.md).
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.session_logs import flushes_of, reminder_texts

pytestmark = [pytest.mark.dsh_requires("schedule")]

TOOLS = {"schedule_create", "schedule_list", "schedule_delete"}


@pytest.mark.spec("SCH-006", "SCH-059")
def test_an_agent_gone_when_announced_gets_no_tools_and_no_flush(host):
    # Installing would register the tools (SCH-006); disposal would then drop
    # them, so the registry's record, not today's tool list, tells.
    gone = host.create_agent(gone_when_announced=True)
    assert not TOOLS & set(gone.tool_names()), readme(
        "SCH-006, SCH-059",
        "an agent no longer live when announced gets no tools: "
        "not TOOLS & set(gone.tool_names())",
        TOOLS & set(gone.tool_names()),
    )
    registered = [r.name for r in host.tool_registrations(gone.session_id) if r.name in TOOLS]
    assert registered == [], readme(
        "SCH-006",
        "an agent no longer live when announced is not installed on, so no tool of "
        "Schedule is ever registered on it: registered == []",
        registered,
    )
    assert flushes_of(host, gone.session_id) == [], readme(
        "SCH-006",
        "an agent no longer live when announced gets no flush: "
        "flushes_of(host, gone.session_id) == []",
        flushes_of(host, gone.session_id),
    )


@pytest.mark.spec("SCH-006", "SCH-058")
def test_a_due_reminder_of_an_agent_gone_when_announced_is_not_delivered(host, agent):
    agent.call_tool("schedule_create", {"prompt": "Old", "after_seconds": 60})
    gone = host.create_agent(seed=agent.events(), gone_when_announced=True)
    host.advance(3600)
    assert reminder_texts(gone.events()) == [], readme(
        "SCH-006, SCH-058",
        "no new work for an agent no longer live when announced: "
        "reminder_texts(gone.events()) == []",
        reminder_texts(gone.events()),
    )
    assert flushes_of(host, gone.session_id) == [], readme(
        "SCH-006, SCH-058",
        "no new work for an agent no longer live when announced: "
        "flushes_of(host, gone.session_id) == []",
        flushes_of(host, gone.session_id),
    )

"""The README's opening paragraphs: its tests that also exercise the section "Composition".

The helpers these tests share with ``schedule/composition/test_composition.py`` are
defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.composition.test_composition import TOOLS

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.spec("SCH-001", "SCH-006", "SCH-059")
def test_root_created_after_load_gets_exactly_the_three_tools(host):
    agent = host.create_agent()
    assert set(agent.tool_names()) == TOOLS, readme(
        "SCH-001, SCH-006, SCH-059",
        "root created after load gets exactly the three tools: set(agent.tool_names()) == TOOLS",
        set(agent.tool_names()),
    )
    assert len(agent.tool_names()) == 3, readme(
        "SCH-001, SCH-006, SCH-059",
        "root created after load gets exactly the three tools: len(agent.tool_names()) == 3",
        len(agent.tool_names()),
    )

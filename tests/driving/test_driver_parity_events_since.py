"""``AgentDriver.events(start)``, the same on both hosts (every test runs twice,
see ``conftest.py``): a test that reads a growing log reads only the events it
has not seen, and gets exactly the suffix a full read would give.

This pins the kit's own driver contract (docs/fake-host.md), not a README.
"""

from __future__ import annotations

import re

import pytest

AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}


def test_events_from_an_index_are_the_suffix_of_a_full_read(host):
    host.load_plugin("schedule")
    agent = host.create_agent()
    agent.call_tool("schedule_create", AFTER_60)
    host.advance(120)
    everything = agent.events()
    assert len(everything) > 3, "the reminder was delivered: a turn was appended"
    for start in (0, 1, len(everything) - 1, len(everything), len(everything) + 5):
        assert agent.events(start) == everything[start:]


def test_a_suffix_read_is_a_copy_the_test_may_change(host):
    host.load_plugin("schedule")
    agent = host.create_agent()
    agent.call_tool("schedule_create", AFTER_60)
    (first,) = agent.events(0)
    first["data"] = "changed by the test"
    assert agent.events(0)[0]["data"] != "changed by the test"


@pytest.mark.parametrize("start", [-1, 1.0, "1", True, None])
def test_an_index_that_is_not_a_count_is_refused(host, start):
    agent = host.create_agent()
    with pytest.raises(ValueError, match=re.escape("events(start=...) takes an index >= 0")):
        agent.events(start)

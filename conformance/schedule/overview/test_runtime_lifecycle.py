"""The README's opening paragraphs: the live owner's runtime at the moments no ordinary
call reaches.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.layout_free import closed_codes_in, mentions

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.spec("SCH-003", "SCH-038")
def test_a_retained_create_made_durable_by_the_host_survives_a_crash(host, agent):
    host.faults.fail_flushes("rejected", first=2, count=None)  # every flush after the preflight
    value = agent.call_tool("schedule_create", {"prompt": "Kept", "after_seconds": 3600}).value
    assert closed_codes_in(value) == {"persistence_uncertain"}, readme(
        "SCH-013", "the failed barrier to answer persistence_uncertain", value)
    host.faults.clear()
    flushed = host.flush_session(agent)  # the host's own flush, later
    assert flushed is True, readme(
        "SCH-003", "the host's own flush to make the retained create durable", flushed)
    host.crash()
    resumed = host.resume(agent.session_id)
    listed = resumed.call_tool("schedule_list", {}).value
    assert len(listed) == 1 and mentions(listed[0], "Kept"), readme(
        "SCH-003, SCH-038", "the retained create, durable through the host's later flush, to "
        "be an active record after the crash", listed)

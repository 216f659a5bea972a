"""README section "Management tools": its tests that also exercise the section "Durable
state".

The helpers these tests share with ``schedule/durable_state/test_durable_state.py`` are
defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned
from dsh_conformance.schedule.durable_state.test_durable_state import FOLDS
from dsh_conformance.schedule.session_logs import seed_log

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.compat("SCH-VALUE-KEY-ORDER")
@pytest.mark.spec("SCH-035")
@FOLDS
def test_a_folded_view_uses_the_canonical_key_order(host, entries, records):
    agent = host.create_agent(seed=seed_log(*entries))
    value = agent.call_tool("schedule_list", {}).value
    observed = [list(view) for view in value]
    expected = [[*record, "state", "deliveryMode"] for record in records]
    assert observed == expected, pinned(
        "SCH-VALUE-KEY-ORDER", f"the canonical view key order {expected}, whatever the stored "
        "key order", observed)

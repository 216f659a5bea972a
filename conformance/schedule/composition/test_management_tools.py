"""README section "Composition": its tests that also exercise the section "Management
tools".
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.tool_values import rejection_codes

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.spec("SCH-012", "SCH-040")
@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
def test_persistence_diagnostics_do_not_expose_backend_exceptions(host, agent, outcome):
    host.faults.fail_flushes(outcome)
    result = agent.call_tool("schedule_list", {})
    assert rejection_codes(result.value) == {"persistence_uncertain"}, readme(
        "SCH-012", f"persistence_uncertain for a {outcome} flush", result.value)
    for leak in ("listener", "not live", "store", "Error", "session-"):
        assert leak not in result.text, readme(
            "SCH-040", f"a diagnostic that does not expose the backend ({leak!r})", result.text)

"""README section "Known limitations and deferred work": its tests that also exercise the
section "Configuration".

The helpers these tests share with ``time_context/configuration/test_configuration.py``
are defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.time_context.configuration.test_configuration import only_reading, zone_facts
from dsh_conformance.time_context.readings import run_turn, step_one_text

pytestmark = [pytest.mark.dsh_requires("time-context")]


@pytest.mark.spec("TC-045")
def test_an_explicit_zone_wins_over_the_process_zone(dsh_host, monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    dsh_host.load_plugin("time-context", {"timeZone": "America/New_York"})
    agent = dsh_host.create_agent()
    run_turn(dsh_host, agent)
    observed = only_reading(agent)
    expected = step_one_text(1, "2025-12-31T19:00:00-05:00[America/New_York]", "0s")
    assert zone_facts(observed) == zone_facts(expected), readme(
        "TC-045", "an explicit timeZone (America/New_York) to win over TZ=Asia/Shanghai",
        observed)

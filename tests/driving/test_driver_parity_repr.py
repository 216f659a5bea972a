"""A driver's repr, the same on both hosts (every test runs twice, see
``conftest.py``): a failing Hypothesis example prints its fixtures, so a
memory address there made the same failure read differently in each run.

This pins the kit's own driver contract, not a README.
"""

from __future__ import annotations


def test_host_and_agent_reprs_name_them_without_an_address(host):
    agent = host.create_agent()
    host_text, agent_text = repr(host), repr(agent)
    assert " at 0x" not in host_text and " at 0x" not in agent_text
    assert host_text == (f"{type(host).__name__}(implementation={host.implementation_name!r}, "
                         f"version={host.implementation_version!r})")
    assert agent_text == (f"{type(agent).__name__}(id={agent.id!r}, "
                          f"session_id={agent.session_id!r})")
    assert repr(host.create_agent()) != agent_text, "each agent is told apart"

"""A wall-clock step made while virtual time passes, on both hosts (every test
runs twice, see ``conftest.py``): ``advance(seconds)`` lets exactly that much
monotonic time pass, whatever the wall clock is stepped to on the way (a
``SetWallClock`` action inside a claim the advance reaches). The wall clock
goes on from the step; timers keep their monotonic instants.
"""

from __future__ import annotations

from pytest_dsh.driving.agent_actions import SetWallClock
from pytest_dsh.driving.api import AgentDriver, HostDriver

START_MS = 1_767_225_600_000
AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}


def schedule_agent(host: HostDriver) -> AgentDriver:
    host.load_plugin("schedule")
    return host.create_agent()


def test_a_step_back_inside_a_claim_keeps_the_rest_of_the_advance(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    agent.act_inside("claim", SetWallClock(START_MS + 30_000))
    host.advance(100)  # the claim at +60 s steps the wall back 30 s; 40 s remain
    assert host.now_ms == START_MS + 70_000


def test_a_step_forward_inside_a_claim_keeps_the_rest_of_the_advance(host):
    agent = schedule_agent(host)
    agent.call_tool("schedule_create", AFTER_60)
    agent.act_inside("claim", SetWallClock(START_MS + 3_600_000))
    host.advance(100)
    assert host.now_ms == START_MS + 3_640_000

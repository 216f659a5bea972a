"""An agent's own start is observed like any later work, on both hosts.

What a plugin does while ``create_agent`` or ``resume`` settles (the Schedule
owner delivering an overdue reminder at once, say) runs into the same fault
seams, counters, trace and model-request record as what it does later. The
bridge leg of the first tests runs in a fresh Node process (``fresh_host``),
where nothing was set up by an earlier agent. Every test runs on both hosts
(see ``conftest.py``); they pin the kit's own driver contract
(docs/fake-host.md), not a README.
"""

from __future__ import annotations

from typing import Any

from pytest_dsh.driving.api import AgentDriver, HostDriver

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z


def overdue_seed() -> list[dict[str, Any]]:
    """A log with one reminder that fell due a minute before the host's start."""
    return [
        {
            "type": "schedule/change",
            "seq": 0,
            "time": START_MS - 120_000,
            "data": {
                "version": 1,
                "operation": "create",
                "schedule": {
                    "id": "schedule-1",
                    "kind": "after",
                    "prompt": "Stretch",
                    "afterSeconds": 60,
                    "scheduledAt": "2025-12-31T23:59:00.000Z",
                },
            },
        }
    ]


def dispatches(agent: AgentDriver) -> list[str]:
    return [
        e["data"]["id"]
        for e in agent.events()
        if e["type"] == "schedule/change" and e["data"].get("operation") == "dispatch"
    ]


def start_overdue(host: HostDriver) -> AgentDriver:
    host.load_plugin("schedule")
    return host.create_agent(seed=overdue_seed())


def test_the_first_agents_start_runs_into_a_planned_claim_refusal(fresh_host):
    fresh_host.faults.fail_maintenance()
    agent = start_overdue(fresh_host)
    assert dispatches(agent) == []
    assert agent.counters().maintenance_claims == 0


def test_the_first_agents_start_is_traced_and_counted(fresh_host):
    fresh_host.start_trace()
    agent = start_overdue(fresh_host)
    assert dispatches(agent) == ["schedule-1"]
    kinds = [e.kind for e in fresh_host.trace() if e.kind in ("claim", "followup", "release")]
    assert kinds == ["claim", "followup", "release"]
    counters = agent.counters()
    assert (counters.maintenance_claims, counters.maintenance_releases) == (1, 1)


def test_model_requests_made_while_an_agent_starts_are_recorded(host):
    agent = start_overdue(host)
    steps = [e for e in agent.events() if e["type"] == "step/start"]
    assert len(steps) == 1  # the delivered reminder's turn ran inside create_agent
    assert len(agent.requests()) == 1


def test_model_requests_made_while_a_resume_settles_are_recorded(host):
    host.load_plugin("schedule")
    agent = host.create_agent()
    agent.call_tool("schedule_create", {"prompt": "Stretch", "after_seconds": 60})
    host.flush_session(agent)
    host.crash()
    host.advance(120)
    resumed = host.resume(agent.session_id)
    assert dispatches(resumed) == ["schedule-1"]
    assert len([e for e in resumed.events() if e["type"] == "step/start"]) == 1
    assert len(resumed.requests()) == 1

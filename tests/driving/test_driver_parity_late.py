"""Late seams, the same on both hosts (every test runs twice, see ``conftest.py``):

* an agent already gone when its creation is announced
  (``create_agent(gone_when_announced=True)``): plugins are told of an agent
  that is not live, and it is disposed, as a host presents an agent disposed
  before the announcement reached the plugins;
* ``HostDriver.supports(seam)``: what a host cannot provide is said, and a
  test that needs it skips with the reason instead of passing;
* ``HostDriver.set_durability(mode)``: ``"flush"`` on every host,
  ``"per-event"`` exactly where the ``per-event-durability`` seam is.

These pin the kit's own driver contract (docs/fake-host.md), not a README.
"""

from __future__ import annotations

import pytest

from pytest_dsh.driving.api import AgentDriver, HostDriver
from pytest_dsh.driving.seams import SeamMissing, require_seam
from pytest_dsh.fake_host.driver import PythonHostDriver

TOOLS = {"schedule_create", "schedule_list", "schedule_delete"}
AFTER_60 = {"prompt": "Stretch", "after_seconds": 60}


def flushes_of(host: HostDriver, agent: AgentDriver) -> list[str]:
    return [record.outcome for record in host.flushes if record.session_id == agent.session_id]


# -- an agent gone when announced ---------------------------------------------------------


def test_an_agent_gone_when_announced_is_returned_not_live(host):
    agent = host.create_agent(gone_when_announced=True)
    assert agent.is_live is False
    assert agent.is_root is True
    assert agent.events() == []


def test_schedule_does_not_install_on_an_agent_gone_when_announced(host):
    host.load_plugin("schedule")
    host.start_trace()
    gone = host.create_agent(gone_when_announced=True)
    host.advance(3600)
    assert not TOOLS & set(gone.tool_names())
    assert [r.name for r in host.tool_registrations(gone.session_id)] == []
    assert flushes_of(host, gone) == []
    assert [e.kind for e in host.trace() if e.kind in ("timer-arm", "claim", "followup")] == []


def test_a_later_agent_still_receives_schedule(host):
    host.load_plugin("schedule")
    host.create_agent(gone_when_announced=True)
    agent = host.create_agent()
    assert set(agent.tool_names()) == TOOLS
    assert flushes_of(host, agent) == ["durable"]
    assert agent.call_tool("schedule_create", AFTER_60).value["state"] == "scheduled"


def test_a_due_reminder_in_the_log_of_an_agent_gone_when_announced_is_not_delivered(host):
    host.load_plugin("schedule")
    source = host.create_agent()
    source.call_tool("schedule_create", AFTER_60)
    gone = host.create_agent(seed=source.events(), gone_when_announced=True)
    host.advance(120)
    watched = ("schedule/change", "turn/start")
    assert [e["data"]["operation"] for e in gone.events() if e["type"] in watched] == ["create"]
    assert flushes_of(host, gone) == []


# -- seams a host may lack -------------------------------------------------------------------


@pytest.mark.parametrize("seam", ["durable-change-observer", "transaction-queue"])
def test_no_host_offers_a_seam_inside_the_plugin(host, seam):
    assert host.supports(seam) is False
    assert "plugin" in host.unsupported_reason(seam)
    with pytest.raises(SeamMissing, match=f"cannot provide the '{seam}' seam"):
        require_seam(host, seam)


def test_per_event_durability_is_a_fake_host_seam(host):
    fake = isinstance(host, PythonHostDriver)
    assert host.supports("per-event-durability") is fake
    assert (host.unsupported_reason("per-event-durability") == "") is fake
    if fake:
        require_seam(host, "per-event-durability")  # no skip


def test_an_unknown_seam_is_refused(host):
    with pytest.raises(ValueError, match="unknown seam"):
        host.supports("time-travel")


def test_a_missing_seam_names_the_host_and_its_reason(host):
    missing = "export-shape" if isinstance(host, PythonHostDriver) else "per-event-durability"
    with pytest.raises(SeamMissing) as raised:
        require_seam(host, missing)
    assert str(raised.value) == (
        f"the {host.implementation_name} host cannot provide the {missing!r} seam: "
        f"{host.unsupported_reason(missing)}"
    )


def test_flush_durability_is_every_hosts_and_per_event_only_the_seams(host):
    host.set_durability("flush")  # every host's default, accepted everywhere
    agent = host.create_agent(session_id="durability")
    host.flush_session(agent)
    before = len(host.durable_events("durability"))
    agent.append_event("message", {"role": "user", "content": "not flushed"})
    assert len(host.durable_events("durability")) == before  # durable at a flush only
    if host.supports("per-event-durability"):
        host.set_durability("per-event")
        agent.append_event("message", {"role": "user", "content": "durable at once"})
        assert len(host.durable_events("durability")) > before
    else:
        with pytest.raises(NotImplementedError, match="per-event durability"):
            host.set_durability("per-event")


def test_an_unknown_durability_is_refused(host):
    with pytest.raises(ValueError, match="unknown durability 'eventual'"):
        host.set_durability("eventual")  # type: ignore[arg-type]

"""The live owner at moments no ordinary call reaches: a disposal or a fault
that begins inside its maintenance claim, inside a refused claim or inside its
follow-up, and an agent that is busy with no task running. These express the
official build's runtime tests RT-11c, RT-12b, RT-17b, RT-20a and RT-20b
(docs/official-runtime-tests.md) through the driver's ``act_inside`` actions
and ``hold_busy``.

README: a busy agent rejects the idle-phase claim, the record stays active and
the owner retries after whenIdle() (SCH-047); dispatch means the follow-up was
queued and recorded (SCH-055); an append failure faults that owner because the
message may already be queued (SCH-057); disposal cancels timers, stops new
work and awaits in-flight preflights and idle waits without deleting durable
records (SCH-058). What the owner does when the log cannot be read inside its
claim is left open and pinned to the official build
(SCH-UNREADABLE-LOG-IN-CLAIM).
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.expect import pinned, readme
from dsh_conformance.schedule.session_logs import reminder_texts
from dsh_conformance.schedule.written_logs import (
    Written,
    creates_in,
    transition_events,
    transitions,
)
from dsh_conformance.schedule.written_logs import create as create_record
from pytest_dsh.driving.agent_actions import DisposeAgent, PlanFault

pytestmark = [pytest.mark.dsh_requires("schedule")]

#: What the host does for a session: anything but the appends of its own turns.
WORK = ("flush", "claim", "claim-refused", "followup", "dispatch", "timer-arm", "when-idle")


def create(agent: Any, prompt: str, after_seconds: int) -> Written:
    return create_record(agent, {"prompt": prompt, "after_seconds": after_seconds})


def later_work(host: Any, agent: Any, seconds: float) -> list[tuple[str, str]]:
    """What the host does for ``agent``'s session (and any timer) while
    ``seconds`` pass from now."""
    host.start_trace()
    host.advance(seconds)
    return [
        (entry.kind, entry.detail) for entry in host.trace()
        if entry.kind in WORK and entry.subject in (agent.session_id, "")
    ]


def followups_traced(host: Any, agent: Any) -> int:
    return sum(
        1 for entry in host.trace()
        if entry.kind == "followup" and entry.subject == agent.session_id
    )


# -- RT-11c: a disposal that begins inside the owner's claim ------------------------------


@pytest.mark.spec("SCH-058", "SCH-055")
def test_a_disposal_begun_inside_the_owners_claim_leaves_no_later_work(host, agent):
    first = create(agent, "Stretch", 60)
    second = create(agent, "Drink water", 120)
    agent.act_inside("claim", DisposeAgent())
    host.start_trace()
    host.advance(60)
    disposal = agent.start_dispose()
    assert disposal.done is True and agent.is_live is False, readme(
        "SCH-058", "a disposal begun inside the owner's claim to finish once the task in "
        "progress settled", (disposal.done, agent.is_live))
    done = transitions(agent.events(), [first, second])
    queued = followups_traced(host, agent)
    assert (done, queued) in (([], 0), ([first.id], 1)), readme(
        "SCH-055", "the claim in progress either to dispatch its reminder with one queued "
        "follow-up or to write nothing (dispatch means the follow-up was queued and "
        "recorded)", (transition_events(agent.events(), [first, second]), queued))
    work = later_work(host, agent, 3600)
    assert work == [], readme(
        "SCH-058", "disposal to stop new work: no flush, claim, follow-up or timer once it "
        "finished, though a second reminder falls due", work)
    assert transitions(agent.events(), [first, second]) == done, readme(
        "SCH-058", "nothing dispatched after the disposal, the second reminder included",
        transition_events(agent.events(), [first, second]))
    durable = host.durable_events(agent.session_id)
    assert creates_in(durable, [first, second]) == [first.id, second.id], readme(
        "SCH-058", "disposal to delete no durable record", durable)
    assert host.errors == [], readme("SCH-058", "no host error", host.errors)


# -- RT-12b: a disposal that begins inside a refused claim ---------------------------------


@pytest.mark.spec("SCH-058", "SCH-047")
def test_a_disposal_begun_inside_a_refused_claim_ends_the_idle_wait_it_starts(host, agent):
    record = create(agent, "Stretch", 60)
    hold = agent.hold_maintenance()  # the agent is busy: the due owner is refused
    agent.act_inside("refused-claim", DisposeAgent())
    host.advance(60)
    assert agent.counters().maintenance_refusals >= 1, readme(
        "SCH-047", "the due owner to claim the busy agent and be refused",
        agent.counters())
    disposal = agent.start_dispose()
    hold.release()
    assert disposal.done is True and agent.is_live is False, readme(
        "SCH-058", "the disposal begun inside the refusal to finish once the holder let go, "
        "ending the owner's idle wait", (disposal.done, agent.is_live))
    work = later_work(host, agent, 3600)
    assert work == [], readme(
        "SCH-058", "the ended idle wait not to drive the owner again", work)
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-058", "no dispatch from the idle wait the disposal ended",
        transition_events(agent.events(), [record]))
    durable = host.durable_events(agent.session_id)
    assert creates_in(durable, [record]) == [record.id], readme(
        "SCH-058", "disposal to delete no durable record", durable)


# -- RT-17b: an agent busy with no running task --------------------------------------------


@pytest.mark.spec("SCH-047", "SCH-049")
def test_a_busy_agent_refuses_the_owner_which_retries_once_it_is_idle(host, agent):
    record = create(agent, "Stretch", 60)
    busy = agent.hold_busy()
    host.advance(60)
    counters = agent.counters()
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-047", "no dispatch while the agent is busy", transition_events(
            agent.events(), [record]))
    assert counters.maintenance_refusals >= 1 and counters.when_idle_calls >= 1, readme(
        "SCH-047", "the owner's claim to be refused and the owner to wait with whenIdle()",
        counters)
    listed = agent.call_tool("schedule_list", {}).value
    ids = [view.get("id") for view in listed] if isinstance(listed, list) else listed
    assert ids == [record.id], readme(
        "SCH-047", "the refused record to stay active", listed)
    busy.release()
    assert transitions(agent.events(), [record]) == [record.id], readme(
        "SCH-047", "the owner to retry after whenIdle() and dispatch the reminder once",
        transition_events(agent.events(), [record]))
    assert len(reminder_texts(agent.events())) == 1, readme(
        "SCH-049", "one reminder delivered", reminder_texts(agent.events()))


@pytest.mark.spec("SCH-058")
def test_disposing_a_busy_agent_ends_the_owners_idle_wait_at_once(host, agent):
    record = create(agent, "Stretch", 60)
    busy = agent.hold_busy()  # busy, with no task a disposal would wait for
    host.advance(60)  # the owner is refused and waits for idle
    disposal = agent.start_dispose()
    assert disposal.done is True and agent.is_live is False, readme(
        "SCH-058", "disposal to end the owner's idle wait while the agent is still busy, "
        "not to wait for the agent to become idle", (disposal.done, agent.is_live))
    busy.release()
    work = later_work(host, agent, 3600)
    assert work == [], readme("SCH-058", "no work once disposed", work)
    assert transitions(agent.events(), [record]) == [], readme(
        "SCH-058", "no dispatch from the ended idle wait",
        transition_events(agent.events(), [record]))


# -- RT-20a: the log cannot be read inside the claim ---------------------------------------


@pytest.mark.compat("SCH-UNREADABLE-LOG-IN-CLAIM")
@pytest.mark.spec("SCH-047")
def test_a_log_unreadable_inside_the_claim_is_a_closed_fault(host, agent):
    first = create(agent, "Stretch", 60)
    second = create(agent, "Drink water", 120)
    warned = len(host.warnings)
    agent.act_inside("claim", PlanFault("events"))  # the claim's refold cannot read the log
    host.start_trace()
    host.advance(60)
    pin = "SCH-UNREADABLE-LOG-IN-CLAIM"
    assert transitions(agent.events(), [first, second]) == [], pinned(
        pin, "no dispatch from the claim whose refold failed",
        transition_events(agent.events(), [first, second]))
    assert followups_traced(host, agent) == 0 and agent.queued_followups() == [], pinned(
        pin, "no follow-up queued", agent.queued_followups())
    released = [entry.kind for entry in host.trace() if entry.kind in ("claim", "release")]
    assert released == ["claim", "release"], pinned(
        pin, "the claim released", released)
    new = host.warnings[warned:]
    assert len(new) == 1 and agent.id in new[0] and host.errors == [], pinned(
        pin, f"one host warning naming the agent {agent.id!r}, no host error",
        (new, host.errors))
    listed = agent.call_tool("schedule_list", {}).value
    ids = [view.get("id") for view in listed] if isinstance(listed, list) else listed
    assert agent.is_live is True and ids == [first.id, second.id], pinned(
        pin, "the agent live and its tools answering, both records active", listed)
    work = later_work(host, agent, 3600)
    assert transitions(agent.events(), [first, second]) == [], pinned(
        pin, "the owner to stop driving (as after a corrupt log): neither record dispatched "
        "later", (transition_events(agent.events(), [first, second]), work))


# -- RT-20b: the dispatch append fails after the follow-up was queued ----------------------


@pytest.mark.spec("SCH-057", "SCH-055")
def test_a_dispatch_append_failing_after_the_follow_up_faults_the_owner(host, agent):
    first = create(agent, "Stretch", 60)
    second = create(agent, "Drink water", 120)
    # Started inside the owner's follow-up: the next schedule/change append fails.
    agent.act_inside("followup", PlanFault("append", event_type="schedule/change"))
    host.advance(60)
    assert transitions(agent.events(), [first, second]) == [], readme(
        "SCH-057", "the failed dispatch append to leave no dispatch",
        transition_events(agent.events(), [first, second]))
    delivered = len(reminder_texts(agent.events()))
    assert delivered <= 1, readme(
        "SCH-057", "the follow-up already queued to be delivered at most once",
        reminder_texts(agent.events()))
    host.advance(3600)
    agent.call_tool("schedule_list", {})  # a management preflight
    host.advance(60)
    assert transitions(agent.events(), [first, second]) == [], readme(
        "SCH-057", "a faulted owner to dispatch nothing more, not even the second reminder",
        transition_events(agent.events(), [first, second]))
    assert len(reminder_texts(agent.events())) == delivered, readme(
        "SCH-057", "no reminder delivered again by a faulted owner (its message may "
        "already be queued)", reminder_texts(agent.events()))

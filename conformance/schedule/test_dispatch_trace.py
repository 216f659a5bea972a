"""README section "Delivery lifecycle", read from the host's ordered trace:
where a dispatch happens among the owner's maintenance claim, the follow-up,
its release and the checkpoint flushes (``host.start_trace()``; a ``dispatch``
entry names the schedule id it records)."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.expect import readme
from pytest_dsh.trace import TraceEntry

pytestmark = [pytest.mark.dsh_requires("schedule")]


def _create(agent: Any, arguments: dict[str, Any]) -> str:
    return str(agent.call_tool("schedule_create", arguments).value["id"])


def steps(trace: list[TraceEntry]) -> list[tuple[str, str]]:
    """The trace without appends other than turn openings (kinds with details)."""
    return [
        (e.kind, e.detail) for e in trace
        if e.kind != "append" or e.detail == "turn/start"
    ]


def window(entries: list[tuple[str, str]], dispatched: str) -> list[tuple[str, str]]:
    """From the flush before the claim holding ``dispatched``'s dispatch to the
    flush after its release, appends left out (the follow-up turn may open
    while that checkpoint is in flight)."""
    entries = [entry for entry in entries if entry[0] != "append"]
    at = entries.index(("dispatch", dispatched))
    claim = max(i for i in range(at) if entries[i][0] == "claim")
    start = max(i for i in range(claim) if entries[i][0] == "flush")
    end = next(i for i in range(at, len(entries)) if entries[i][0] == "flush")
    return entries[start : end + 1]


@pytest.mark.spec("SCH-046", "SCH-048", "SCH-052", "SCH-055")
def test_a_dispatch_is_recorded_inside_the_claim_after_its_follow_up_then_checkpointed(
    host, agent
):
    schedule_id = _create(agent, {"prompt": "Stretch", "after_seconds": 60})
    host.start_trace()
    host.advance(60)
    entries = steps(host.trace())
    observed = window(entries, schedule_id)
    expected = [("flush", "durable"), ("claim", ""), ("followup", ""), ("dispatch", schedule_id),
                ("release", ""), ("flush", "durable")]
    assert observed == expected, readme(
        "SCH-046, SCH-048, SCH-052, SCH-055",
        "a durable checkpoint, then in the maintenance claim the follow-up queued and the "
        "dispatch recorded while the input is parked, then, after release, a durable checkpoint",
        entries,
    )
    turn = entries.index(("append", "turn/start"))
    assert turn > entries.index(("release", "")), readme(
        "SCH-052", "the follow-up turn to open only after the claim released", entries)


@pytest.mark.spec("SCH-044")
def test_due_one_shots_are_dispatched_one_claim_and_one_turn_at_a_time(host, agent):
    first = _create(agent, {"prompt": "A", "after_seconds": 60})
    second = _create(agent, {"prompt": "B", "after_seconds": 60})
    host.start_trace()
    host.advance(60)
    entries = steps(host.trace())
    dispatched = [detail for kind, detail in entries if kind == "dispatch"]
    assert dispatched == [first, second], readme(
        "SCH-044", "both due one-shots dispatched, in creation order", entries)
    one, two = (entries.index(("dispatch", sid)) for sid in (first, second))
    between = [kind for kind, _ in entries[one:two]]
    assert between.count("release") == 1 and between.count("claim") == 1, readme(
        "SCH-044", "each one-shot to be dispatched in its own maintenance claim", entries)
    assert ("append", "turn/start") in entries[one:two], readme(
        "SCH-044", "the first reminder's turn to open before the second is dispatched", entries)


@pytest.mark.spec("SCH-045", "SCH-050")
def test_overdue_every_records_are_dispatched_as_one_batch_in_one_claim(host, agent):
    first = _create(agent, {"prompt": "A", "every_seconds": 300})
    second = _create(agent, {"prompt": "B", "every_seconds": 300})
    host.start_trace()
    host.advance(300)
    entries = steps(host.trace())
    one, two = (entries.index(("dispatch", sid)) for sid in (first, second))
    assert two == one + 1, readme(
        "SCH-050", "the batch's dispatches recorded back to back, in creation order", entries)
    assert [kind for kind, _ in entries].count("claim") == 1, readme(
        "SCH-045", "one batch: one maintenance claim for both records", entries)


@pytest.mark.spec("SCH-056")
def test_a_failed_follow_up_records_no_dispatch(host, agent):
    _create(agent, {"prompt": "Stretch", "after_seconds": 60})
    host.faults.fail_followups()
    host.start_trace()
    host.advance(60)
    entries = steps(host.trace())
    assert [kind for kind, _ in entries if kind in ("followup", "dispatch")] == [], readme(
        "SCH-056", "a refused follow-up to leave no dispatch", entries)
    assert ("claim", "") in entries and ("release", "") in entries, readme(
        "SCH-056", "the owner to have tried inside a claim it released", entries)

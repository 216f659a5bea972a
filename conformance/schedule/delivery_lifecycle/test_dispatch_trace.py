"""README section "Delivery lifecycle", read from the host's ordered trace:
where a dispatch happens among the owner's maintenance claim, the follow-up,
its release and the checkpoint flushes (``host.start_trace()``).

The host's ``dispatch`` entries mark a ``schedule/change`` appended inside the
agent's maintenance claim and give its ``seq``, whatever the payload's layout;
the log says which record each names (the one whose id it mentions)."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.written_logs import Written, create, transitions
from pytest_dsh.driving.trace import TraceEntry

pytestmark = [pytest.mark.dsh_requires("schedule")]


def _create(agent: Any, arguments: dict[str, Any]) -> Written:
    return create(agent, arguments)


def steps(trace: list[TraceEntry], agent: Any, records: list[Written]) -> list[tuple[str, str]]:
    """The trace without appends other than turn openings (kinds with details),
    each ``dispatch`` entry shown as ``("dispatch", id)`` with the id of the
    record its log event names."""
    by_seq = {str(event["seq"]): event for event in agent.events()}
    entries = []
    for entry in trace:
        if entry.kind == "dispatch":
            event = by_seq.get(entry.detail, {"type": "", "data": None})
            named = transitions([event], records)
            entries.append(("dispatch", named[0] if named else f"<no event {entry.detail}>"))
        elif entry.kind != "append" or entry.detail == "turn/start":
            entries.append((entry.kind, entry.detail))
    return entries


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
    record = _create(agent, {"prompt": "Stretch", "after_seconds": 60})
    schedule_id = record.id
    host.start_trace()
    host.advance(60)
    entries = steps(host.trace(), agent, [record])
    assert ("dispatch", schedule_id) in entries, readme(
        "SCH-048, SCH-049", "the due one-shot to append, inside a maintenance claim, a "
        "dispatch naming its id", entries)
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
    records = [_create(agent, {"prompt": "A", "after_seconds": 60}),
               _create(agent, {"prompt": "B", "after_seconds": 60})]
    first, second = (record.id for record in records)
    host.start_trace()
    host.advance(60)
    entries = steps(host.trace(), agent, records)
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
    records = [_create(agent, {"prompt": "A", "every_seconds": 300}),
               _create(agent, {"prompt": "B", "every_seconds": 300})]
    first, second = (record.id for record in records)
    host.start_trace()
    host.advance(300)
    entries = steps(host.trace(), agent, records)
    dispatched = [detail for kind, detail in entries if kind == "dispatch"]
    assert dispatched == [first, second], readme(
        "SCH-045, SCH-050", "one dispatch per Every record of the batch, in creation order",
        entries)
    one, two = (entries.index(("dispatch", sid)) for sid in (first, second))
    assert two == one + 1, readme(
        "SCH-050", "the batch's dispatches recorded back to back, in creation order", entries)
    assert [kind for kind, _ in entries].count("claim") == 1, readme(
        "SCH-045", "one batch: one maintenance claim for both records", entries)


@pytest.mark.spec("SCH-056")
def test_a_failed_follow_up_records_no_dispatch(host, agent):
    record = _create(agent, {"prompt": "Stretch", "after_seconds": 60})
    host.faults.fail_followups()
    host.start_trace()
    host.advance(60)
    entries = steps(host.trace(), agent, [record])
    assert [kind for kind, _ in entries if kind in ("followup", "dispatch")] == [], readme(
        "SCH-056", "a refused follow-up to leave no dispatch", entries)
    assert ("claim", "") in entries and ("release", "") in entries, readme(
        "SCH-056", "the owner to have tried inside a claim it released", entries)

"""Schedule logs written through the implementation under test.

A readme-level test may not spell ``schedule/change`` payloads: the README
states what a record contains, never its layout (pinned detail
SCH-PAYLOAD-LAYOUT). So the states such a test needs are reached through the
implementation itself: records are created with ``schedule_create`` at chosen
wall-clock times, reminders dispatch on their own, a crash followed by a jump
of the clock and a resume makes records overdue, and a log one host wrote can
seed another. The events are then read without their layout:

- the create a ``schedule_create`` call appended is the ``schedule/change``
  event that mentions both the id it answered and its trimmed prompt
  (SCH-015);
- every other ``schedule/change`` event is a transition (a delete or a
  dispatch) of the one record whose id it mentions: deletes and dispatches
  carry the id (SCH-017, SCH-049, SCH-050), and never the prompt.

Precondition failures say which README behaviour of the implementation broke
them, never a bare ``KeyError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dsh_conformance.expect import readme
from dsh_conformance.layout_free import SCHEDULE_CHANGE, closed_codes_in, mentions
from dsh_conformance.schedule.tool_values import value_scalars

__all__ = [
    "Written",
    "create",
    "creates_in",
    "log_written_by",
    "overdue_after_resume",
    "transition_events",
    "transition_values",
    "transitions",
]


@dataclass(frozen=True)
class Written:
    """A record an implementation created: its id, trimmed prompt, create value
    and the ``schedule/change`` event the create appended."""

    id: str
    prompt: str
    value: Mapping[str, Any]
    event: Mapping[str, Any]

    def is_create(self, data: Any) -> bool:
        """Whether ``data`` (a ``schedule/change`` payload) is this record's create."""
        return mentions(data, self.id) and mentions(data, self.prompt)


def create(agent: Any, arguments: Mapping[str, Any]) -> Written:
    """Create a reminder through ``schedule_create`` and return what it wrote.

    Fails, naming the sentence, when the call answers no id (SCH-034, SCH-060) or
    appends no ``schedule/change`` event containing that id and the trimmed prompt
    (SCH-015, SCH-034).
    """
    prompt = str(arguments.get("prompt", "")).strip()
    before = len(agent.events())
    outcome = agent.call_tool("schedule_create", dict(arguments))
    value = outcome.value
    schedule_id = value.get("id") if isinstance(value, Mapping) else None
    assert not outcome.is_error and isinstance(schedule_id, str) and schedule_id, readme(
        "SCH-034, SCH-060", f"schedule_create {dict(arguments)} to succeed with a value naming "
        "the allocated id, so the scenario can go on", outcome.value if not outcome.is_error
        else outcome.error)
    assert not closed_codes_in(value), readme(
        "SCH-034", f"schedule_create {dict(arguments)} to succeed, so the scenario can go on",
        value)
    appended = [
        event for event in agent.events()[before:]
        if event["type"] == SCHEDULE_CHANGE
        and mentions(event["data"], schedule_id) and mentions(event["data"], prompt)
    ]
    assert len(appended) == 1, readme(
        "SCH-015, SCH-034", f"the create of {schedule_id!r} to append one schedule/change event "
        f"containing the id and the trimmed prompt {prompt!r}", agent.events()[before:])
    return Written(schedule_id, prompt, value, appended[0])


def creates_in(events: Iterable[Mapping[str, Any]], records: Sequence[Written]) -> list[str]:
    """The ids of the records whose create is in ``events``, in log order."""
    found = []
    for event in events:
        if event["type"] != SCHEDULE_CHANGE:
            continue
        found += [record.id for record in records if record.is_create(event["data"])]
    return found


def transitions(events: Iterable[Mapping[str, Any]], records: Sequence[Written]) -> list[str]:
    """For every ``schedule/change`` event that is not the create of one of
    ``records``, in log order, the id of the one record it mentions (a delete or
    a dispatch); an event that mentions none, or several, shows as its data."""
    found = []
    for event in events:
        data = event["data"]
        if event["type"] != SCHEDULE_CHANGE or any(r.is_create(data) for r in records):
            continue
        named = [record.id for record in records if mentions(data, record.id)]
        found.append(named[0] if len(named) == 1 else f"<no single known id in {data!r}>")
    return found


def transition_events(
    events: Iterable[Mapping[str, Any]], records: Sequence[Written]
) -> list[Mapping[str, Any]]:
    """The ``schedule/change`` events that are not the create of one of
    ``records`` (the deletes and dispatches), in log order."""
    return [
        event for event in events
        if event["type"] == SCHEDULE_CHANGE
        and not any(record.is_create(event["data"]) for record in records)
    ]


def transition_values(
    events: Iterable[Mapping[str, Any]], records: Sequence[Written]
) -> list[tuple[str, list[str]]]:
    """Like :func:`transitions`, each with the values (object keys left out) of
    its event besides the id, as sorted ``repr`` strings: the Every dispatches
    of one batch add the same acceptedAt, so their values are equal (SCH-050)."""
    chosen = transition_events(events, records)
    ids = transitions(chosen, records)
    return [(sid, sorted(repr(v) for v in value_scalars(event["data"]) if v != sid))
            for event, sid in zip(chosen, ids, strict=True)]


def overdue_after_resume(host: Any, agent: Any, seconds: float) -> Any:
    """Crash the host, move both clocks ``seconds`` forward while the session is
    cold, and resume it: its records due meanwhile are overdue at resume (SCH-084)."""
    host.crash()
    host.advance(seconds)
    return host.resume(agent.session_id)


def log_written_by(
    host_factory: Any, creates: Sequence[Mapping[str, Any]], *, start_ms: int
) -> list[dict[str, Any]]:
    """The ``schedule/change`` events a fresh host of the implementation wrote
    for ``creates`` at wall clock ``start_ms``, renumbered from 0, ready to seed
    another session with ``create_agent(seed=...)``."""
    writer = host_factory(start_ms=start_ms)
    writer.load_plugin("schedule")
    agent = writer.create_agent()
    for arguments in creates:
        create(agent, arguments)
    written = [e for e in writer.durable_events(agent.session_id) if e["type"] == SCHEDULE_CHANGE]
    return [{"type": e["type"], "seq": seq, "time": e["time"], "data": e["data"]}
            for seq, e in enumerate(written)]

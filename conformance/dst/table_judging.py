"""What each create of a DST table replay must show, and the words of a disagreement.

A table case is a local ``{date, time}`` with either the instant it resolves to
(``scheduledAt``, the official text) or the code of a gap. Both levels judge
the same create: the readme level asks for one appended change holding the
instant in any RFC 3339 UTC spelling (or, inside a gap, a closed code and
nothing appended); the compat level asks for the official ``scheduledAt`` text
or the official code (SCH-INSTANT-TEXT, SCH-CODE-MAPPING).

A full table is 82,236 creates, nearly all of which agree. :func:`agrees` is a
sufficient condition for both levels finding nothing wrong, decided with a
few comparisons; a create it does not settle is judged in full
(:func:`judge_in_full`), which alone decides and words a failure. So every
verdict and every message is the full judgement's.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from dsh_conformance.layout_free import CLOSED_CODES, NOT_FOUND_CODE, closed_codes_in
from dsh_conformance.schedule.tool_values import (
    epoch_ms,
    instants_in,
    rejection_codes,
    value_scalars,
)

__all__ = ["POSITIONS", "Problems", "TableCase", "agrees", "judge_in_full", "table_cases"]

#: The three cases of a transition row, in replay order.
POSITIONS = ("before", "inside", "after")


class TableCase(NamedTuple):
    """One create of a zone's replay: its table entry and what it must show."""

    row: dict[str, Any]
    position: str
    #: ``row[position]``: ``{date, time}`` and either ``scheduledAt`` or ``code``.
    expected: dict[str, Any]
    #: The epoch ms of ``scheduledAt`` (None inside a gap), parsed once.
    ms: int | None

    def label(self, zone: str) -> str:
        """How a failure names the case: zone, local time, transition kind and position."""
        case = self.expected
        return f"{zone} {case['date']}T{case['time']} ({self.row['kind']} {self.position})"


def table_cases(rows: list[dict[str, Any]]) -> list[TableCase]:
    """The cases of transition ``rows``, their expectations parsed once."""
    cases = []
    for row in rows:
        for position in POSITIONS:
            case = row[position]
            text = case.get("scheduledAt")
            if text is None and case.get("code") not in CLOSED_CODES:
                raise ValueError(f"a gap case without a closed code: {row}")
            cases.append(TableCase(row, position, case, None if text is None else epoch_ms(text)))
    return cases


class Problems(NamedTuple):
    """A zone's disagreements at each level. Each create is judged as it is
    replayed, so a replay keeps only what disagreed: keeping every outcome
    (its tool value included) until both levels had read it made each full
    garbage collection walk them all."""

    readme: list[str]
    pinned: list[str]


def agrees(case: TableCase, value: Any, changes: list[Any]) -> bool:
    """Whether a create certainly satisfies both levels (False: judge it in full).

    A gap is settled by the official code (a closed code) with nothing
    appended; a resolved time by the official ``scheduledAt``, no closed code
    anywhere in the value and one appended change that holds that very text
    (an RFC 3339 UTC spelling of the expected instant).
    """
    fields = value if isinstance(value, dict) else {}
    if case.ms is None:
        code = fields.get("code")
        return not changes and type(code) is str and code == case.expected["code"]
    scheduled_at = fields.get("scheduledAt")
    text = case.expected["scheduledAt"]
    return (len(changes) == 1 and type(scheduled_at) is str and scheduled_at == text
            and no_closed_code(value) and holds_text(changes[0], text))


#: The strings :func:`~dsh_conformance.layout_free.closed_codes_in` looks for.
_CODES = CLOSED_CODES | {NOT_FOUND_CODE}


def no_closed_code(value: Any) -> bool:
    """``not closed_codes_in(value)``: a flat object (a Schedule value) is
    decided by two set lookups; anything nested is walked."""
    if type(value) is dict:
        try:
            return _CODES.isdisjoint(value) and _CODES.isdisjoint(value.values())
        except TypeError:  # a nested object or array is not hashable
            pass
    return not closed_codes_in(value)


def holds_text(change: Any, text: str) -> bool:
    """Whether the string ``text`` is one of a change's values (not keys). The
    official layout keeps it at ``schedule.scheduledAt``, looked at first as a
    shortcut; any other place counts the same."""
    schedule = change.get("schedule") if isinstance(change, dict) else None
    if isinstance(schedule, dict):
        found = schedule.get("scheduledAt")
        if type(found) is str and found == text:
            return True
    return any(type(scalar) is str and scalar == text for scalar in value_scalars(change))


class _Outcome(NamedTuple):
    """What one create showed, as the full judgement reads it."""

    label: str
    case: dict[str, Any]
    codes: frozenset[str]
    appended: int
    instants: frozenset[int]
    #: The value's own code and scheduledAt (the official field names), for compat.
    code: object
    scheduled_at: object


def judge_in_full(zone: str, case: TableCase, value: Any, changes: list[Any],
                  problems: Problems) -> None:
    """Judge one create at both levels, adding each disagreement to ``problems``."""
    fields = value if isinstance(value, dict) else {}
    judged = _Outcome(
        case.label(zone), case.expected, frozenset(rejection_codes(value)), len(changes),
        frozenset(ms for change in changes for ms in instants_in(change)),
        fields.get("code", value), fields.get("scheduledAt", value))
    for found, kept in ((_readme_problem(judged), problems.readme),
                        (_pinned_problem(judged), problems.pinned)):
        if found is not None:
            kept.append(found)


def _readme_problem(outcome: _Outcome) -> str | None:
    case = outcome.case
    if "scheduledAt" in case:
        if outcome.codes or outcome.appended != 1:
            return (f"{outcome.label}: expected one create at {case['scheduledAt']}, got "
                    f"codes {sorted(outcome.codes)} and {outcome.appended} appended changes")
        if epoch_ms(case["scheduledAt"]) not in outcome.instants:
            return (f"{outcome.label}: expected the create record to contain "
                    f"{case['scheduledAt']}, got {outcome.scheduled_at}")
        return None
    if not outcome.codes or outcome.appended:
        return (f"{outcome.label}: expected a rejection with a closed code and nothing "
                f"appended (gap), got {outcome.code} and {outcome.appended} appended changes")
    return None


def _pinned_problem(outcome: _Outcome) -> str | None:
    case = outcome.case
    if "scheduledAt" in case:
        if outcome.scheduled_at != case["scheduledAt"]:
            return f"{outcome.label}: expected scheduledAt {case['scheduledAt']}, got " \
                f"{outcome.scheduled_at}"
    elif outcome.code != case["code"]:
        return f"{outcome.label}: expected {case['code']} (gap), got {outcome.code}"
    return None

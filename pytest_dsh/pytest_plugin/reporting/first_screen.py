"""The first screen of a failing run, as the terminal prints it: the broken
basic behaviours first, each with the failures folded under it, then the
readme causes that fold nowhere, then the compat causes, folded to one line
each below them (the report document's
:class:`~pytest_dsh.pytest_plugin.reporting.views.Failures`; report.md and
report.html open with the same items under the headings named here).

A readme failure is a README sentence broken; a compat failure is a detail
the README leaves open, spelled otherwise than the official build does. So a
plugin whose only difference from the official build is an open value shape
(its error value's field names, its instants' spelling) opens with its real
bugs, and reads its compat difference below them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from pytest_dsh.pytest_plugin.reporting.views import CauseRow, Failures

__all__ = ["COMPAT_HEADING", "COMPAT_LINES", "OTHERS_HEADING", "TERMINAL_CAUSES",
           "first_screen_lines", "sentence_case"]

OTHERS_HEADING: Final = "other README failures (none shows a broken behaviour's symptom)"
COMPAT_HEADING: Final = (
    "compat failures (details the README leaves open, pinned to the official build)"
)
#: Compat causes the terminal names one line each before "see the report".
COMPAT_LINES: Final = 5
#: Numbered items the terminal shows: a first screen, not the whole report.
TERMINAL_CAUSES: Final = 10


def sentence_case(heading: str) -> str:
    """``heading`` with its first letter upper case (``README`` stays)."""
    return heading[:1].upper() + heading[1:]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _cause_lines(rows: Sequence[CauseRow], limit: int, start: int) -> list[str]:
    """One numbered item per cause (count, requirement with its text, what
    failed), its first failure and rerun command, the others counted."""
    lines: list[str] = []
    for number, row in enumerate(rows[:limit], start=start):
        one = row.cause["representative"]
        lines += [
            f"{number:>2}. [{row.count}x] {row.label}",
            f"    {row.line}",
            f"    first: {one['id']}" + (f" (and {row.count - 1} more)" if row.count > 1 else ""),
            f"    rerun: {one['rerun']}",
        ]
    if len(rows) > limit:
        rest = rows[limit:]
        lines.append(
            f"... and {len(rest)} more causes ({sum(row.count for row in rest)} failing "
            "tests; see the report)"
        )
    return lines


def first_screen_lines(
    failures: Failures | Mapping[str, Any], limit: int = TERMINAL_CAUSES
) -> list[str]:
    """The terminal's first screen: numbered broken behaviours, then the other
    readme causes (``limit`` numbered items at most; every broken behaviour is
    shown), then the compat causes one line each. A JSON report document is
    read with :meth:`Failures.of`."""
    if not isinstance(failures, Failures):
        failures = Failures.of(failures)
    broken, others, compat = failures.behaviours, failures.others, failures.compat
    if not failures.causes and not broken:
        return []
    lines = [
        f"{_plural(failures.failing, 'failing test')}: "
        f"{_plural(len(broken), 'basic behaviour')} broken, "
        f"{_plural(len(others), 'other README cause')}, {_plural(len(compat), 'compat cause')}:"
    ]
    for row in broken:
        one = row.behaviour["representative"]
        folded = len(row.behaviour["folded"])
        runs = len(row.behaviour["tests"])
        lines += [
            f"{row.number:>2}. {row.label}",
            f"    {row.line}",
            f"    probe: {one['id']}" + (f" (and {runs - 1} more runs)" if runs > 1 else "")
            + f"; {_plural(folded, 'other failing test')} folded under it",
            f"    rerun: {one['rerun']}",
        ]
    if others:
        if broken:
            lines.append(f"{OTHERS_HEADING}:")
        room = max(limit - len(broken), 0)
        lines += _cause_lines(others, room, start=len(broken) + 1) if room else []
        if not room:
            lines.append(f"... {len(others)} causes; see the report")
    if compat:
        lines.append(f"{COMPAT_HEADING}: {_plural(failures.compat_failing, 'failing test')}")
        lines += [f"    {row.compat_line}" for row in compat[:COMPAT_LINES]]
        if len(compat) > COMPAT_LINES:
            rest = compat[COMPAT_LINES:]
            lines.append(
                f"    ... and {len(rest)} more compat causes "
                f"({sum(row.count for row in rest)} failing tests; see the report)"
            )
    lines.append("every failure by requirement: see the report (failures by requirement)")
    return lines

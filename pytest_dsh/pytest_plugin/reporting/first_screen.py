"""The first screen of a failing run, as text lines (terminal) and data the
Markdown and HTML reports render: the broken basic behaviours first, each
with the failures folded under it, then the causes that fold nowhere.

With no failing probe the first screen is the per-requirement causes,
largest first (:func:`pytest_dsh.pytest_plugin.reporting.summary.cause_lines`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pytest_dsh.pytest_plugin.reporting.causes import first_line, short_text, without_quoted_texts
from pytest_dsh.pytest_plugin.reporting.document import behaviours, causes
from pytest_dsh.pytest_plugin.reporting.summary import TERMINAL_CAUSES, cause_lines

__all__ = ["OTHERS_HEADING", "behaviour_label", "behaviour_line", "first_screen_lines",
           "other_causes", "own_line"]

OTHERS_HEADING: Final = "other failures (may follow from the broken behaviours above)"


def behaviour_label(behaviour: Mapping[str, Any]) -> str:
    """``basic behaviour broken: <sentence> [probe-id; SCH-012]``."""
    ids = "; ".join([str(behaviour["probe"]), *behaviour["sentences"]])
    return f"basic behaviour broken: {behaviour['behaviour']} [{ids}]"


def own_line(test: Mapping[str, Any]) -> str:
    """A failure's own first line (a report row or a representative),
    without the texts it quotes."""
    return short_text(without_quoted_texts(first_line(test["message"], str(test["outcome"]))), 240)


def behaviour_line(behaviour: Mapping[str, Any]) -> str:
    """The first failing run's own first line, without the texts it quotes."""
    return own_line(behaviour["representative"])


def other_causes(document: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The per-requirement causes none of whose tests a broken behaviour
    shows or folds, in their own order (largest first)."""
    shown = {
        test for behaviour in behaviours(document)
        for test in (*behaviour["tests"], *behaviour["folded"])
    }
    return [cause for cause in causes(document) if not set(cause["tests"]) <= shown]


def first_screen_lines(document: Mapping[str, Any], limit: int = TERMINAL_CAUSES) -> list[str]:
    """The terminal's first screen: numbered broken behaviours, then the other
    causes; ``limit`` numbered items at most (every broken behaviour is shown)."""
    broken = behaviours(document)
    if not broken:
        return cause_lines(causes(document), limit)
    others = other_causes(document)
    total = sum(int(cause["count"]) for cause in causes(document))
    lines = [
        f"{total} failing tests: {len(broken)} basic behaviour"
        f"{'s' if len(broken) != 1 else ''} broken, {len(others)} other "
        f"cause{'s' if len(others) != 1 else ''}:"
    ]
    for number, behaviour in enumerate(broken, start=1):
        one = behaviour["representative"]
        folded = len(behaviour["folded"])
        runs = len(behaviour["tests"])
        lines += [
            f"{number:>2}. {behaviour_label(behaviour)}",
            f"    {behaviour_line(behaviour)}",
            f"    probe: {one['id']}" + (f" (and {runs - 1} more runs)" if runs > 1 else "")
            + f"; {folded} other failing test{'s' if folded != 1 else ''} folded under it",
            f"    rerun: {one['rerun']}",
        ]
    if others:
        lines.append(f"{OTHERS_HEADING}:")
        room = max(limit - len(broken), 0)
        lines += cause_lines(others, room, start=len(broken) + 1)[1:] if room else []
        if not room:
            lines.append(f"... {len(others)} causes; see the report")
    lines.append("every failure by requirement: see the report (failures by requirement)")
    return lines


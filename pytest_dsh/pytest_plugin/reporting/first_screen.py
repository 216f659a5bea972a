"""The first screen of a failing run, as text lines (terminal) and data the
Markdown and HTML reports render: the broken basic behaviours first, each
with the failures folded under it, then the readme causes that fold nowhere,
then the compat causes, folded to one line each below them.

A readme failure is a README sentence broken; a compat failure is a detail
the README leaves open, spelled otherwise than the official build does. So a
plugin whose only difference from the official build is an open value shape
(its error value's field names, its instants' spelling) opens with its real
bugs, and reads its compat difference below them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pytest_dsh.pytest_plugin.reporting.causes import (
    cause_label,
    first_line,
    representative_line,
    short_text,
    without_quoted_texts,
)
from pytest_dsh.pytest_plugin.reporting.document import behaviours, causes
from pytest_dsh.pytest_plugin.reporting.summary import TERMINAL_CAUSES, cause_lines

__all__ = ["COMPAT_HEADING", "COMPAT_LINES", "OTHERS_HEADING", "behaviour_label",
           "behaviour_line", "compat_causes", "compat_line", "first_screen_lines", "other_causes",
           "own_line", "sentence_case"]

OTHERS_HEADING: Final = "other README failures (none shows a broken behaviour's symptom)"
COMPAT_HEADING: Final = (
    "compat failures (details the README leaves open, pinned to the official build)"
)
#: Compat causes the terminal names one line each before "see the report".
COMPAT_LINES: Final = 5


def sentence_case(heading: str) -> str:
    """``heading`` with its first letter upper case (``README`` stays)."""
    return heading[:1].upper() + heading[1:]


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


def _shown(document: Mapping[str, Any]) -> set[str]:
    return {
        test for behaviour in behaviours(document)
        for test in (*behaviour["tests"], *behaviour["folded"])
    }


def other_causes(document: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The readme causes none of whose tests a broken behaviour shows or
    folds, in their own order (largest first)."""
    shown = _shown(document)
    return [
        cause for cause in causes(document)
        if cause["requirement"]["level"] != "compat" and not set(cause["tests"]) <= shown
    ]


def compat_causes(document: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The compat causes, largest first: listed below every readme item."""
    return [cause for cause in causes(document) if cause["requirement"]["level"] == "compat"]


def compat_line(cause: Mapping[str, Any]) -> str:
    """``[39x] compat SCH-CODE-MAPPING (title): <what failed>``, one line."""
    requirement = cause["requirement"]
    if cause.get("shape"):
        label = cause_label(cause)
    elif requirement["pinned_details"]:
        label = "compat " + ", ".join(
            f"{p['id']} ({p['title']})" if p.get("title") else str(p["id"])
            for p in requirement["pinned_details"]
        )
    else:  # a compat run of a readme check: its sentence ids, without their texts
        label = "compat " + ", ".join(str(s["id"]) for s in requirement["sentences"])
    return short_text(f"[{cause['count']}x] {label}: {representative_line(cause)}", 240)


def first_screen_lines(document: Mapping[str, Any], limit: int = TERMINAL_CAUSES) -> list[str]:
    """The terminal's first screen: numbered broken behaviours, then the other
    readme causes (``limit`` numbered items at most; every broken behaviour is
    shown), then the compat causes one line each."""
    broken = behaviours(document)
    everything = causes(document)
    if not everything and not broken:
        return []
    others = other_causes(document)
    compat = compat_causes(document)
    total = sum(int(cause["count"]) for cause in everything)
    lines = [
        f"{total} failing test{'s' if total != 1 else ''}: {len(broken)} basic behaviour"
        f"{'s' if len(broken) != 1 else ''} broken, {len(others)} other README "
        f"cause{'s' if len(others) != 1 else ''}, {len(compat)} compat "
        f"cause{'s' if len(compat) != 1 else ''}:"
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
        if broken:
            lines.append(f"{OTHERS_HEADING}:")
        room = max(limit - len(broken), 0)
        lines += cause_lines(others, room, start=len(broken) + 1)[1:] if room else []
        if not room:
            lines.append(f"... {len(others)} causes; see the report")
    if compat:
        count = sum(int(cause["count"]) for cause in compat)
        lines.append(f"{COMPAT_HEADING}: {count} failing test{'s' if count != 1 else ''}")
        lines += [f"    {compat_line(cause)}" for cause in compat[:COMPAT_LINES]]
        if len(compat) > COMPAT_LINES:
            rest = compat[COMPAT_LINES:]
            lines.append(
                f"    ... and {len(rest)} more compat causes "
                f"({sum(int(c['count']) for c in rest)} failing tests; see the report)"
            )
    lines.append("every failure by requirement: see the report (failures by requirement)")
    return lines

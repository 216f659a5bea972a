"""Failures grouped by cause, so that a first run with ten bugs reads as ten items.

A cause is the requirement that broke (the README sentence or pinned-detail
ids the failure message cites, else the ids the test's markers name) together
with the first line of its failure message *normalised*: cut before what was
observed, without the sentence texts it quotes, with quoted values,
timestamps, hex, paths, generated ids and numbers replaced by placeholders, so
385 DST rows that fail the same way (each with its own zone and instant in the
message) are one cause. A failure whose message says the observed value fails
by its shape (``requires ..., but the list value is not an array of records;
observed ...``, see ``dsh_conformance.shapes``) belongs to the cause of that
shape, whatever requirement it broke: one value-shape choice is one item.

Readme causes come before compat causes, each level largest first; each keeps
one representative failure and the ids of all the others.

Pure functions of report rows (the ``tests`` of a report document): every
rendering and the terminal summary use them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

__all__ = [
    "FAILING",
    "SENTENCE_ID",
    "cause_label",
    "cause_order",
    "cited_ids",
    "diagnosis",
    "failure_line",
    "first_line",
    "group_causes",
    "normalise",
    "representative_line",
    "requirement_label",
    "short_text",
    "without_quoted_texts",
]

#: Outcomes a cause is made of: failures, errors and stale known failures.
FAILING: Final = ("failed", "error", "xpassed")

_SUMMARY_LIMIT: Final = 240
_TEXT_LIMIT: Final = 100

# README sentence ids (SCH-012, TC-016) and pinned-detail ids (SCH-CODE-MAPPING).
_README_ID: Final = re.compile(r"\b(?:SCH|TC)-(?:\d{3}|[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)\b")
#: A README sentence id (a cited id that is not a pin).
SENTENCE_ID: Final = re.compile(r"(?:SCH|TC)-\d{3}$")
# What a message quotes beside an id: the sentence text ("..."), or the
# pinned-detail note (the README leaves this open; ... docs/pinned-details.md).
_QUOTED_TEXTS: Final = (
    re.compile(r' \("(?:[^"\\]|\\.)*"\)'),
    re.compile(r" \([^()]*docs/pinned-details\.md\)"),
)
# What was observed varies with the bug's values, not with the bug.
_OBSERVED: Final = re.compile(r";\s*observed\b.*$")
# ``requires <requirement>, but <why>; observed``: why the value fails.
_BUT: Final = ", but "

# Quoted values, left to right so that a closing quote never opens the next
# value; an apostrophe inside a word ("golden's") opens nothing.
_QUOTED: Final = re.compile(
    r'(?P<q>"(?:[^"\\]|\\.)*"|(?<![A-Za-z0-9])\'(?:[^\'\\]|\\.)*\')(?P<key>\s*:)?'
)
# Order matters: timestamps and paths before the numbers inside them.
_RULES: Final = (
    (re.compile(r"`[^`]*`"), "`…`"),
    # ISO-like date-times, with an offset and a bracketed zone when present.
    (
        re.compile(
            r"[+-]?\d{4,6}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"
            r"(?:Z|[+-]\d{2}:\d{2}(?::\d{2})?)?(?:\[[^\]\s]*\])?"
        ),
        "<time>",
    ),
    (re.compile(r"\b\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?\b"), "<time>"),
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
     "<id>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<hex>"),
    (re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b"), "<hex>"),
    # Paths and IANA zone names: at least one slash between name characters.
    (re.compile(r"(?:[A-Za-z]:)?[\w.~-]*(?:/[\w.+-]+)+/?"), "<path>"),
    # Generated ids such as schedule-12 (README ids such as SCH-012 are upper case).
    (re.compile(r"\b[a-z][a-z_]*-\d+\b"), "<id>"),
    (re.compile(r"(?<![\w<.])(?<![A-Z]-)[+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?"), "<n>"),
    (re.compile(r"\s+"), " "),
)


def normalise(message: str | None, outcome: str = "failed") -> str:
    """The first line of ``message`` with its varying values replaced."""
    text = _OBSERVED.sub("", without_quoted_texts(first_line(message, outcome)))
    text = _QUOTED.sub(_placeholder, text)
    for pattern, placeholder in _RULES:
        text = pattern.sub(placeholder, text)
    text = text.strip()
    return text if len(text) <= _SUMMARY_LIMIT else text[:_SUMMARY_LIMIT] + " …"


def first_line(message: str | None, fallback: str) -> str:
    """The first non-blank line of ``message``, stripped; ``fallback`` (the
    outcome) when it has none."""
    return next((line.strip() for line in (message or "").splitlines() if line.strip()), fallback)


def without_quoted_texts(line: str) -> str:
    """``line`` without the sentence texts and pinned-detail notes it quotes."""
    for quoted in _QUOTED_TEXTS:
        line = quoted.sub("", line)
    return line


def cited_ids(message: str | None) -> tuple[str, ...]:
    """The README sentence and pinned-detail ids the first line of a failure
    message cites before ``requires`` (the requirement that broke), in order."""
    line = next((line for line in (message or "").splitlines() if line.strip()), "")
    return tuple(dict.fromkeys(_README_ID.findall(line.split(" requires ", 1)[0])))


def diagnosis(message: str | None) -> str | None:
    """Why the observed value fails, as the first line of ``message`` says
    it (``..., but <why>; observed ...``), or ``None``."""
    head = _OBSERVED.sub("", without_quoted_texts(first_line(message, "")))
    if _BUT not in head:
        return None
    why = head.rsplit(_BUT, 1)[1].strip()
    return why or None


def _placeholder(match: re.Match[str]) -> str:
    # A quoted dict key (followed by a colon) is kept: it names what differs.
    if match["key"]:
        return match[0]
    return match["q"][0] + "…" + match["q"][0]


def short_text(text: str, limit: int = _TEXT_LIMIT) -> str:
    """``text`` cut at a word boundary to about ``limit`` characters."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] or text[:limit]
    return cut.rstrip(",;:") + " …"


def group_causes(
    tests: Sequence[Mapping[str, Any]],
    sentence_texts: Mapping[str, str],
    pin_titles: Mapping[str, str | None],
) -> list[dict[str, Any]]:
    """The failing rows of ``tests`` grouped by cause, largest first.

    ``sentence_texts`` maps README sentence ids to their (English) text and
    ``pin_titles`` pinned-detail ids to their titles; unknown ids are kept
    with no text. Each cause is JSON-ready (the report's ``causes``)."""
    groups: dict[tuple[tuple[str, ...], str, bool], list[Mapping[str, Any]]] = {}
    for test in tests:
        if test["outcome"] not in FAILING:
            continue
        shape = diagnosis(test["message"])
        if shape is not None:
            # One shape, one cause: whatever requirement each failure broke.
            key = ((str(test["level"]),), shape, True)
        else:
            pins = tuple(test["pinned_details"])
            ids = cited_ids(test["message"]) or pins or tuple(test["sentences"])
            # The level too: a compat run of a readme test body is a compat cause.
            key = ((str(test["level"]), *ids), normalise(test["message"], str(test["outcome"])),
                   False)
        groups.setdefault(key, []).append(test)
    causes: list[dict[str, Any]] = []
    for (_, summary, is_shape), members in groups.items():
        first = members[0]
        cited = _cited_by_all(members) if is_shape else cited_ids(first["message"])
        pin_ids = [i for i in cited if not SENTENCE_ID.match(i)] if cited else list(
            first["pinned_details"]
        )
        sentence_ids = [i for i in cited if SENTENCE_ID.match(i)] if cited else list(
            first["sentences"]
        )
        causes.append(
            {
                "count": len(members),
                "summary": summary,
                "requirement": {
                    "level": first["level"],
                    "plugin": first["plugin"],
                    "sentences": [
                        {"id": s, "text": _maybe_short(sentence_texts.get(s))}
                        for s in sentence_ids
                    ],
                    "pinned_details": [{"id": p, "title": pin_titles.get(p)} for p in pin_ids],
                },
                "representative": {
                    "id": first["id"],
                    "outcome": first["outcome"],
                    "message": first["message"],
                    "rerun": first["rerun"],
                },
                "tests": [member["id"] for member in members],
                "shape": summary if is_shape else None,
                "follows": None,
            }
        )
    causes.sort(key=cause_order)
    return causes


def cause_order(cause: Mapping[str, Any]) -> tuple[bool, int, str]:
    """Readme causes first, then compat; largest first within a level."""
    return (cause["requirement"]["level"] != "readme", -int(cause["count"]), cause["tests"][0])


def _cited_by_all(members: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """Every id the failures of a shape cause cite, in order of appearance."""
    return tuple(dict.fromkeys(i for member in members for i in cited_ids(member["message"])))


def _maybe_short(text: str | None) -> str | None:
    return short_text(text) if text else None


def requirement_label(requirement: Mapping[str, Any]) -> str:
    """``readme SCH-013 (text), SCH-034 (text)``; a pinned detail with its title."""
    parts = [
        f"{p['id']} ({p['title']})" if p.get("title") else str(p["id"])
        for p in requirement["pinned_details"]
    ]
    if not parts:
        parts = [
            f"{s['id']} ({s['text']})" if s.get("text") else str(s["id"])
            for s in requirement["sentences"]
        ]
    return f"{requirement['level']} {', '.join(parts) or 'no README sentence named'}"


def cause_label(cause: Mapping[str, Any]) -> str:
    """The requirement label of a cause; for a shape cause the shape and the
    ids its failures cite (their texts would make a paragraph)."""
    requirement = cause["requirement"]
    shape = cause.get("shape")
    if not shape:
        return requirement_label(requirement)
    ids = [str(one["id"]) for one in (*requirement["sentences"], *requirement["pinned_details"])]
    shown = ", ".join(ids[:4]) + (f" and {len(ids) - 4} more" if len(ids) > 4 else "")
    return f"{requirement['level']} value shape: {shape}" + (f" ({shown})" if shown else "")


def representative_line(cause: Mapping[str, Any]) -> str:
    """The representative failure's own first line (not normalised), without
    the requirement's texts it repeats (the label is printed beside it)."""
    one = cause["representative"]
    return failure_line(one["message"], str(one["outcome"]), cause["requirement"])


def failure_line(message: str | None, outcome: str, requirement: Mapping[str, Any]) -> str:
    """The first line of one failure's message, shortened, without the
    requirement label or sentence texts that the cause already shows."""
    line = first_line(message, outcome).removeprefix(requirement_label(requirement) + ": ")
    named = [*requirement["sentences"], *requirement["pinned_details"]]
    for one in named:
        text = one.get("text") or one.get("title")
        if text:
            line = line.replace(f' ("{text}")', "")
    # The pinned-detail note says nothing the label does not: it is a pin.
    line = _QUOTED_TEXTS[1].sub("", line)
    return short_text(line, _SUMMARY_LIMIT)

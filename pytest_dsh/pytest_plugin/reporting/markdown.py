"""The report as Markdown: verdicts, the failures grouped by cause (one
representative with its rerun command, the others folded), then every README
sentence by section with its tests.

Every string that comes from the run (implementation name and version, test
ids, messages, reasons) is escaped: Markdown and HTML in it render literally.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_dsh.pytest_plugin.reporting.causes import (
    cause_label,
    failure_line,
    representative_line,
)
from pytest_dsh.pytest_plugin.reporting.document import behaviours, causes, not_collected
from pytest_dsh.pytest_plugin.reporting.first_screen import (
    COMPAT_HEADING,
    OTHERS_HEADING,
    behaviour_label,
    behaviour_line,
    compat_causes,
    other_causes,
    sentence_case,
)
from pytest_dsh.pytest_plugin.reporting.host_limit_rows import host_limit_line, host_limited
from pytest_dsh.pytest_plugin.reporting.summary import (
    claim_clause,
    count_columns,
    group_tests,
    header_lines,
    stop_line,
)
from pytest_dsh.pytest_plugin.reporting.verdicts import COUNTED, describe_counts

__all__ = ["code", "render_markdown", "text"]

# Characters that open emphasis, links, code, tables or headings; HTML is made
# inert with entities (an entity is itself escaped through "&").
_PUNCTUATION = re.compile(r"([\\`*_\[\]{}|#~!])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def text(value: str) -> str:
    """``value`` as literal inline Markdown (safe in a table cell: one line)."""
    escaped = _PUNCTUATION.sub(r"\\\1", value)
    for raw, entity in _ENTITIES.items():
        escaped = escaped.replace(raw, entity)
    return " ".join(escaped.splitlines())


def code(value: str, *, cell: bool = True) -> str:
    """``value`` as an inline code span: a fence longer than any run of
    backticks in it; ``|`` escaped where the span sits in a table cell."""
    value = " ".join(value.splitlines())
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {value} " if value.startswith("`") or value.endswith("`") else value
    if cell:
        padded = padded.replace("|", "\\|")
    return f"{fence}{padded}{fence}"


def _fence(value: str) -> list[str]:
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + "text", value, fence]


def _anchor(number: int) -> str:
    return f"cause-{number}"


def _causes(
    found: Sequence[Mapping[str, Any]], tests: Mapping[str, Mapping[str, Any]]
) -> list[str]:
    total = sum(int(cause["count"]) for cause in found)
    lines = ["", f"## Failures: {total} from {len(found)} causes", ""]
    lines += ["Largest first; each cause shows one failure, the others are folded.", ""]
    lines += ["| # | failing tests | requirement | what failed |", "|---|---|---|---|"]
    for number, cause in enumerate(found, start=1):
        lines.append(
            f'| <a href="#{_anchor(number)}">{number}</a> | {cause["count"]} '
            f"| {text(cause_label(cause))} "
            f"| {text(representative_line(cause))} |"
        )
    for number, cause in enumerate(found, start=1):
        one = cause["representative"]
        count = int(cause["count"])
        lines += [
            "",
            f'<a id="{_anchor(number)}"></a>',
            "",
            f"### {number}. {text(cause_label(cause))}",
            "",
            f"{count} failing test{'s' if count != 1 else ''}; cause: {code(cause['summary'])}",
            "",
            f"#### {code(one['id'], cell=False)}",
            "",
            f"{text(str(one['outcome']))}; the first of this cause",
            "",
            *_fence(one["message"] or str(one["outcome"])),
            "",
            "Rerun:",
            "",
            *_fence(one["rerun"]),
        ]
        others = [tests[i] for i in cause["tests"] if i != one["id"] and i in tests]
        if others:
            lines += ["", f"<details><summary>{len(others)} more with this cause</summary>", ""]
            lines += [
                f"- {code(t['id'], cell=False)}: "
                + text(failure_line(t["message"], str(t["outcome"]), cause["requirement"]))
                for t in others
            ]
            lines += ["", "</details>"]
    return lines


def _first_screen(document: Mapping[str, Any]) -> list[str]:
    """The broken basic behaviours (failing probes), then the causes that
    fold under none of them; nothing when no probe failed."""
    broken = behaviours(document)
    if not broken:
        return []
    others = other_causes(document)
    lines = ["", f"## Broken basic behaviours ({len(broken)})", ""]
    lines += ["Each names a failing probe and folds the readme failures that show its "
              "symptom (they break only sentences the probe breaks); fix these first.", ""]
    lines += ["| # | behaviour | folded failures | first failure |", "|---|---|---|---|"]
    for number, one in enumerate(broken, start=1):
        lines.append(
            f"| {number} | {text(behaviour_label(one))} | {len(one['folded'])} "
            f"| {text(behaviour_line(one))} |"
        )
    if others:
        lines += ["", f"{sentence_case(OTHERS_HEADING)}:", ""]
        lines += ["| # | failing tests | requirement | what failed |", "|---|---|---|---|"]
        lines += [
            f"| {number} | {cause['count']} | {text(cause_label(cause))} "
            f"| {text(representative_line(cause))} |"
            for number, cause in enumerate(others, start=len(broken) + 1)
        ]
    compat = compat_causes(document)
    if compat:
        count = sum(int(cause["count"]) for cause in compat)
        lines += ["", f"{sentence_case(COMPAT_HEADING)}: {count} failing tests from "
                  f"{len(compat)} causes, listed last under Failures below.", ""]
    for number, one in enumerate(broken, start=1):
        lines += ["", f"### {number}. {text(behaviour_label(one))}", ""]
        lines += [f"Probe {code(one['representative']['id'], cell=False)}:", ""]
        lines += _fence(one["representative"]["message"] or str(one["representative"]["outcome"]))
        lines += ["", "Rerun:", "", *_fence(one["representative"]["rerun"])]
    return lines


def render_markdown(document: Mapping[str, Any]) -> str:
    verdict = document["verdict"]
    tests = {test["id"]: test for test in document["tests"]}
    lines = ["# Conformance report", ""]
    lines += [f"- {text(line)}" for line in header_lines(document)]
    lines += [
        "",
        f"**Verdict: {verdict['overall']}** (exit status {verdict['exit_status']})"
        f"{claim_clause(verdict['overall'])}",
        "",
    ]
    stopped = stop_line(document)
    if stopped is not None:
        lines += [f"**{text(stopped)}**", ""]
    columns = count_columns(document)
    lines += ["| level | plugin | verdict | " + " | ".join(columns) + " |"]
    lines += ["|---" * (len(columns) + 3) + "|"]
    for level, entry in verdict["levels"].items():
        for plugin, one in entry["plugins"].items():
            counts = one["counts"]
            note = f" ({text(one['note'])})" if one["note"] else ""
            lines.append(
                f"| {level} | {text(plugin)} | {one['verdict']}{note} | "
                + " | ".join(str(counts.get(o, 0)) for o in columns)
                + " |"
            )
    broken = not_collected(document)
    if broken:
        lines += ["", f"## Not collected ({len(broken)})", ""]
        lines += ["Parts of the suite that failed to load; their tests never ran.", ""]
        lines += ["| collector | error |", "|---|---|"]
        lines += [f"| {code(label)} | {text(message)} |" for label, message in broken]
    lines += _first_screen(document)
    found = causes(document)
    if found:
        lines += _causes(found, tests)
    known = [t for t in document["tests"] if t["outcome"] == "xfailed"]
    if known:
        lines += ["", f"## Known failures ({len(known)})", "", "| test | reason |", "|---|---|"]
        lines += [f"| {code(t['id'])} | {text(t['known_failure'] or '')} |" for t in known]
    limited = host_limited(document)
    if limited:
        lines += ["", f"## Host limits ({len(limited)})", "", text(host_limit_line(limited) or "")]
        lines += ["", "| test | outcome | reason |", "|---|---|---|"]
        lines += [
            f"| {code(t['id'])} | {t['outcome']} | {text(t.get('host_limit') or '')} |"
            for t in limited
        ]
    lines += ["", "## README sentences and their tests"]
    for section in document["sections"]:
        title = section["title"]
        if section["original_title"] not in title:
            title += f" ({section['original_title']})"
        lines += ["", f"### {section['plugin']}: {text(title)}", ""]
        lines += ["| id | sentence | tests |", "|---|---|---|"]
        for sentence in section["sentences"]:
            cell = text(sentence["text"])
            if sentence["original"]:
                cell += f"<br>原文: {text(sentence['original'])}"
            groups = group_tests(sentence["tests"], tests)
            cells = "<br>".join(
                f"{code(group.function)} [{group.level}]: {group.status}" for group in groups
            )
            lines.append(f"| {sentence['id']} | {cell} | {cells or 'no test in this run'} |")
    if document["pinned_details"]:
        lines += ["", "## Pinned details (compat level)", ""]
        lines += ["| id | detail | tests |", "|---|---|---|"]
        for pin in document["pinned_details"]:
            outcomes = Counter(str(tests[i]["outcome"]) for i in pin["tests"] if i in tests)
            status = describe_counts(outcomes, COUNTED)
            lines.append(f"| {text(pin['id'])} | {text(pin['title'] or '')} | {status} |")
        for pin in document["pinned_details"]:
            lines += ["", f"### {text(pin['id'])}", "", *_fence(pin["value"] or "")]
            groups = group_tests(pin["tests"], tests)
            lines += [""] + [f"- {code(g.function, cell=False)}: {g.status}" for g in groups]
    other = [t["id"] for t in document["tests"] if not t["sentences"] and not t["pinned_details"]]
    if other:
        lines += ["", "## Tests naming no README sentence", ""]
        lines += [
            f"- {code(group.function, cell=False)}: {group.status}"
            for group in group_tests(other, tests)
        ]
    return "\n".join(lines) + "\n"

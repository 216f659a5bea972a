"""The report as Markdown: verdicts, the failures grouped by cause (one
representative with its rerun command, the others folded), then every README
sentence by section with its tests.

Every string that comes from the run (implementation name and version, test
ids, messages, reasons) is escaped: Markdown and HTML in it render literally.
"""

from __future__ import annotations

import re
from collections import Counter

from pytest_dsh.pytest_plugin.reporting.first_screen import (
    COMPAT_HEADING,
    OTHERS_HEADING,
    sentence_case,
)
from pytest_dsh.pytest_plugin.reporting.summary import group_tests
from pytest_dsh.pytest_plugin.reporting.verdicts import COUNTED, describe_counts
from pytest_dsh.pytest_plugin.reporting.views import Failures, ReportDocument

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


def _causes(failures: Failures) -> list[str]:
    found = failures.causes
    lines = ["", f"## Failures: {failures.failing} from {len(found)} causes", ""]
    lines += ["Largest first; each cause shows one failure, the others are folded.", ""]
    lines += ["| # | failing tests | requirement | what failed |", "|---|---|---|---|"]
    for row in found:
        lines.append(
            f'| <a href="#{_anchor(row.number)}">{row.number}</a> | {row.count} '
            f"| {text(row.label)} "
            f"| {text(row.line)} |"
        )
    for row in found:
        one = row.cause["representative"]
        count = row.count
        lines += [
            "",
            f'<a id="{_anchor(row.number)}"></a>',
            "",
            f"### {row.number}. {text(row.label)}",
            "",
            f"{count} failing test{'s' if count != 1 else ''}; "
            f"cause: {code(row.cause['summary'])}",
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
        if row.folded:
            lines += ["", f"<details><summary>{len(row.folded)} more with this cause</summary>",
                      ""]
            lines += [f"- {code(f.test['id'], cell=False)}: " + text(f.line) for f in row.folded]
            lines += ["", "</details>"]
    return lines


def _first_screen(document: ReportDocument) -> list[str]:
    """The broken basic behaviours (failing probes), then the causes that
    fold under none of them; nothing when no probe failed."""
    failures = document.failures
    broken = failures.behaviours
    if not broken:
        return []
    lines = ["", f"## Broken basic behaviours ({len(broken)})", ""]
    lines += ["Each names a failing probe and folds the readme failures that show its "
              "symptom (they break only sentences the probe breaks); fix these first.", ""]
    lines += ["| # | behaviour | folded failures | first failure |", "|---|---|---|---|"]
    for row in broken:
        lines.append(
            f"| {row.number} | {text(row.label)} | {len(row.behaviour['folded'])} "
            f"| {text(row.line)} |"
        )
    if failures.others:
        lines += ["", f"{sentence_case(OTHERS_HEADING)}:", ""]
        lines += ["| # | failing tests | requirement | what failed |", "|---|---|---|---|"]
        lines += [
            f"| {number} | {row.count} | {text(row.label)} | {text(row.line)} |"
            for number, row in enumerate(failures.others, start=len(broken) + 1)
        ]
    if failures.compat:
        lines += ["", f"{sentence_case(COMPAT_HEADING)}: {failures.compat_failing} failing tests "
                  f"from {len(failures.compat)} causes, listed last under Failures below.", ""]
    for row in broken:
        one = row.behaviour["representative"]
        lines += ["", f"### {row.number}. {text(row.label)}", ""]
        lines += [f"Probe {code(one['id'], cell=False)}:", ""]
        lines += _fence(one["message"] or str(one["outcome"]))
        lines += ["", "Rerun:", "", *_fence(one["rerun"])]
    return lines


def render_markdown(document: ReportDocument) -> str:
    """report.md: renders ``document`` as it is (nothing is regrouped)."""
    verdicts = document.verdicts
    tests = document.tests
    data = document.json
    lines = ["# Conformance report", ""]
    lines += [f"- {text(line)}" for line in document.header]
    lines += [
        "",
        f"**Verdict: {verdicts.overall}** (exit status {verdicts.exit_status}){verdicts.claim}",
        "",
    ]
    if document.stopped is not None:
        lines += [f"**{text(document.stopped)}**", ""]
    columns = verdicts.columns
    lines += ["| level | plugin | verdict | " + " | ".join(columns) + " |"]
    lines += ["|---" * (len(columns) + 3) + "|"]
    for row in verdicts.rows:
        note = f" ({text(row.note)})" if row.note else ""
        lines.append(
            f"| {row.level} | {text(row.plugin)} | {row.verdict}{note} | "
            + " | ".join(str(row.counts.get(o, 0)) for o in columns)
            + " |"
        )
    broken = document.not_collected
    if broken:
        lines += ["", f"## Not collected ({len(broken)})", ""]
        lines += ["Parts of the suite that failed to load; their tests never ran.", ""]
        lines += ["| collector | error |", "|---|---|"]
        lines += [f"| {code(label)} | {text(message)} |" for label, message in broken]
    lines += _first_screen(document)
    if document.failures.causes:
        lines += _causes(document.failures)
    known = document.known
    if known:
        lines += ["", f"## Known failures ({len(known)})", "", "| test | reason |", "|---|---|"]
        lines += [f"| {code(t['id'])} | {text(t['known_failure'] or '')} |" for t in known]
    limited = document.host_limits
    if limited:
        lines += ["", f"## Host limits ({len(limited)})", "", text(document.host_limit_line or "")]
        lines += ["", "| test | outcome | reason |", "|---|---|---|"]
        lines += [
            f"| {code(t['id'])} | {t['outcome']} | {text(t.get('host_limit') or '')} |"
            for t in limited
        ]
    lines += ["", "## README sentences and their tests"]
    for section in data["sections"]:
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
    if data["pinned_details"]:
        lines += ["", "## Pinned details (compat level)", ""]
        lines += ["| id | detail | tests |", "|---|---|---|"]
        for pin in data["pinned_details"]:
            outcomes = Counter(str(tests[i]["outcome"]) for i in pin["tests"] if i in tests)
            status = describe_counts(outcomes, COUNTED)
            lines.append(f"| {text(pin['id'])} | {text(pin['title'] or '')} | {status} |")
        for pin in data["pinned_details"]:
            lines += ["", f"### {text(pin['id'])}", "", *_fence(pin["value"] or "")]
            groups = group_tests(pin["tests"], tests)
            lines += [""] + [f"- {code(g.function, cell=False)}: {g.status}" for g in groups]
    other = document.untraced
    if other:
        lines += ["", "## Tests naming no README sentence", ""]
        lines += [
            f"- {code(group.function, cell=False)}: {group.status}"
            for group in group_tests(other, tests)
        ]
    return "\n".join(lines) + "\n"

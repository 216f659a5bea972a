"""The report as Markdown: verdicts, failures with rerun commands, then every
README sentence by section with its tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_dsh.reporting.document import failures, not_collected
from pytest_dsh.reporting.summary import group_tests, header_lines

__all__ = ["render_markdown"]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _fence(text: str) -> list[str]:
    longest = max((len(run) for run in text.split("\n") if set(run) == {"`"}), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, text, fence]


def render_markdown(document: Mapping[str, Any]) -> str:
    verdict = document["verdict"]
    tests = {test["id"]: test for test in document["tests"]}
    lines = ["# Conformance report", ""]
    lines += [f"- {line}" for line in header_lines(document)]
    lines += ["", f"**Verdict: {verdict['overall']}** (exit status {verdict['exit_status']})", ""]
    columns = ("passed", "failed", "error", "xpassed", "xfailed", "skipped")
    lines += ["| level | plugin | verdict | " + " | ".join(columns) + " |"]
    lines += ["|---" * (len(columns) + 3) + "|"]
    for level, entry in verdict["levels"].items():
        for plugin, one in entry["plugins"].items():
            counts = one["counts"]
            note = f" ({one['note']})" if one["note"] else ""
            lines.append(
                f"| {level} | {plugin} | {one['verdict']}{note} | "
                + " | ".join(str(counts[o]) for o in columns)
                + " |"
            )
    broken = not_collected(document)
    if broken:
        lines += ["", f"## Not collected ({len(broken)})", ""]
        lines += ["Parts of the suite that failed to load; their tests never ran.", ""]
        lines += ["| collector | error |", "|---|---|"]
        lines += [f"| `{label}` | {_cell(message)} |" for label, message in broken]
    failing = failures(document)
    if failing:
        lines += ["", "## Failures", ""]
        for test in failing:
            sentences = ", ".join(test["sentences"]) or "none"
            pinned = ", ".join(test["pinned_details"])
            pins = f"; pinned details {pinned}" if pinned else ""
            lines += [f"### `{test['id']}`", ""]
            lines += [
                f"{test['outcome']}; level {test['level']}; README sentences {sentences}{pins}",
                "",
            ]
            lines += _fence(test["message"] or test["outcome"])
            lines += ["", "Rerun:", "", *_fence(test["rerun"]), ""]
    known = [t for t in document["tests"] if t["outcome"] == "xfailed"]
    if known:
        lines += ["", f"## Known failures ({len(known)})", "", "| test | reason |", "|---|---|"]
        lines += [f"| `{t['id']}` | {_cell(t['known_failure'] or '')} |" for t in known]
    lines += ["", "## README sentences and their tests"]
    for section in document["sections"]:
        title = section["title"]
        if section["original_title"] not in title:
            title += f" ({section['original_title']})"
        lines += ["", f"### {section['plugin']}: {title}", ""]
        lines += ["| id | sentence | tests |", "|---|---|---|"]
        for sentence in section["sentences"]:
            text = _cell(sentence["text"])
            if sentence["original"]:
                text += f"<br>原文: {_cell(sentence['original'])}"
            groups = group_tests(sentence["tests"], tests)
            cells = "<br>".join(
                f"`{group.function}` [{group.level}]: {group.status}" for group in groups
            )
            lines.append(f"| {sentence['id']} | {text} | {cells or 'no test in this run'} |")
    if document["pinned_details"]:
        lines += ["", "## Pinned details (compat level)", ""]
        lines += ["| id | detail | value | tests |", "|---|---|---|---|"]
        for pin in document["pinned_details"]:
            groups = group_tests(pin["tests"], tests)
            cells = "<br>".join(f"`{group.function}`: {group.status}" for group in groups)
            lines.append(
                f"| {pin['id']} | {_cell(pin['title'] or '')} | {_cell(pin['value'] or '')} "
                f"| {cells} |"
            )
    other = [t["id"] for t in document["tests"] if not t["sentences"] and not t["pinned_details"]]
    if other:
        lines += ["", "## Tests naming no README sentence", ""]
        lines += [f"- `{group.function}`: {group.status}" for group in group_tests(other, tests)]
    return "\n".join(lines) + "\n"

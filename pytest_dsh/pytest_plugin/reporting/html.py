"""The report as one self-contained HTML file (inline CSS, no script, no
external resource): the verdicts, the broken basic behaviours (failing
probes, each with the failures folded under it), the failures grouped by
cause (one failure with its message and rerun command, the others folded),
then each README section with its sentences and tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from pytest_dsh.pytest_plugin.reporting.first_screen import (
    COMPAT_HEADING,
    OTHERS_HEADING,
    sentence_case,
)
from pytest_dsh.pytest_plugin.reporting.summary import TestGroup, group_tests
from pytest_dsh.pytest_plugin.reporting.verdicts import COUNTED, WORDS, describe_counts
from pytest_dsh.pytest_plugin.reporting.views import (
    BehaviourRow,
    CauseRow,
    FoldedTest,
    ReportDocument,
)

__all__ = ["render_html"]

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:72rem;
padding:1rem 1.5rem;color:#1b1f24;line-height:1.45}
h1{font-size:1.6rem;margin:.2rem 0}h2{margin-top:2rem;border-bottom:2px solid #d0d7de}
h3{font-size:1.05rem;margin:.3rem 0}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{border:1px solid #d0d7de;padding:.3rem .5rem;vertical-align:top;text-align:left}
th{background:#f6f8fa}
code,pre{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.85rem}
pre{background:#f6f8fa;padding:.5rem;overflow-x:auto;white-space:pre-wrap;margin:.3rem 0}
.verdict{display:inline-block;padding:.15rem .6rem;border-radius:1rem;font-weight:600}
.big{font-size:1.3rem}
.o{display:inline-block;padding:0 .35rem;border-radius:.3rem;font-size:.8rem;font-weight:600}
.o-passed{background:#dafbe1;color:#116329}.o-failed,.o-error,.o-xpassed{background:#ffebe9;color:#a40e26}
.o-xfailed{background:#fff8c5;color:#7d4e00}
.o-host-limit,.o-host-limit-lifted{background:#ddf4ff;color:#0a3069}.o-skipped,.o-not-run{background:#eaeef2;color:#424a53}
.failure{border-left:4px solid #cf222e;padding:.2rem .8rem;margin:1rem 0;background:#fffafa}
.original{color:#57606a;margin-top:.2rem}
.level{font-size:.75rem;color:#57606a}
details{margin:.6rem 0}summary{cursor:pointer;font-weight:600}
ul.tests{margin:0;padding-left:1rem}ul.tests code{word-break:break-all}
td.sentence{width:42%}td.id{white-space:nowrap}
.count{display:inline-block;min-width:2.2rem;padding:0 .4rem;margin-right:.4rem;border-radius:.3rem;
background:#ffebe9;color:#a40e26;font-weight:700;text-align:center}
.cause-summary{color:#57606a;font-size:.85rem}
ol.others{padding-left:1.4rem}ol.others li{margin:.4rem 0}
ol.others pre{margin:.2rem 0}
.behaviour{border-left-color:#8250df;background:#fbf8ff}
.count.b{background:#fbefff;color:#6639ba}
"""

#: The colours of a verdict by its tone (pytest_dsh.pytest_plugin.reporting.verdicts).
_TONES = {
    "good": "background:#dafbe1;color:#116329",
    "known": "background:#fff8c5;color:#7d4e00",
    "bad": "background:#ffebe9;color:#a40e26",
    "none": "background:#eaeef2;color:#424a53",
    "halt": "background:#ddf4ff;color:#0a3069",
}


def _slug(text: str) -> str:
    return "-".join(text.lower().split())


# One rule per verdict word, so a word added to the table is coloured by its tone.
_VERDICT_CSS = "".join(f".v-{_slug(one.text)}{{{_TONES[one.tone]}}}\n" for one in WORDS)


def _verdict(verdict: str, big: bool = False) -> str:
    extra = " big" if big else ""
    return f'<span class="verdict v-{_slug(verdict)}{extra}">{escape(verdict)}</span>'


def _outcome(outcome: str, text: str | None = None) -> str:
    return f'<span class="o o-{_slug(outcome)}">{escape(text or outcome)}</span>'


def _groups(groups: Sequence[TestGroup]) -> str:
    if not groups:
        return '<span class="level">no test in this run</span>'
    items = []
    for group in groups:
        notable = "".join(
            f'<li>{_outcome(t["outcome"])} <a href="#{escape(_slug(t["id"]))}"><code>'
            f'{escape(t["id"].removeprefix(group.function))}</code></a></li>'
            for t in group.notable
            if t["outcome"] != "xfailed"
        )
        items.append(
            f"<li>{_outcome(group.worst, group.status)} <code>{escape(group.function)}</code> "
            f'<span class="level">{escape(group.level)}</span>'
            + (f'<ul class="tests">{notable}</ul>' if notable else "")
            + "</li>"
        )
    return f'<ul class="tests">{"".join(items)}</ul>'


def _failure_meta(test: Mapping[str, Any]) -> str:
    sentences = ", ".join(test["sentences"]) or "none"
    pins = ", ".join(test["pinned_details"])
    meta = f"{_outcome(test['outcome'])} level <b>{escape(test['level'])}</b>, plugin " \
        f"<b>{escape(test['plugin'])}</b>, README sentences {escape(sentences)}"
    if pins:
        meta += f", pinned details {escape(pins)}"
    return meta


def _one_failure(test: Mapping[str, Any], *, anchor: bool = True) -> str:
    """One failure in full; ``anchor=False`` where the same test is also shown
    under its cause (which holds the test's anchor)."""
    known = (
        f"<p>Listed as a known failure: {escape(test['known_failure'])}</p>"
        if test["known_failure"] else ""
    )
    where = f' id="{escape(_slug(test["id"]))}"' if anchor else ""
    return (
        f'<div class="one"{where}>'
        f"<p><code>{escape(test['id'])}</code><br>{_failure_meta(test)}</p>{known}"
        f'<pre class="message">{escape(test["message"] or test["outcome"])}</pre>'
        f'<p>Rerun:</p><pre class="rerun">{escape(test["rerun"])}</pre></div>'
    )


def _cause(row: CauseRow) -> str:
    shown = _one_failure(row.representative) if row.representative is not None else ""
    folded = (
        f"<details><summary>{len(row.folded)} more with this cause</summary>"
        '<ol class="others">' + "".join(f"<li>{_one_failure(f.test)}</li>" for f in row.folded)
        + "</ol></details>"
        if row.folded else ""
    )
    home = row.cause.get("follows")
    follows = (
        f'; folded under <a href="#behaviour-{escape(_slug(home))}">{escape(home)}</a>'
        if home else ""
    )
    return (
        f'<article class="failure cause" id="cause-{row.number}">'
        f'<h3><span class="count">{row.count}</span>{row.number}. '
        f"{escape(row.label)}</h3>"
        f'<p class="cause-summary">cause: <code>{escape(row.cause["summary"])}</code>{follows}</p>'
        f"{shown}{folded}</article>"
    )


def _folded_line(folded: FoldedTest) -> str:
    """A folded failure as one line: a link to it in full under its cause."""
    test = folded.test
    return (
        f'<li>{_outcome(test["outcome"])} <a href="#{escape(_slug(test["id"]))}"><code>'
        f'{escape(test["id"])}</code></a><br><code>{escape(folded.line)}</code></li>'
    )


def _behaviour(row: BehaviourRow) -> str:
    one = row.behaviour
    probe = row.representative
    shown = _one_failure(probe, anchor=False) if probe is not None else ""
    folded = row.folded
    runs = len(one["tests"])
    more = f" (and {runs - 1} more runs of the probe)" if runs > 1 else ""
    details = (
        f"<details><summary>{len(folded)} failure{'s' if len(folded) != 1 else ''} folded "
        'under it</summary><ol class="others">'
        + "".join(_folded_line(f) for f in folded) + "</ol></details>"
        if folded else "<p>No other failure folded under it.</p>"
    )
    return (
        f'<article class="failure behaviour" id="behaviour-{escape(_slug(one["probe"]))}">'
        f'<h3><span class="count b">{len(folded)}</span>{row.number}. '
        f"{escape(row.label)}</h3>"
        f'<p class="cause-summary">probe{escape(more)}: '
        f"<code>{escape(row.line)}</code></p>{shown}{details}</article>"
    )


def _cause_rows(rows: Sequence[CauseRow]) -> str:
    return "".join(
        f'<tr><td><a href="#cause-{row.number}">{row.number}</a></td><td>{row.count}</td>'
        f"<td>{escape(row.label)}</td><td><code>{escape(row.line)}</code></td></tr>"
        for row in rows
    )


def _behaviours(document: ReportDocument) -> list[str]:
    """The broken basic behaviours (failing probes) with the failures folded
    under each, then the causes that fold under none; nothing when no probe
    failed (docs/validate-your-plugin.md states the folding rule)."""
    failures = document.failures
    broken = failures.behaviours
    if not broken:
        return []
    rows = "".join(
        f'<tr><td><a href="#behaviour-{escape(_slug(row.behaviour["probe"]))}">{row.number}'
        f"</a></td><td>{escape(row.label)}</td><td>{len(row.behaviour['folded'])}</td>"
        f"<td><code>{escape(row.line)}</code></td></tr>"
        for row in broken
    )
    out = [
        f'<section id="behaviours"><h2>Broken basic behaviours ({len(broken)})</h2>'
        "<p>Each names a failing probe and folds the readme failures that show its "
        "symptom (they break only sentences the probe breaks); fix these first.</p>"
        '<table class="behaviours"><tr><th>#</th><th>behaviour</th><th>folded failures</th>'
        f"<th>first failure</th></tr>{rows}</table>"
    ]
    if failures.others:
        out.append(
            f'<div id="other-causes"><p>{escape(sentence_case(OTHERS_HEADING))}:</p>'
            '<table><tr><th>cause</th><th>failing tests</th><th>requirement</th>'
            "<th>what failed</th></tr>" + _cause_rows(failures.others) + "</table></div>"
        )
    if failures.compat:
        out.append(
            f"<p>{escape(sentence_case(COMPAT_HEADING))}: {failures.compat_failing} failing "
            f"tests from {len(failures.compat)} causes, listed last under the failures below.</p>"
        )
    out += [_behaviour(row) for row in broken]
    out.append("</section>")
    return out


def _cause_table(rows: Sequence[CauseRow]) -> str:
    return (
        '<table class="causes"><tr><th>#</th><th>failing tests</th><th>requirement</th>'
        f"<th>what failed</th></tr>{_cause_rows(rows)}</table>"
    )


def _stopped(document: ReportDocument) -> list[str]:
    line = document.stopped
    return [] if line is None else [f'<p id="stopped"><b>{escape(line)}</b></p>']


def _host_limits(document: ReportDocument) -> list[str]:
    rows = document.host_limits
    if not rows:
        return []
    out = [
        f'<section id="host-limits"><h2>Host limits ({len(rows)})</h2>'
        f"<p>{escape(document.host_limit_line or '')}</p><details>"
        "<summary>Tests no plugin can pass on this DSH host, and why</summary><table>"
        "<tr><th>test</th><th>outcome</th><th>reason</th></tr>"
    ]
    out += [
        f"<tr><td><code>{escape(t['id'])}</code></td><td>{_outcome(t['outcome'])}</td>"
        f"<td>{escape(t.get('host_limit') or '')}</td></tr>"
        for t in rows
    ]
    out.append("</table></details></section>")
    return out


def render_html(document: ReportDocument) -> str:
    """report.html: renders ``document`` as it is (nothing is regrouped)."""
    verdicts = document.verdicts
    tests = document.tests
    data = document.json
    impl = data["implementation"]
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Conformance report: {escape(impl['name'])} {escape(impl['version'])}</title>",
        f"<style>{_CSS}{_VERDICT_CSS}</style></head><body>",
        "<header>",
        f"<h1>Conformance report: {escape(impl['name'])} {escape(impl['version'])}</h1>",
        f'<p id="overall">Verdict: {_verdict(verdicts.overall, big=True)} '
        f"(exit status {verdicts.exit_status}){escape(verdicts.claim)}</p>",
        *_stopped(document),
        "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in document.header) + "</ul>",
        f"<pre>{escape(data['command'])}</pre>",
        "</header>",
        '<section id="verdicts"><h2>Verdicts by level and plugin</h2><table>',
        "<tr><th>level</th><th>plugin</th><th>verdict</th>"
        + "".join(f"<th>{escape(o)}</th>" for o in verdicts.columns)
        + "</tr>",
    ]
    for row in verdicts.rows:
        note = f'<div class="level">{escape(row.note)}</div>' if row.note else ""
        out.append(
            f"<tr><td>{escape(row.level)}</td><td>{escape(row.plugin)}</td>"
            f"<td>{_verdict(row.verdict)}{note}</td>"
            + "".join(f"<td>{row.counts.get(o, 0)}</td>" for o in verdicts.columns)
            + "</tr>"
        )
    out.append("</table></section>")
    broken = document.not_collected
    if broken:
        out.append(
            f'<section id="not-collected"><h2>Not collected ({len(broken)})</h2>'
            "<p>Parts of the suite that failed to load; their tests never ran.</p>"
            "<table><tr><th>collector</th><th>error</th></tr>"
        )
        out += [
            f"<tr><td><code>{escape(label)}</code></td><td>{escape(message)}</td></tr>"
            for label, message in broken
        ]
        out.append("</table></section>")
    out += _behaviours(document)
    found = document.failures.causes
    out.append(
        f'<section id="failures"><h2>Failures ({len(document.failed)}) from {len(found)} '
        "causes</h2>"
    )
    if found:
        out.append("<p>Largest first; each cause shows one failure, the others are folded.</p>")
        out.append(_cause_table(found))
    out += [_cause(row) for row in found] or ["<p>None.</p>"]
    out.append("</section>")
    known = document.known
    if known:
        out.append(
            f'<section id="known"><h2>Known failures ({len(known)})</h2><details>'
            "<summary>Listed expectations that failed as expected</summary><table>"
            "<tr><th>test</th><th>reason</th></tr>"
        )
        out += [
            f"<tr><td><code>{escape(t['id'])}</code></td>"
            f"<td>{escape(t['known_failure'] or '')}</td></tr>"
            for t in known
        ]
        out.append("</table></details></section>")
    out += _host_limits(document)
    out.append('<section id="readme"><h2>README sentences and their tests</h2>')
    for section in data["sections"]:
        ids = [test_id for s in section["sentences"] for test_id in s["tests"]]
        bad = any(tests[i]["outcome"] in ("failed", "error", "xpassed") for i in ids if i in tests)
        title = section["title"]
        if section["original_title"] not in title:
            title += f" · {section['original_title']}"
        anchor = _slug(f"{section['plugin']}-{section['title']}")
        out.append(
            f'<details class="section" id="{escape(anchor)}"{" open" if bad else ""}>'
            f"<summary>{escape(section['plugin'])}: {escape(title)} "
            f"({len(section['sentences'])} sentences, {len(set(ids))} tests)</summary>"
            "<table><tr><th>id</th><th>sentence</th><th>tests</th></tr>"
        )
        for sentence in section["sentences"]:
            original = (
                f'<div class="original" lang="zh">{escape(sentence["original"])}</div>'
                if sentence["original"] else ""
            )
            out.append(
                f'<tr><td class="id">{escape(sentence["id"])}</td>'
                f'<td class="sentence">{escape(sentence["text"])}{original}'
                f"</td><td>{_groups(group_tests(sentence['tests'], tests))}</td></tr>"
            )
        out.append("</table></details>")
    out.append("</section>")
    if data["pinned_details"]:
        # The value and the tests go under the table at full width: a narrow
        # column of test ids wraps one character per line.
        out.append('<section id="pinned"><h2>Pinned details (compat level)</h2><table>')
        out.append("<tr><th>id</th><th>detail</th><th>tests</th></tr>")
        for pin in data["pinned_details"]:
            outcomes = Counter(str(tests[i]["outcome"]) for i in pin["tests"] if i in tests)
            out.append(
                f'<tr><td class="id"><a href="#pin-{escape(_slug(pin["id"]))}">'
                f"{escape(pin['id'])}</a></td><td>{escape(pin['title'] or '')}</td>"
                f"<td>{escape(describe_counts(outcomes, COUNTED))}</td></tr>"
            )
        out.append("</table>")
        for pin in data["pinned_details"]:
            out.append(
                f'<details id="pin-{escape(_slug(pin["id"]))}"><summary>{escape(pin["id"])}: '
                f"{escape(pin['title'] or '')}</summary>"
                f"<pre>{escape(pin['value'] or '')}</pre>"
                f"{_groups(group_tests(pin['tests'], tests))}</details>"
            )
        out.append("</section>")
    other = document.untraced
    if other:
        out.append('<section id="other"><h2>Tests naming no README sentence</h2>')
        out.append(_groups(group_tests(other, tests)) + "</section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"

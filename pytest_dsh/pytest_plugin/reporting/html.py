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

from pytest_dsh.pytest_plugin.reporting.causes import cause_label, representative_line
from pytest_dsh.pytest_plugin.reporting.document import behaviours, causes, failures, not_collected
from pytest_dsh.pytest_plugin.reporting.first_screen import (
    COMPAT_HEADING,
    OTHERS_HEADING,
    behaviour_label,
    behaviour_line,
    compat_causes,
    other_causes,
    own_line,
    sentence_case,
)
from pytest_dsh.pytest_plugin.reporting.host_limit_rows import host_limit_line, host_limited
from pytest_dsh.pytest_plugin.reporting.summary import (
    TestGroup,
    claim_clause,
    count_columns,
    group_tests,
    header_lines,
    stop_line,
)
from pytest_dsh.pytest_plugin.reporting.verdicts import COUNTED, WORDS, describe_counts

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


def _cause(number: int, cause: Mapping[str, Any], tests: Mapping[str, Mapping[str, Any]]) -> str:
    count = int(cause["count"])
    first = tests.get(cause["representative"]["id"])
    shown = _one_failure(first) if first is not None else ""
    others = [tests[i] for i in cause["tests"][1:] if i in tests]
    folded = (
        f"<details><summary>{len(others)} more with this cause</summary>"
        '<ol class="others">' + "".join(f"<li>{_one_failure(t)}</li>" for t in others)
        + "</ol></details>"
        if others else ""
    )
    home = cause.get("follows")
    follows = (
        f'; folded under <a href="#behaviour-{escape(_slug(home))}">{escape(home)}</a>'
        if home else ""
    )
    return (
        f'<article class="failure cause" id="cause-{number}">'
        f'<h3><span class="count">{count}</span>{number}. '
        f"{escape(cause_label(cause))}</h3>"
        f'<p class="cause-summary">cause: <code>{escape(cause["summary"])}</code>{follows}</p>'
        f"{shown}{folded}</article>"
    )


def _folded_line(test: Mapping[str, Any]) -> str:
    """A folded failure as one line: a link to it in full under its cause."""
    return (
        f'<li>{_outcome(test["outcome"])} <a href="#{escape(_slug(test["id"]))}"><code>'
        f'{escape(test["id"])}</code></a><br><code>{escape(own_line(test))}</code></li>'
    )


def _behaviour(
    number: int, one: Mapping[str, Any], tests: Mapping[str, Mapping[str, Any]]
) -> str:
    probe = tests.get(one["representative"]["id"])
    shown = _one_failure(probe, anchor=False) if probe is not None else ""
    folded = [tests[i] for i in one["folded"] if i in tests]
    runs = len(one["tests"])
    more = f" (and {runs - 1} more runs of the probe)" if runs > 1 else ""
    details = (
        f"<details><summary>{len(folded)} failure{'s' if len(folded) != 1 else ''} folded "
        'under it</summary><ol class="others">'
        + "".join(_folded_line(t) for t in folded) + "</ol></details>"
        if folded else "<p>No other failure folded under it.</p>"
    )
    return (
        f'<article class="failure behaviour" id="behaviour-{escape(_slug(one["probe"]))}">'
        f'<h3><span class="count b">{len(folded)}</span>{number}. '
        f"{escape(behaviour_label(one))}</h3>"
        f'<p class="cause-summary">probe{escape(more)}: '
        f"<code>{escape(behaviour_line(one))}</code></p>{shown}{details}</article>"
    )


def _behaviours(document: Mapping[str, Any], tests: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The broken basic behaviours (failing probes) with the failures folded
    under each, then the causes that fold under none; nothing when no probe
    failed (docs/validate-your-plugin.md states the folding rule)."""
    broken = behaviours(document)
    if not broken:
        return []
    # A cause is known by its tests: causes() may rebuild the list on each call.
    number_of = {tuple(c["tests"]): n for n, c in enumerate(causes(document), start=1)}
    others = other_causes(document)
    rows = "".join(
        f'<tr><td><a href="#behaviour-{escape(_slug(one["probe"]))}">{number}</a></td>'
        f"<td>{escape(behaviour_label(one))}</td><td>{len(one['folded'])}</td>"
        f"<td><code>{escape(behaviour_line(one))}</code></td></tr>"
        for number, one in enumerate(broken, start=1)
    )
    out = [
        f'<section id="behaviours"><h2>Broken basic behaviours ({len(broken)})</h2>'
        "<p>Each names a failing probe and folds the readme failures that show its "
        "symptom (they break only sentences the probe breaks); fix these first.</p>"
        '<table class="behaviours"><tr><th>#</th><th>behaviour</th><th>folded failures</th>'
        f"<th>first failure</th></tr>{rows}</table>"
    ]
    if others:
        out.append(
            f'<div id="other-causes"><p>{escape(sentence_case(OTHERS_HEADING))}:</p>'
            '<table><tr><th>cause</th><th>failing tests</th><th>requirement</th>'
            "<th>what failed</th></tr>"
            + "".join(
                f'<tr><td><a href="#cause-{number_of[tuple(c["tests"])]}">'
                f"{number_of[tuple(c['tests'])]}</a></td><td>{c['count']}</td>"
                f"<td>{escape(cause_label(c))}</td>"
                f"<td><code>{escape(representative_line(c))}</code></td></tr>"
                for c in others
            )
            + "</table></div>"
        )
    compat = compat_causes(document)
    if compat:
        count = sum(int(cause["count"]) for cause in compat)
        out.append(
            f"<p>{escape(sentence_case(COMPAT_HEADING))}: {count} failing tests from "
            f"{len(compat)} causes, listed last under the failures below.</p>"
        )
    out += [_behaviour(n, one, tests) for n, one in enumerate(broken, start=1)]
    out.append("</section>")
    return out


def _cause_table(found: Sequence[Mapping[str, Any]]) -> str:
    rows = "".join(
        f'<tr><td><a href="#cause-{number}">{number}</a></td><td>{cause["count"]}</td>'
        f"<td>{escape(cause_label(cause))}</td>"
        f"<td><code>{escape(representative_line(cause))}</code></td></tr>"
        for number, cause in enumerate(found, start=1)
    )
    return (
        '<table class="causes"><tr><th>#</th><th>failing tests</th><th>requirement</th>'
        f"<th>what failed</th></tr>{rows}</table>"
    )


def _stopped(document: Mapping[str, Any]) -> list[str]:
    line = stop_line(document)
    return [] if line is None else [f'<p id="stopped"><b>{escape(line)}</b></p>']


def _host_limits(document: Mapping[str, Any]) -> list[str]:
    rows = host_limited(document)
    if not rows:
        return []
    out = [
        f'<section id="host-limits"><h2>Host limits ({len(rows)})</h2>'
        f"<p>{escape(host_limit_line(rows) or '')}</p><details>"
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


def render_html(document: Mapping[str, Any]) -> str:
    verdict = document["verdict"]
    tests = {test["id"]: test for test in document["tests"]}
    impl = document["implementation"]
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Conformance report: {escape(impl['name'])} {escape(impl['version'])}</title>",
        f"<style>{_CSS}{_VERDICT_CSS}</style></head><body>",
        "<header>",
        f"<h1>Conformance report: {escape(impl['name'])} {escape(impl['version'])}</h1>",
        f'<p id="overall">Verdict: {_verdict(verdict["overall"], big=True)} '
        f"(exit status {verdict['exit_status']}){escape(claim_clause(verdict['overall']))}</p>",
        *_stopped(document),
        "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in header_lines(document)) + "</ul>",
        f"<pre>{escape(document['command'])}</pre>",
        "</header>",
        '<section id="verdicts"><h2>Verdicts by level and plugin</h2><table>',
        "<tr><th>level</th><th>plugin</th><th>verdict</th>"
        + "".join(f"<th>{escape(o)}</th>" for o in count_columns(document))
        + "</tr>",
    ]
    for level, entry in verdict["levels"].items():
        for plugin, one in entry["plugins"].items():
            note = f'<div class="level">{escape(one["note"])}</div>' if one["note"] else ""
            counts = one["counts"]
            out.append(
                f"<tr><td>{escape(level)}</td><td>{escape(plugin)}</td>"
                f"<td>{_verdict(one['verdict'])}{note}</td>"
                + "".join(f"<td>{counts.get(o, 0)}</td>" for o in count_columns(document))
                + "</tr>"
            )
    out.append("</table></section>")
    broken = not_collected(document)
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
    out += _behaviours(document, tests)
    failing = failures(document)
    found = causes(document)
    out.append(
        f'<section id="failures"><h2>Failures ({len(failing)}) from {len(found)} causes</h2>'
    )
    if found:
        out.append("<p>Largest first; each cause shows one failure, the others are folded.</p>")
        out.append(_cause_table(found))
    out += [_cause(n, cause, tests) for n, cause in enumerate(found, start=1)] or ["<p>None.</p>"]
    out.append("</section>")
    known = [t for t in document["tests"] if t["outcome"] == "xfailed"]
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
    for section in document["sections"]:
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
    if document["pinned_details"]:
        # The value and the tests go under the table at full width: a narrow
        # column of test ids wraps one character per line.
        out.append('<section id="pinned"><h2>Pinned details (compat level)</h2><table>')
        out.append("<tr><th>id</th><th>detail</th><th>tests</th></tr>")
        for pin in document["pinned_details"]:
            outcomes = Counter(str(tests[i]["outcome"]) for i in pin["tests"] if i in tests)
            out.append(
                f'<tr><td class="id"><a href="#pin-{escape(_slug(pin["id"]))}">'
                f"{escape(pin['id'])}</a></td><td>{escape(pin['title'] or '')}</td>"
                f"<td>{escape(describe_counts(outcomes, COUNTED))}</td></tr>"
            )
        out.append("</table>")
        for pin in document["pinned_details"]:
            out.append(
                f'<details id="pin-{escape(_slug(pin["id"]))}"><summary>{escape(pin["id"])}: '
                f"{escape(pin['title'] or '')}</summary>"
                f"<pre>{escape(pin['value'] or '')}</pre>"
                f"{_groups(group_tests(pin['tests'], tests))}</details>"
            )
        out.append("</section>")
    other = [t["id"] for t in document["tests"] if not t["sentences"] and not t["pinned_details"]]
    if other:
        out.append('<section id="other"><h2>Tests naming no README sentence</h2>')
        out.append(_groups(group_tests(other, tests)) + "</section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"

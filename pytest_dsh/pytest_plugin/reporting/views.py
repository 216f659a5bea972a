"""The report document: the JSON document (``dsh-conformance-report/1``, what
report.json holds) and what every rendering shows of it, computed once when
the document is built.

:func:`~pytest_dsh.pytest_plugin.reporting.document.build_document` groups
the failures (:mod:`.causes`, :mod:`.behaviours`) into the JSON document;
:meth:`ReportDocument.of` then makes, once, the rows the renderings list: the
causes numbered (readme first), the broken behaviours with the failures
folded under each, the readme causes that fold nowhere, the compat causes,
the host-limit rows, the verdicts and the header. The renderings (the
terminal's first screen, report.html, report.md, report.json) take a
:class:`ReportDocument` and only render it: none of them groups, folds or
labels a failure again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_dsh.pytest_plugin.reporting.causes import (
    FAILING,
    cause_label,
    failure_line,
    first_line,
    representative_line,
    short_text,
    without_quoted_texts,
)
from pytest_dsh.pytest_plugin.reporting.host_limit_rows import host_limit_line, host_limited
from pytest_dsh.pytest_plugin.reporting.summary import (
    claim_clause,
    count_columns,
    header_lines,
    overall_line,
    stop_line,
    verdict_lines,
)

__all__ = [
    "BehaviourRow",
    "CauseRow",
    "Failures",
    "FoldedTest",
    "ReportDocument",
    "VerdictRow",
    "Verdicts",
    "behaviour_label",
    "compat_line",
    "own_line",
]


def own_line(test: Mapping[str, Any]) -> str:
    """A failure's own first line (a report row or a representative),
    without the texts it quotes."""
    return short_text(without_quoted_texts(first_line(test["message"], str(test["outcome"]))), 240)


def behaviour_label(behaviour: Mapping[str, Any]) -> str:
    """``basic behaviour broken: <sentence> [probe-id; SCH-012]``."""
    ids = "; ".join([str(behaviour["probe"]), *behaviour["sentences"]])
    return f"basic behaviour broken: {behaviour['behaviour']} [{ids}]"


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


@dataclass(frozen=True)
class FoldedTest:
    """A failure shown under another (its cause's first, or a probe): its
    report row and the one line the renderings give it."""

    test: Mapping[str, Any]
    line: str


@dataclass(frozen=True)
class CauseRow:
    """One cause (report.json's ``causes``) as every rendering lists it."""

    #: Its place among all causes, from 1: the reports' ``cause-<number>`` anchor.
    number: int
    #: The cause as the JSON document holds it.
    cause: Mapping[str, Any]
    count: int
    #: The requirement (or value shape) that broke, with its texts.
    label: str
    #: What failed: the first failure's own first line, without the label's texts.
    line: str
    #: The first failure's report row (``None``: not among the document's tests).
    representative: Mapping[str, Any] | None
    #: The cause's other failures, each with its line under the cause.
    folded: tuple[FoldedTest, ...]
    #: For a compat cause, the one line the terminal lists it on; else ``None``.
    compat_line: str | None

    @property
    def is_compat(self) -> bool:
        return self.compat_line is not None


@dataclass(frozen=True)
class BehaviourRow:
    """One broken basic behaviour (report.json's ``behaviours``)."""

    #: Its place among the broken behaviours, from 1 (the first screen's number).
    number: int
    behaviour: Mapping[str, Any]
    label: str
    #: The probe's first failing run: its own first line.
    line: str
    representative: Mapping[str, Any] | None
    #: The failures folded under it that are among the document's tests.
    folded: tuple[FoldedTest, ...]


@dataclass(frozen=True)
class Failures:
    """The failures as the first screen and the reports order them: the
    broken behaviours, the readme causes none of them folds, the compat
    causes; and every cause, numbered."""

    causes: tuple[CauseRow, ...]
    behaviours: tuple[BehaviourRow, ...]
    #: Readme causes none of whose tests a broken behaviour shows or folds.
    others: tuple[CauseRow, ...]
    compat: tuple[CauseRow, ...]
    #: Failing tests in all causes, and in the compat causes.
    failing: int
    compat_failing: int

    @classmethod
    def of(
        cls, document: Mapping[str, Any], tests: Mapping[str, Mapping[str, Any]] | None = None
    ) -> Failures:
        """The failures of a JSON document (its ``tests``, ``causes`` and
        ``behaviours``), as the document holds them: nothing is regrouped.
        ``tests`` is the document's tests by id, when the caller has it."""
        if tests is None:
            tests = {str(test["id"]): test for test in document["tests"]}
        causes = tuple(
            _cause_row(number, cause, tests)
            for number, cause in enumerate(document["causes"], start=1)
        )
        behaviours = tuple(
            _behaviour_row(number, behaviour, tests)
            for number, behaviour in enumerate(document["behaviours"], start=1)
        )
        shown = {
            test for row in behaviours
            for test in (*row.behaviour["tests"], *row.behaviour["folded"])
        }
        compat = tuple(row for row in causes if row.is_compat)
        return cls(
            causes=causes,
            behaviours=behaviours,
            others=tuple(
                row for row in causes
                if not row.is_compat and not set(row.cause["tests"]) <= shown
            ),
            compat=compat,
            failing=sum(row.count for row in causes),
            compat_failing=sum(row.count for row in compat),
        )


def _cause_row(number: int, cause: Mapping[str, Any], tests: Mapping[str, Any]) -> CauseRow:
    first = cause["representative"]["id"]
    folded = tuple(
        FoldedTest(tests[i], failure_line(
            tests[i]["message"], str(tests[i]["outcome"]), cause["requirement"]))
        for i in cause["tests"] if i != first and i in tests
    )
    compat = cause["requirement"]["level"] == "compat"
    return CauseRow(
        number=number,
        cause=cause,
        count=int(cause["count"]),
        label=cause_label(cause),
        line=representative_line(cause),
        representative=tests.get(first),
        folded=folded,
        compat_line=compat_line(cause) if compat else None,
    )


def _behaviour_row(
    number: int, behaviour: Mapping[str, Any], tests: Mapping[str, Any]
) -> BehaviourRow:
    return BehaviourRow(
        number=number,
        behaviour=behaviour,
        label=behaviour_label(behaviour),
        line=own_line(behaviour["representative"]),
        representative=tests.get(behaviour["representative"]["id"]),
        folded=tuple(FoldedTest(tests[i], own_line(tests[i]))
                     for i in behaviour["folded"] if i in tests),
    )


@dataclass(frozen=True)
class VerdictRow:
    """The verdict of one requirement level and plugin."""

    level: str
    plugin: str
    verdict: str
    counts: Mapping[str, int]
    note: str | None


@dataclass(frozen=True)
class Verdicts:
    """The run's verdict, and one row per level and plugin."""

    overall: str
    exit_status: int
    #: ``; no conformance claimed: ...`` after a word given instead of a verdict.
    claim: str
    #: ``does not conform (exit status 1)``, with the claim.
    line: str
    rows: tuple[VerdictRow, ...]
    #: The terminal's lines: the rows that had tests selected.
    lines: tuple[str, ...]
    #: The count columns of the tables ("not run" only when a test never ran).
    columns: tuple[str, ...]


@dataclass(frozen=True)
class ReportDocument:
    """The report of one run: :attr:`json` is report.json; the other fields
    are what the renderings show of it, made once by :meth:`of`."""

    #: The ``dsh-conformance-report/1`` document, as report.json holds it.
    json: Mapping[str, Any]
    #: Its rows by test id.
    tests: Mapping[str, Mapping[str, Any]]
    header: tuple[str, ...]
    verdicts: Verdicts
    #: Why the run stopped before every test ran, or ``None``.
    stopped: str | None
    #: The collectors that failed, as (label, message).
    not_collected: tuple[tuple[str, str], ...]
    failures: Failures
    #: The rows to read first: failed, errored, and stale known failures.
    failed: tuple[Mapping[str, Any], ...]
    #: Known failures that failed as expected.
    known: tuple[Mapping[str, Any], ...]
    #: The rows the DSH host decided, lifted limits first, and their line.
    host_limits: tuple[Mapping[str, Any], ...]
    host_limit_line: str | None
    #: Tests that name neither a README sentence nor a pinned detail.
    untraced: tuple[str, ...]

    @classmethod
    def of(cls, document: Mapping[str, Any]) -> ReportDocument:
        """The report of a JSON document built by this kit (every member the
        schema names present): made from what it holds, nothing regrouped."""
        rows = document["tests"]
        tests = {str(test["id"]): test for test in rows}
        limited = tuple(host_limited(document))
        return cls(
            json=document,
            tests=tests,
            header=tuple(header_lines(document)),
            verdicts=_verdicts(document),
            stopped=stop_line(document),
            not_collected=tuple(
                (nodeid or "(the run)", message)
                for nodeid, message in document["collection_errors"].items()
            ),
            failures=Failures.of(document, tests),
            failed=tuple(t for t in rows if t["outcome"] in FAILING),
            known=tuple(t for t in rows if t["outcome"] == "xfailed"),
            host_limits=limited,
            host_limit_line=host_limit_line(limited),
            untraced=tuple(
                t["id"] for t in rows if not t["sentences"] and not t["pinned_details"]
            ),
        )


def _verdicts(document: Mapping[str, Any]) -> Verdicts:
    verdict = document["verdict"]
    rows: Sequence[VerdictRow] = [
        VerdictRow(level, plugin, one["verdict"], one["counts"], one["note"])
        for level, entry in verdict["levels"].items()
        for plugin, one in entry["plugins"].items()
    ]
    return Verdicts(
        overall=str(verdict["overall"]),
        exit_status=int(verdict["exit_status"]),
        claim=claim_clause(str(verdict["overall"])),
        line=overall_line(document),
        rows=tuple(rows),
        lines=tuple(verdict_lines(document)),
        columns=count_columns(document),
    )

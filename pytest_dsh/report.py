"""``--dsh-report PATH``: a Markdown conformance report for humans.

One table per test module (the suite is organised by README section), the
outcome counts, the implementation and data versions, and every failure with
its short reason. Written at the end of the session; pytest's own output is
unchanged.
"""

from __future__ import annotations

import pathlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import final

import pytest

from pytest_dsh.implementations import suite_test_id

__all__ = ["ConformanceReport"]

_ORDER = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


@dataclass
class _Row:
    counts: Counter[str] = field(default_factory=Counter)


@final
class ConformanceReport:
    """Collects test outcomes and renders them as Markdown."""

    def __init__(self, path: pathlib.Path, header: list[str]) -> None:
        self.path = path
        self.header = header
        self.modules: dict[str, _Row] = defaultdict(_Row)
        self.failures: list[tuple[str, str]] = []

    @staticmethod
    def _outcome(report: pytest.TestReport) -> str | None:
        if hasattr(report, "wasxfail"):
            return "xfailed" if report.skipped else "xpassed"
        if report.when == "call":
            return report.outcome
        if report.failed:
            return "error"
        if report.skipped:
            return "skipped"
        return None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = self._outcome(report)
        if outcome is None:
            return
        module = suite_test_id(report.nodeid).split("::", 1)[0]
        self.modules[module].counts[outcome] += 1
        if outcome in ("failed", "error", "xpassed"):
            reason = str(getattr(report, "longreprtext", "") or "").strip().splitlines()
            self.failures.append((report.nodeid, reason[-1] if reason else outcome))

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        total: Counter[str] = Counter()
        lines = ["# Conformance report", "", *(f"- {line}" for line in self.header), ""]
        lines += ["| module | " + " | ".join(_ORDER) + " |", "|---" * (len(_ORDER) + 1) + "|"]
        for module in sorted(self.modules):
            counts = self.modules[module].counts
            total.update(counts)
            lines.append(f"| {module} | " + " | ".join(str(counts[o]) for o in _ORDER) + " |")
        lines.append("| **total** | " + " | ".join(f"**{total[o]}**" for o in _ORDER) + " |")
        verdict = (
            "conforms"
            if not (total["failed"] or total["error"] or total["xpassed"])
            else "does NOT conform"
        )
        lines += ["", f"**Verdict: {verdict}** (pytest exit status {exitstatus}).", ""]
        if self.failures:
            lines += ["## Failures", ""]
            lines += [f"- `{nodeid}`: {reason}" for nodeid, reason in self.failures]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("\n".join(lines) + "\n", encoding="utf-8")

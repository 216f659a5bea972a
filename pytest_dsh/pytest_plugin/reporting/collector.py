"""Collects each test's outcome during a run against an implementation, then
gives the verdict: it sets the exit status, writes the requested reports and
prints a short summary after pytest's own, its short test summary included:
the verdict and the first screen (the causes) are the last lines of the run."""

from __future__ import annotations

import pathlib
from collections.abc import Callable, Generator, Mapping
from typing import final

import pytest

from pytest_dsh.pytest_plugin.reporting.document import RunInfo, build_document
from pytest_dsh.pytest_plugin.reporting.first_screen import first_screen_lines
from pytest_dsh.pytest_plugin.reporting.report_files import ReportWriteError, write_reports
from pytest_dsh.pytest_plugin.reporting.results import TestResult, collection_message
from pytest_dsh.pytest_plugin.reporting.verdicts import word
from pytest_dsh.pytest_plugin.reporting.views import ReportDocument

__all__ = ["ReportCollector"]

#: How the terminal marks the verdict, by its tone (pytest_dsh.pytest_plugin.reporting.verdicts).
_MARKUP: Mapping[str, Mapping[str, bool]] = {
    "good": {"green": True},
    "known": {"yellow": True},
    "halt": {"yellow": True},
}

@final
class ReportCollector:
    """Registered by the plugin when an implementation is under test."""

    def __init__(self, info: Callable[[], RunInfo], report: pathlib.Path | None) -> None:
        self._info = info
        self._report = report
        self.results: dict[str, TestResult] = {}
        #: Modules (or other collectors) that failed to collect: node id -> message.
        self.collection_errors: dict[str, str] = {}
        self.document: ReportDocument | None = None
        self.written: list[pathlib.Path] = []
        #: Why a report was not written (a full disk, ...), or ``None``.
        self.write_error: str | None = None

    def add(self, result: TestResult) -> None:
        self.results[result.nodeid] = result

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        result = self.results.get(report.nodeid)
        if result is not None:
            result.record(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        # Part of the suite never ran: the verdict must say so, whether the run
        # stopped there or went on (--continue-on-collection-errors). Under
        # xdist each worker's failure reaches the controller: keep one.
        if report.failed and report.nodeid not in self.collection_errors:
            self.collection_errors[report.nodeid] = collection_message(report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if session.config.option.collectonly:
            return  # nothing was meant to run: no verdict
        self.document = build_document(
            self._info(), list(self.results.values()), exitstatus, self.collection_errors
        )
        session.exitstatus = self.document.verdicts.exit_status
        if self._report is not None:
            # A failure here says nothing about the implementation: the summary
            # and the verdict still follow, with one line naming what was lost.
            try:
                self.written = write_reports(self.document, self._report)
            except ReportWriteError as exc:
                self.written, self.write_error = exc.written, str(exc)

    # Outermost wrapper: pytest prints its short test summary (a line per
    # failing test, a thousand for a first run) as its own wrapper unwinds, so
    # what is printed after this yield comes after it.
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(
        self, terminalreporter: pytest.TerminalReporter
    ) -> Generator[None, None, None]:
        yield
        self._summary(terminalreporter)

    def _summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        document = self.document
        if document is None:
            return
        markup = _MARKUP.get(word(document.verdicts.overall).tone, {"red": True})
        terminalreporter.section("dsh conformance", sep="-", bold=True)
        for line in document.verdicts.lines:
            terminalreporter.line(line)
        for label, _ in document.not_collected:
            terminalreporter.line(f"not collected: {label}", red=True)
        for line in first_screen_lines(document.failures):
            terminalreporter.line(line)
        if document.host_limit_line is not None:
            terminalreporter.line(document.host_limit_line, blue=True)
        for path in self.written:
            terminalreporter.line(f"report: {path}")
        if self.write_error is not None:
            terminalreporter.line(f"report {self.write_error}", red=True)
        if document.stopped is not None:
            terminalreporter.line(document.stopped, red=True)
        terminalreporter.line(f"verdict: {document.verdicts.line}", bold=True, **markup)

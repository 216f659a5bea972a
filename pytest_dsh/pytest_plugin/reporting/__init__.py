"""Conformance reports: verdicts per requirement level and plugin, and the
renderings of one JSON document (HTML, Markdown, JSON, terminal summary).

* :mod:`~pytest_dsh.pytest_plugin.reporting.verdicts`: the four verdicts and the exit status;
* :mod:`~pytest_dsh.pytest_plugin.reporting.results`: one test's outcome and message;
* :mod:`~pytest_dsh.pytest_plugin.reporting.document`: the ``dsh-conformance-report/1`` document;
* :mod:`~pytest_dsh.pytest_plugin.reporting.html`,
  :mod:`~pytest_dsh.pytest_plugin.reporting.markdown`: renderings;
* :mod:`~pytest_dsh.pytest_plugin.reporting.collector`: the pytest plugin object that ties them.
"""

from __future__ import annotations

from pytest_dsh.pytest_plugin.reporting.collector import ReportCollector, write_reports
from pytest_dsh.pytest_plugin.reporting.document import (
    FORMAT,
    RunInfo,
    build_document,
    report_schema,
)
from pytest_dsh.pytest_plugin.reporting.html import render_html
from pytest_dsh.pytest_plugin.reporting.markdown import render_markdown
from pytest_dsh.pytest_plugin.reporting.results import TestResult
from pytest_dsh.pytest_plugin.reporting.verdicts import (
    CONFORMS,
    DOES_NOT_CONFORM,
    EXIT_NOT_ASSESSED,
    KNOWN_FAILURES,
    NOT_ASSESSED,
)

__all__ = [
    "CONFORMS",
    "DOES_NOT_CONFORM",
    "EXIT_NOT_ASSESSED",
    "FORMAT",
    "KNOWN_FAILURES",
    "NOT_ASSESSED",
    "ReportCollector",
    "RunInfo",
    "TestResult",
    "build_document",
    "render_html",
    "render_markdown",
    "report_schema",
    "write_reports",
]

"""Conformance reports: verdicts per requirement level and plugin, and the
renderings of one report document (HTML, Markdown, JSON, terminal summary).

* :mod:`~pytest_dsh.pytest_plugin.reporting.results`: one test's outcome and message;
* :mod:`~pytest_dsh.pytest_plugin.reporting.verdicts`: the four verdicts, their words
  and the exit status;
* :mod:`~pytest_dsh.pytest_plugin.reporting.causes`: failures grouped by cause;
* :mod:`~pytest_dsh.pytest_plugin.reporting.behaviours`: the basic behaviours whose
  probes failed;
* :mod:`~pytest_dsh.pytest_plugin.reporting.readmes`: which README text was checked;
* :mod:`~pytest_dsh.pytest_plugin.reporting.document`: the ``dsh-conformance-report/1``
  JSON document built from all of them;
* :mod:`~pytest_dsh.pytest_plugin.reporting.summary`,
  :mod:`~pytest_dsh.pytest_plugin.reporting.host_limit_rows`: views of the JSON
  document's members (the header and verdict lines, the host-limit rows);
* :mod:`~pytest_dsh.pytest_plugin.reporting.views`: the report document every
  rendering takes: the JSON document and, computed once when it is built, the
  numbered causes, the broken behaviours, the verdicts and the host-limit rows;
* :mod:`~pytest_dsh.pytest_plugin.reporting.first_screen`,
  :mod:`~pytest_dsh.pytest_plugin.reporting.html`,
  :mod:`~pytest_dsh.pytest_plugin.reporting.markdown`: renderings (report.json
  is written by :mod:`~pytest_dsh.pytest_plugin.reporting.report_files`);
* :mod:`~pytest_dsh.pytest_plugin.reporting.collector`: the pytest plugin object that
  collects each outcome and prints the terminal summary;
* :mod:`~pytest_dsh.pytest_plugin.reporting.report_files`: the report path, checked
  at start, and the reports written by write-then-rename;
* :mod:`~pytest_dsh.pytest_plugin.reporting.raised`: the requirement named in a failure
  that is not an assertion.
"""

from __future__ import annotations

from pytest_dsh.pytest_plugin.reporting.collector import ReportCollector
from pytest_dsh.pytest_plugin.reporting.document import (
    FORMAT,
    RunInfo,
    build_document,
    report_schema,
)
from pytest_dsh.pytest_plugin.reporting.html import render_html
from pytest_dsh.pytest_plugin.reporting.markdown import render_markdown
from pytest_dsh.pytest_plugin.reporting.report_files import write_reports
from pytest_dsh.pytest_plugin.reporting.results import TestResult
from pytest_dsh.pytest_plugin.reporting.verdicts import (
    CONFORMS,
    DOES_NOT_CONFORM,
    EXIT_NOT_ASSESSED,
    KNOWN_FAILURES,
    NOT_ASSESSED,
)
from pytest_dsh.pytest_plugin.reporting.views import ReportDocument

__all__ = [
    "CONFORMS",
    "DOES_NOT_CONFORM",
    "EXIT_NOT_ASSESSED",
    "FORMAT",
    "KNOWN_FAILURES",
    "NOT_ASSESSED",
    "ReportCollector",
    "ReportDocument",
    "RunInfo",
    "TestResult",
    "build_document",
    "render_html",
    "render_markdown",
    "report_schema",
    "write_reports",
]

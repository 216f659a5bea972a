"""The report document carries its causes and broken behaviours, computed once
when it is built; the terminal's first screen, report.html, report.md and
report.json render it as given. A document whose causes and behaviours were
written by hand (ones the grouping would never make) reads the same in all
four. Kit behaviour, no README sentence."""

from __future__ import annotations

import json
import types
from typing import Any

import jsonschema
import pytest

from pytest_dsh.pytest_plugin.reporting import (
    RunInfo,
    TestResult,
    behaviours,
    build_document,
    causes,
    first_screen,
    html,
    markdown,
    report_files,
    report_schema,
)
from pytest_dsh.pytest_plugin.reporting.views import ReportDocument

INFO = RunInfo(
    implementation="hand", version="1", spec="hand", capabilities=("schedule",),
    kit_version="0", tzdata="x", hypothesis="h", seed=None, levels=("readme",),
    expectations=None, known_failures=0, command="pytest",
)
RENDERINGS = (first_screen, html, markdown, report_files)
LABEL = "readme SCH-900 (a sentence no README has)"
BEHAVIOUR = "basic behaviour broken: a behaviour no probe isolates [hand-made; SCH-900]"


def _row(test_id: str, message: str, sentence: str) -> TestResult:
    row = TestResult(id=test_id, nodeid=test_id, plugin="schedule", level="readme",
                     sentences=(sentence,), rerun=f"pytest {test_id}")
    row.outcome, row.message = "failed", message
    return row


def _by_hand() -> dict[str, Any]:
    """A built document whose causes and behaviours are replaced by hand: one
    cause for two unrelated failures, one behaviour no probe isolates."""
    built = build_document(INFO, [
        _row("s/a.py::t", "README SCH-035 requires the record listed; observed []", "SCH-035"),
        _row("s/b.py::t", "README SCH-013 requires a barrier; observed 2", "SCH-013"),
    ], 1)
    # What the computation makes: two causes, no behaviour (no probe failed).
    assert [c["tests"] for c in built.json["causes"]] == [["s/a.py::t"], ["s/b.py::t"]]
    assert built.json["behaviours"] == []
    document = json.loads(json.dumps(built.json))
    first = {k: document["tests"][0][k] for k in ("id", "outcome", "message", "rerun")}
    document["causes"] = [{
        "count": 2, "summary": "one cause for two unrelated failures",
        "requirement": {"level": "readme", "plugin": "schedule",
                        "sentences": [{"id": "SCH-900", "text": "a sentence no README has"}],
                        "pinned_details": []},
        "representative": first, "tests": ["s/a.py::t", "s/b.py::t"], "shape": None,
        "follows": None,
    }]
    document["behaviours"] = [{
        "probe": "hand-made", "behaviour": "a behaviour no probe isolates",
        "plugin": "schedule", "sentences": ["SCH-900"], "tests": ["s/a.py::t"],
        "representative": first, "folded": [],
    }]
    jsonschema.validate(document, report_schema())
    return document


def _computations(module: types.ModuleType) -> list[str]:
    """The public functions of ``module`` (the grouping or the folding)."""
    return [name for name in module.__all__
            if isinstance(getattr(module, name), types.FunctionType)]


@pytest.fixture
def report(monkeypatch: pytest.MonkeyPatch) -> ReportDocument:
    made = ReportDocument.of(_by_hand())

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a rendering computed causes or behaviours again")

    # From here on, nothing may group, fold or label a failure.
    for module in (causes, behaviours):
        for name in _computations(module):
            monkeypatch.setattr(module, name, refuse)
    return made


def test_every_rendering_shows_the_causes_and_behaviours_as_given(report: ReportDocument):
    screen = first_screen.first_screen_lines(report.failures)
    assert screen[0] == (
        "2 failing tests: 1 basic behaviour broken, 1 other README cause, 0 compat causes:"
    )
    assert f" 1. {BEHAVIOUR}" in screen
    assert f" 2. [2x] {LABEL}" in screen
    page = html.render_html(report)
    assert f"{BEHAVIOUR}</h3>" in page and f"1. {LABEL}</h3>" in page
    assert "cause: <code>one cause for two unrelated failures</code>" in page
    assert "Failures (2) from 1 causes" in page
    text = markdown.render_markdown(report)
    assert f"### 1. {markdown.text(BEHAVIOUR)}" in text
    assert f"### 1. {markdown.text(LABEL)}" in text
    assert "2 failing tests; cause: `one cause for two unrelated failures`" in text
    written = json.loads(report_files.render_json(report))
    assert written == report.json
    assert [c["summary"] for c in written["causes"]] == ["one cause for two unrelated failures"]
    assert [b["probe"] for b in written["behaviours"]] == ["hand-made"]


def test_the_first_screen_reads_a_json_document_as_it_holds_its_failures():
    document = _by_hand()
    made = ReportDocument.of(document)
    assert first_screen.first_screen_lines(document) == first_screen.first_screen_lines(
        made.failures)
    assert [row.label for row in made.failures.causes] == [LABEL]


def test_no_rendering_imports_the_grouping_or_the_folding():
    computed = {causes.__name__, behaviours.__name__}
    for module in RENDERINGS:
        borrowed = [name for name, value in vars(module).items()
                    if getattr(value, "__module__", None) in computed]
        assert borrowed == [], module.__name__

"""A run that --dsh-max-runaways stopped says so in its reports: the JSON
``stopped`` field (the limit, the tests that ran away, how many never ran),
a line beside the verdict in HTML, Markdown and the terminal, and the tests
not run counted as "not run". Kit behaviour: no README sentence.

The runaways raise :class:`RunawayError` themselves: no test here spends a
real budget."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest

from pytest_dsh.pytest_plugin.reporting import report_schema


@pytest.fixture
def impls(impls: pytest.Pytester, runaway_tests: Callable[[int], str]) -> pytest.Pytester:
    """The conftest's ``impls``, beside a test file of 4 runaways."""
    impls.makepyfile(test_runaways=runaway_tests(4))
    return impls


IDS = [f"test_runaways.py::test_runs_away[{n}]" for n in range(2)]
LINE = (
    "stopped after 2 runaways (--dsh-max-runaways 2): "
    f"{IDS[0]}, {IDS[1]}; 3 tests not run, never passed"
)


def _run(impls: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    result = impls.runpytest(
        "--dsh-impl=impls:FULL", "--dsh-report=out", "-p", "no:randomly", *args
    )
    document = json.loads((impls.path / "out" / "report.json").read_text("utf-8"))
    jsonschema.validate(document, report_schema())
    return result, document


def test_the_stop_is_in_the_json_report(impls: pytest.Pytester) -> None:
    _, document = _run(impls, "--dsh-max-runaways=2")
    assert document["stopped"] == {"cause": "runaways", "limit": 2, "tests": IDS, "not_run": 3}
    assert document["counts"]["not run"] == 3 and document["counts"]["failed"] == 2
    readme = document["verdict"]["levels"]["readme"]["plugins"]["time-context"]
    assert readme["counts"]["not run"] == 3
    assert document["verdict"]["overall"] == "does not conform"


def test_the_stop_is_beside_the_verdict_in_html_markdown_and_terminal(
    impls: pytest.Pytester,
) -> None:
    result, _ = _run(impls, "--dsh-max-runaways=2")
    html = (impls.path / "out" / "report.html").read_text("utf-8")
    header = html.split("<header>", 1)[1].split("</header>", 1)[0]
    overall, stopped = header.index('<p id="overall">'), header.index('<p id="stopped">')
    assert overall < stopped and LINE in header
    assert "<th>not run</th>" in html
    markdown = (impls.path / "out" / "report.md").read_text("utf-8")
    verdict_at = markdown.index("**Verdict: does not conform**")
    stop_at = markdown.index("**stopped after 2 runaways")
    assert verdict_at < stop_at < markdown.index("| level | plugin |")
    assert "| not run |" in markdown
    lines = result.stdout.lines
    verdict = next(i for i, line in enumerate(lines) if line.startswith("verdict: "))
    assert lines[verdict - 1] == LINE
    assert lines[verdict] == "verdict: does not conform (exit status 1)"
    result.stdout.fnmatch_lines(["readme  time-context  does not conform (2 failed, 3 not run)"])


def test_a_run_that_was_not_stopped_has_no_stop(impls: pytest.Pytester) -> None:
    result, document = _run(impls, "--dsh-max-runaways=0")
    assert document["stopped"] is None
    assert document["counts"]["not run"] == 0 and document["counts"]["failed"] == 4
    html = (impls.path / "out" / "report.html").read_text("utf-8")
    markdown = (impls.path / "out" / "report.md").read_text("utf-8")
    assert 'id="stopped"' not in html and "<th>not run</th>" not in html
    assert "stopped after" not in markdown and "| not run |" not in markdown
    assert "stopped after" not in result.stdout.str()

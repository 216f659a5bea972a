"""The report: a JSON document valid against its schema, Markdown by README
section with the English and the original sentence, failures with their
assertion message and a rerun command that pytest accepts as given."""

from __future__ import annotations

import json
import os
import shlex
import sys

import jsonschema
import kit_child_processes as children
import pytest

from pytest_dsh.pytest_plugin.reporting import report_schema


def _document(pytester: pytest.Pytester, name: str = "out.json") -> dict:
    return json.loads((pytester.path / name).read_text("utf-8"))


@pytest.fixture
def failing_run(impls, spec_tests, failing_test) -> pytest.Pytester:
    impls.makepyfile(test_spec=spec_tests, test_failing=failing_test)
    impls.runpytest("--dsh-impl=impls:FULL", "--dsh-report=out", "--hypothesis-seed=7")
    return impls


def test_a_report_folder_gets_html_json_and_markdown(failing_run):
    assert sorted(p.name for p in (failing_run.path / "out").iterdir()) == [
        "report.html", "report.json", "report.md"
    ]


def test_the_json_report_follows_its_schema(failing_run):
    document = _document(failing_run, "out/report.json")
    jsonschema.validate(document, report_schema())
    assert document["format"] == "dsh-conformance-report/1"
    assert document["implementation"]["name"] == "full"
    assert document["hypothesis"]["text"].endswith("seed 7")


def test_a_failure_carries_its_assertion_message_and_sentences(failing_run):
    document = _document(failing_run, "out/report.json")
    failure = next(t for t in document["tests"] if t["outcome"] == "failed")
    assert failure["id"] == "test_failing.py::test_interval_must_be_safe"
    assert "refreshIntervalMs -1 was accepted" in failure["message"]
    assert "assert 1 == 2" in failure["message"]
    assert failure["sentences"] == ["TC-012"]


def test_sentences_are_laid_out_by_readme_section_in_english_and_chinese(failing_run):
    document = _document(failing_run, "out/report.json")
    configuration = next(
        s for s in document["sections"]
        if s["plugin"] == "time-context" and s["title"] == "Configuration"
    )
    assert configuration["original_title"] == "配置"
    tc012 = next(s for s in configuration["sentences"] if s["id"] == "TC-012")
    assert tc012["text"] == "refreshIntervalMs must be a non-negative safe integer."
    assert tc012["original"] == "refreshIntervalMs 必须是非负安全整数。"
    assert tc012["tests"] == ["test_failing.py::test_interval_must_be_safe"]
    schedule_first = document["sections"][0]["sentences"][0]
    assert schedule_first["id"] == "SCH-001" and schedule_first["original"] is None


def test_markdown_shows_the_failure_the_rerun_and_both_languages(failing_run):
    markdown = (failing_run.path / "out" / "report.md").read_text("utf-8")
    assert "**Verdict: does not conform** (exit status 1)" in markdown
    assert "## Failures: 1 from 1 causes" in markdown
    assert (
        "### 1. readme TC-012 (refreshIntervalMs must be a non-negative safe integer.)"
        in markdown
    )
    assert "#### `test_failing.py::test_interval_must_be_safe`\n\nfailed;" in markdown
    assert "AssertionError: refreshIntervalMs -1 was accepted" in markdown
    assert "pytest test_failing.py::test_interval_must_be_safe --dsh-impl=impls:FULL" in markdown
    assert "### time-context: Configuration (配置)" in markdown
    assert (
        "| TC-012 | refreshIntervalMs must be a non-negative safe integer."
        "<br>原文: refreshIntervalMs 必须是非负安全整数。 |" in markdown
    )


def test_the_terminal_summary_prints_the_rerun_command(failing_run):
    result = failing_run.runpytest("--dsh-impl=impls:FULL", "--hypothesis-seed=7")
    result.stdout.fnmatch_lines(
        [
            "*dsh conformance*",
            "readme  time-context  does not conform (1 passed, 1 failed)",
            "1 failing test: 0 basic behaviours broken, 1 other README cause, 0 compat causes:",
            " 1. [1x] readme TC-012 (refreshIntervalMs must be a non-negative safe integer.)",
            "    AssertionError: refreshIntervalMs -1 was accepted",
            # The user's seed is in it, as a seed the run picked would be.
            "    rerun: pytest test_failing.py::test_interval_must_be_safe --dsh-impl=impls:FULL "
            "--hypothesis-seed=7",
            "verdict: does not conform (exit status 1)",
        ]
    )


def test_the_report_path_has_an_ini_twin(impls, spec_tests):
    impls.makepyfile(test_spec=spec_tests)
    impls.makeini("[pytest]\ndsh_report = reports/conformance.md\n")
    impls.runpytest("--dsh-impl=impls:FULL")
    assert "**Verdict: conforms**" in (impls.path / "reports" / "conformance.md").read_text()


def test_a_printed_rerun_command_of_a_suite_test_runs_that_test(pytester, tmp_path_factory):
    # Issue item 6: node ids of a --pyargs run cannot be pasted back; the rerun can.
    pytester.runpytest(
        "--pyargs", "dsh_conformance.time_context", "--dsh-impl=reference",
        "-k", "test_an_explicit_iana_zone_overrides_the_display_zone and Tokyo",
        "--dsh-report=out.json",
    )
    (test,) = _document(pytester)["tests"]
    command = shlex.split(test["rerun"])
    assert command[:2] == ["pytest", "--pyargs"]
    assert command[2].startswith(
        "dsh_conformance.time_context.configuration.test_configuration::"
        "test_an_explicit_iana_zone_overrides_the_display_zone[Asia/Tokyo"
    )
    # From another, empty folder: pytest loads the conftest.py of every test*
    # folder under the directory a --pyargs run starts in, and other tests'
    # pytester folders (one of them with a hook that breaks) sit beside this one.
    rerun = children.run(
        [sys.executable, "-m", *command, "-p", "no:cacheprovider"],
        cwd=tmp_path_factory.mktemp("elsewhere"),
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        check=False,
    )
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert "1 passed" in rerun.stdout


def test_known_failures_are_listed_with_their_reasons(impls, failing_test, tmp_path):
    impls.makepyfile(test_failing=failing_test)
    impls.makepyfile(
        more_impls="from impls import FULL\nimport dataclasses\n"
        "KNOWN = dataclasses.replace(FULL, expected_failures={"
        "'test_failing.py::test_interval_must_be_safe': 'we accept -1 (ticket 7)'})\n"
    )
    impls.runpytest("--dsh-impl=more_impls:KNOWN", "--dsh-report=out")
    markdown = (impls.path / "out" / "report.md").read_text("utf-8")
    assert "## Known failures (1)" in markdown
    assert "| `test_failing.py::test_interval_must_be_safe` | we accept -1 (ticket 7) |" in markdown
    html = (impls.path / "out" / "report.html").read_text("utf-8")
    assert '<section id="known"><h2>Known failures (1)</h2>' in html

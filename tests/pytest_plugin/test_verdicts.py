"""Verdicts per level and plugin, and the exit status that follows them.
(Kit behaviour: no README sentence; issue items 2 and the verdict deliverable.)"""

from __future__ import annotations

import json

import pytest

from pytest_dsh.pytest_plugin.reporting.verdicts import (
    CONFORMS,
    DOES_NOT_CONFORM,
    EXIT_NOT_ASSESSED,
    KNOWN_FAILURES,
    NOT_ASSESSED,
    combine,
    exit_status,
    group_verdict,
)


def _document(pytester: pytest.Pytester) -> dict:
    return json.loads((pytester.path / "out.json").read_text("utf-8"))


@pytest.mark.parametrize(
    ("counts", "verdict"),
    [
        ({"passed": 3}, CONFORMS),
        ({"passed": 3, "xfailed": 1}, KNOWN_FAILURES),
        ({"xfailed": 1}, KNOWN_FAILURES),
        ({"passed": 3, "failed": 1}, DOES_NOT_CONFORM),
        ({"passed": 3, "error": 1}, DOES_NOT_CONFORM),
        ({"passed": 3, "xpassed": 1}, DOES_NOT_CONFORM),
        ({"skipped": 5}, NOT_ASSESSED),
        ({}, NOT_ASSESSED),
    ],
)
def test_a_group_verdict_follows_its_outcomes(counts, verdict):
    assert group_verdict(counts) == verdict


def test_combining_puts_failure_before_not_assessed_before_known_failures():
    assert combine([CONFORMS, KNOWN_FAILURES]) == KNOWN_FAILURES
    assert combine([CONFORMS, NOT_ASSESSED, KNOWN_FAILURES]) == NOT_ASSESSED
    assert combine([NOT_ASSESSED, DOES_NOT_CONFORM]) == DOES_NOT_CONFORM
    assert combine([]) == NOT_ASSESSED


def test_exit_status_is_success_only_for_conforming_verdicts():
    assert exit_status(CONFORMS, 0, failures_anywhere=False) == 0
    assert exit_status(KNOWN_FAILURES, 0, failures_anywhere=False) == 0
    assert exit_status(DOES_NOT_CONFORM, 1, failures_anywhere=True) == 1
    assert exit_status(NOT_ASSESSED, 0, failures_anywhere=False) == EXIT_NOT_ASSESSED
    assert exit_status(NOT_ASSESSED, 5, failures_anywhere=False) == EXIT_NOT_ASSESSED
    assert exit_status(CONFORMS, 4, failures_anywhere=False) == 4  # pytest's own errors win


def test_a_full_implementation_conforms_per_level_and_plugin(impls, spec_tests):
    impls.makepyfile(test_spec=spec_tests)
    result = impls.runpytest("--dsh-impl=impls:FULL", "--dsh-report=out.json")
    assert result.ret == 0
    document = _document(impls)
    levels = document["verdict"]["levels"]
    assert levels["readme"]["plugins"]["schedule"]["verdict"] == CONFORMS
    assert levels["readme"]["plugins"]["time-context"]["verdict"] == CONFORMS
    assert levels["compat"]["plugins"]["time-context"]["verdict"] == CONFORMS
    assert document["verdict"]["overall"] == CONFORMS
    result.stdout.fnmatch_lines(["*dsh conformance*", "verdict: conforms (exit status 0)"])


def test_an_implementation_without_plugins_is_not_assessed_and_fails_the_run(impls, spec_tests):
    impls.makepyfile(test_spec=spec_tests)
    result = impls.runpytest("--dsh-impl=impls:EMPTY", "--dsh-report=out.json")
    assert result.ret == EXIT_NOT_ASSESSED
    result.assert_outcomes(skipped=3)
    assert _document(impls)["verdict"]["overall"] == NOT_ASSESSED
    result.stdout.fnmatch_lines(["verdict: not assessed (exit status 6)"])


def test_an_undeclared_plugin_is_reported_but_does_not_count(impls, spec_tests):
    impls.makepyfile(test_spec=spec_tests)
    result = impls.runpytest("--dsh-impl=impls:TC_ONLY", "--dsh-report=out.json")
    assert result.ret == 0
    document = _document(impls)
    schedule = document["verdict"]["levels"]["readme"]["plugins"]["schedule"]
    assert schedule["verdict"] == NOT_ASSESSED
    assert schedule["counted"] is False
    assert "does not declare 'schedule'" in schedule["note"]
    assert document["verdict"]["plugins"]["time-context"] == CONFORMS
    assert document["verdict"]["overall"] == CONFORMS


def test_a_failure_makes_the_plugin_and_the_run_not_conform(impls, spec_tests, failing_test):
    impls.makepyfile(test_spec=spec_tests, test_failing=failing_test)
    result = impls.runpytest("--dsh-impl=impls:FULL", "--dsh-report=out.json")
    assert result.ret == 1
    document = _document(impls)
    readme = document["verdict"]["levels"]["readme"]
    assert readme["plugins"]["time-context"]["verdict"] == DOES_NOT_CONFORM
    assert readme["plugins"]["schedule"]["verdict"] == CONFORMS
    assert document["verdict"]["overall"] == DOES_NOT_CONFORM


def test_known_failures_conform_with_known_failures_and_succeed(impls, spec_tests, failing_test):
    impls.makepyfile(test_spec=spec_tests, test_failing=failing_test)
    impls.makepyfile(
        more_impls="from impls import FULL\nimport dataclasses\n"
        "KNOWN = dataclasses.replace(FULL, expected_failures={"
        "'test_failing.py::test_interval_must_be_safe': 'we accept -1 (ticket 7)'})\n"
    )
    result = impls.runpytest("--dsh-impl=more_impls:KNOWN", "--dsh-report=out.json")
    assert result.ret == 0
    result.assert_outcomes(passed=3, xfailed=1)
    document = _document(impls)
    assert document["verdict"]["overall"] == KNOWN_FAILURES
    known = next(t for t in document["tests"] if t["outcome"] == "xfailed")
    assert known["known_failure"] == "we accept -1 (ticket 7)"


def test_a_known_failure_that_passes_is_a_stale_expectation(impls, spec_tests):
    impls.makepyfile(test_spec=spec_tests)
    impls.makepyfile(
        more_impls="from impls import FULL\nimport dataclasses\n"
        "KNOWN = dataclasses.replace(FULL, expected_failures={"
        "'test_spec.py::test_schedule_loads': 'was broken once'})\n"
    )
    result = impls.runpytest("--dsh-impl=more_impls:KNOWN", "--dsh-report=out.json")
    assert result.ret == 1
    document = _document(impls)
    stale = next(t for t in document["tests"] if t["id"] == "test_spec.py::test_schedule_loads")
    assert stale["outcome"] == "xpassed"
    assert "remove the entry" in stale["message"]
    assert document["verdict"]["overall"] == DOES_NOT_CONFORM


def test_runs_without_an_implementation_keep_pytest_exit_status(pytester):
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == 0
    assert "dsh conformance" not in result.stdout.str()

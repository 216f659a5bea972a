"""Runaway fail-fast: after ``--dsh-max-runaways`` tests ran away (default 3)
the run stops, says which, counts the rest as not run and does not conform;
0 never stops; the same under pytest-xdist. Kit behaviour: no README sentence.

The runaways raise :class:`RunawayError` themselves: no test here spends a
real budget."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import kit_child_processes as children
import pytest


@pytest.fixture
def impls(impls: pytest.Pytester, runaway_tests: Callable[[int], str]) -> pytest.Pytester:
    """The conftest's ``impls``, beside a test file of 6 runaways."""
    impls.makepyfile(test_runaways=runaway_tests(6))
    return impls


def _run(impls: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    result = children.runpytest_subprocess(
        impls, "--dsh-impl=impls:FULL", "--dsh-report=out.json", "-p", "no:randomly", *args
    )
    return result, json.loads((impls.path / "out.json").read_text("utf-8"))


def _stop_lines(result: pytest.RunResult) -> list[str]:
    """The kit's lines about the stop (pytest's own stop bar starts with "!")."""
    return [
        line for line in result.stdout.lines
        if "stopped after" in line and not line.startswith("!")
    ]


def _outcomes(document: dict[str, Any]) -> dict[str, int]:
    counted: dict[str, int] = {}
    for test in document["tests"]:
        counted[test["outcome"]] = counted.get(test["outcome"], 0) + 1
    return counted


def test_the_run_stops_after_three_runaways_by_default(impls: pytest.Pytester) -> None:
    result, document = _run(impls)
    assert result.ret == 1
    assert _outcomes(document) == {"failed": 3, "not run": 4}
    assert document["verdict"]["overall"] == "does not conform"
    assert document["verdict"]["exit_status"] == 1
    stop = (
        "stopped after 3 runaways (--dsh-max-runaways 3): test_runaways.py::test_runs_away[0], "
        "test_runaways.py::test_runs_away[1], test_runaways.py::test_runs_away[2]; "
        "4 tests not run, never passed"
    )
    # Said once by the kit, beside the verdict (beside pytest's own "!" stop bar).
    assert _stop_lines(result) == [stop]
    assert "verdict: does not conform (exit status 1)" in result.stdout.str()


def test_the_limit_is_an_option_and_an_ini_value(impls: pytest.Pytester) -> None:
    result, document = _run(impls, "--dsh-max-runaways=2")
    assert _outcomes(document) == {"failed": 2, "not run": 5}
    impls.makeini("[pytest]\ndsh_max_runaways = 4\n")
    result, document = _run(impls)
    assert _outcomes(document) == {"failed": 4, "not run": 3}
    assert "stopped after 4 runaways" in result.stdout.str()


def test_zero_never_stops(impls: pytest.Pytester) -> None:
    result, document = _run(impls, "--dsh-max-runaways", "0")
    assert _outcomes(document) == {"failed": 6, "passed": 1}
    assert "stopped after" not in result.stdout.str() and result.ret == 1


def test_a_negative_limit_is_a_usage_error(impls: pytest.Pytester) -> None:
    result = impls.runpytest("--dsh-impl=impls:FULL", "--dsh-max-runaways=-1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--dsh-max-runaways cannot be negative*"])


@pytest.mark.dsh_wall_budget(300)
def test_a_parallel_run_stops_too(impls: pytest.Pytester) -> None:
    result, document = _run(impls, "-n", "2")
    outcomes = _outcomes(document)
    # Each worker may finish the test it is running when the count is reached.
    assert 3 <= outcomes["failed"] <= 4 and outcomes.get("passed", 0) == 0, outcomes
    assert outcomes["not run"] == 7 - outcomes["failed"]
    assert result.ret == 1 and document["verdict"]["exit_status"] == 1
    assert len(_stop_lines(result)) == 1


def test_a_run_without_an_implementation_says_it_stopped(
    pytester: pytest.Pytester, runaway_tests: Callable[[int], str]
) -> None:
    """The fake host's own users (no --dsh-impl, so no conformance report)
    still learn why the run stopped."""
    pytester.makepyfile(test_runaways=runaway_tests(3))
    result = pytester.runpytest("-p", "no:randomly", "--dsh-max-runaways=2")
    assert result.ret == 1
    assert _stop_lines(result) == [
        "dsh: stopped after 2 runaways: test_runaways.py::test_runs_away[0], "
        "test_runaways.py::test_runs_away[1] (--dsh-max-runaways 2); the tests after them "
        "were not run and count as not run, never passed"
    ]

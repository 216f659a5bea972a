"""A rerun command repeats every option of the run (those ``dsh-conformance``
passes after ``--`` included, quoted safely) and replaces only the run's
selection with its one test. Kit behaviour: no README sentence."""

from __future__ import annotations

import json
import os
import shlex
import sys

import kit_child_processes as children
import pytest

from pytest_dsh.pytest_plugin.conformance_cli import pytest_arguments
from pytest_dsh.pytest_plugin.rerun_options import rerun_options


def test_options_after_the_double_dash_reach_the_rerun(pytester: pytest.Pytester) -> None:
    args, _ = pytest_arguments(
        ["--impl", "reference", "--section", "time-context", "-k", "Tokyo", "--workers", "2",
         "--", "-p", "no:cacheprovider", "--dsh-wall-budget", "30",
         "-o", "console_output_style=classic", "--hypothesis-profile=default", "-x"],
        cpus=2,
    )
    config = pytester.parseconfig(*args)
    assert rerun_options(config, args) == [
        "--dsh-level=all", "-p", "no:cacheprovider", "--dsh-wall-budget", "30",
        "-o", "console_output_style=classic", "--hypothesis-profile=default", "-x",
    ]


def test_the_selection_outputs_and_processes_are_left_out(pytester: pytest.Pytester) -> None:
    args = ["tests/a.py", "--pyargs", "pkg", "-k", "x and y", "-m", "slow", "-n", "2",
            "--dist=load", "--dsh-report", "out", "--junitxml=j.xml", "--deselect", "a::b",
            "--hypothesis-seed=5", "--dsh-impl=reference", "-nauto", "--", "more/paths"]
    config = pytester.parseconfig()
    assert rerun_options(config, args) == []


def test_a_rerun_command_runs_its_test_with_the_runs_options(
    impls: pytest.Pytester, failing_test: str
) -> None:
    impls.makepyfile(test_failing=failing_test)
    impls.runpytest(
        "--dsh-impl=impls:FULL", "--dsh-report=out.json", "-p", "no:cacheprovider",
        "--dsh-wall-budget", "45", "-o", "python_functions=test_* check_*",
    )
    (row, *_) = json.loads((impls.path / "out.json").read_text("utf-8"))["tests"]
    command = shlex.split(row["rerun"])
    assert command[:3] == ["pytest", "test_failing.py::test_interval_must_be_safe",
                           "--dsh-impl=impls:FULL"]
    # The value with a space survives the quoting.
    assert command[3:9] == ["-p", "no:cacheprovider", "--dsh-wall-budget", "45",
                            "-o", "python_functions=test_* check_*"]
    rerun = children.run(
        [sys.executable, "-m", *command], cwd=impls.path, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(impls.path), os.environ.get("PYTHONPATH", "")])},
        check=False,
    )
    assert rerun.returncode == 1, rerun.stdout + rerun.stderr
    assert "1 failed" in rerun.stdout and "refreshIntervalMs -1 was accepted" in rerun.stdout

"""`dsh-conformance`, and the three runs the verdicts must get right: one
section against the official build (its known failures still match), an
implementation with no plugin (not assessed, a failure), and the report command
against the reference (conforms, three report files)."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import kit_child_processes as children
import pytest

from pytest_dsh.pytest_plugin.conformance_cli import pytest_arguments

CLI = shutil.which("dsh-conformance", path=str(pathlib.Path(sys.executable).parent))


def _run(cwd: pathlib.Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CLI is not None, "dsh-conformance is not installed beside this Python"
    return children.run(
        [CLI, *args], cwd=cwd, capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONPATH": str(cwd)},
    )


def _document(folder: pathlib.Path) -> dict:
    return json.loads((folder / "report.json").read_text("utf-8"))


def test_options_map_onto_pytest_options():
    args, report = pytest_arguments(
        [
            "--impl", "npm", "--report", "out", "--level", "readme", "-k", "zone",
            "--section", "time-context", "--section", "schedule",
            "--npm", "schedule=./s.tgz", "--npm", "time-context=@x/tc@1",
            "--expectations", "known.json", "--dst-table", "full", "--workers", "3",
            "--", "-x", "-q",
        ]
    )
    assert report == pathlib.Path("out")
    assert args == [
        "--pyargs", "dsh_conformance.time_context", "dsh_conformance.schedule",
        "--dsh-impl=npm", "--dsh-report=out", "--dsh-level=readme", "-k", "zone",
        "--dsh-npm=schedule=./s.tgz", "--dsh-npm=time-context=@x/tc@1",
        "--dsh-expectations=known.json", "--dsh-dst-table=full", "-n", "3", "-x", "-q",
    ]


def test_the_whole_suite_is_the_default_selection():
    args, _ = pytest_arguments(["--impl", "reference"])
    assert args[:2] == ["--pyargs", "dsh_conformance"]


def test_by_default_the_tests_run_on_every_usable_cpu():
    args, _ = pytest_arguments(["--impl", "reference"], cpus=6)
    assert args[-2:] == ["-n", "6"]
    assert pytest_arguments(["--impl", "reference", "--workers", "auto"], cpus=6)[0] == args


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity here")
def test_auto_counts_the_cpus_this_process_may_use_not_the_machine_s():
    # Narrowed to one CPU (as taskset or a container quota would), auto means 1.
    probe = (
        "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
        "from pytest_dsh.pytest_plugin.conformance_cli import usable_cpus; print(usable_cpus())"
    )
    done = children.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "1"


@pytest.mark.parametrize("argv", [["--workers", "1"], []])
def test_one_worker_is_a_plain_serial_run_without_xdist(argv):
    args, _ = pytest_arguments(["--impl", "reference", *argv], cpus=1)
    assert "-n" not in args


@pytest.mark.parametrize("count", ["0", "-2", "two"])
def test_a_worker_count_below_one_is_a_usage_error(count, capsys):
    with pytest.raises(SystemExit) as stopped:
        pytest_arguments(["--impl", "reference", "--workers", count])
    assert stopped.value.code == pytest.ExitCode.USAGE_ERROR
    assert "--workers: expected a number >= 1 or auto" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [["--level", "strict"], ["--section", "nowhere"], ["--no-such-option"], []],
    ids=["bad-choice", "bad-section", "unknown-option", "no-impl"],
)
def test_a_bad_argument_is_a_usage_error_not_pytest_s_interrupted(argv, capsys):
    # argparse alone would exit 2, which a script reads as pytest's "interrupted".
    with pytest.raises(SystemExit) as stopped:
        pytest_arguments(["--impl", "reference", *argv] if argv else argv)
    assert stopped.value.code == pytest.ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert err.startswith("usage: dsh-conformance") and "dsh-conformance: error:" in err


def test_the_report_command_writes_three_reports_and_prints_the_verdict(tmp_path):
    done = _run(
        tmp_path, "--impl", "reference", "--report", "rep", "--section", "time-context",
        "-k", "test_configuration", "--workers", "1",
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert "dsh-conformance: conforms (exit status 0)" in done.stdout
    # The command imports the kit before pytest starts: no rewrite warning for it.
    assert "warning" not in done.stdout.lower(), done.stdout[-3000:]
    assert sorted(p.name for p in (tmp_path / "rep").iterdir()) == [
        "report.html", "report.json", "report.md"
    ]
    document = _document(tmp_path / "rep")
    assert document["verdict"]["overall"] == "conforms"
    # -k also selects the section files named after the configuration one.
    assert document["tests"] and all(
        t["id"].startswith("time_context/") and "/test_configuration.py::" in t["id"]
        for t in document["tests"]
    )


def test_an_implementation_with_no_plugin_is_not_assessed(tmp_path):
    (tmp_path / "empty_impl.py").write_text(
        "from pytest_dsh import PythonImplementation\n"
        "IMPLEMENTATION = PythonImplementation('empty', '0.0', {})\n"
    )
    done = _run(
        tmp_path, "--impl", "empty_impl:IMPLEMENTATION", "--report", "rep",
        "--section", "schedule", "-k", "test_composition", "--workers", "1",
    )
    assert done.returncode == 6, done.stdout[-3000:] + done.stderr
    assert "dsh-conformance: not assessed (exit status 6)" in done.stdout
    verdict = _document(tmp_path / "rep")["verdict"]
    assert verdict["levels"]["readme"]["plugins"]["schedule"]["verdict"] == "not assessed"


def test_a_usage_error_prints_no_verdict(tmp_path):
    done = _run(tmp_path, "--impl", "no_such_module:IMPL", "--report", "rep")
    assert done.returncode == 4
    assert "cannot load implementation 'no_such_module:IMPL'" in done.stderr
    assert "no verdict" in done.stderr


@pytest.fixture
def bridge(bridge_node: object) -> None:
    """The bridge is installed (see ``bridge_node`` in tests/conftest.py)."""


def test_one_section_on_the_official_build_keeps_its_known_failures(tmp_path, bridge):
    # Issue item 1: run the way the docs suggest, the section's node ids lose
    # their prefix; the expectations must still match (strict xfails, not failures).
    done = _run(
        tmp_path, "--impl", "official", "--report", "rep", "--section", "time-context",
        "-k", "test_configuration", "--workers", "1",
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert "dsh-conformance: conforms with known failures (exit status 0)" in done.stdout
    document = _document(tmp_path / "rep")
    outcomes = {t["outcome"] for t in document["tests"]}
    assert outcomes == {"passed", "xfailed"}
    known = [t for t in document["tests"] if t["outcome"] == "xfailed"]
    assert len(known) >= 5
    assert all(t["known_failure"].startswith("deviates from TC-") for t in known)


def test_pytest_prints_no_traceback_unless_the_user_asks():
    # The summary and the reports carry each failure; the user's own options win.
    from pytest_dsh.pytest_plugin.conformance_cli import quiet_addopts

    assert quiet_addopts({}) == "--tb=no -rN"
    assert quiet_addopts({"PYTEST_ADDOPTS": "--tb=long"}) == "--tb=no -rN --tb=long"

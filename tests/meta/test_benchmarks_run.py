"""The benchmark command keeps working on tiny sizes (figures are reported, never asserted)."""

from __future__ import annotations

import pathlib
import re
import sys

import kit_child_processes as children

SCRIPT = pathlib.Path(__file__).parents[2] / "benchmarks" / "run.py"
HEADERS = (
    "| implementation | log events | create ms | list ms | delete ms |",
    "| implementation | log events | log | fold wall s | fold CPU s | log MiB | fold's own MiB |",
    "| implementation | simulated days | dispatches | log events | wall s "
    "| CPU s (Node included) |",
)


def _run(*arguments: str, cwd: pathlib.Path) -> str:
    done = children.run(
        [sys.executable, str(SCRIPT), "--quick", *arguments],
        capture_output=True, text=True, check=False, cwd=cwd,
    )
    assert done.returncode == 0, done.stderr
    for header in HEADERS:
        assert header in done.stdout
    # The machine line names the interpreter build the figures came from.
    assert re.search(r"CPython \d+\.\d+\.\d+ \(libpython .*recorded\), Node ", done.stdout)
    return done.stdout


def _rows(output: str, implementation: str) -> int:
    return sum(1 for line in output.splitlines() if line.startswith(f"| {implementation} |"))


def test_the_reference_benchmarks_run_in_quick_mode(tmp_path):
    output = _run("--impl", "reference", cwd=tmp_path)
    # two op-latency sizes, one cold fold of a list and one streamed, one simulated span
    assert _rows(output, "reference") == 5
    assert _rows(output, "official") == 0


def test_both_builds_are_measured_in_one_run(tmp_path, bridge_node):
    output = _run(cwd=tmp_path)
    assert _rows(output, "reference") == 5
    assert _rows(output, "official") == 4
    (official_span,) = [line for line in output.splitlines()
                        if line.startswith("| official | 0.25 |")]
    node_cpu = official_span.split("|")[7].strip()
    assert node_cpu != "n/a" and float(node_cpu) > 0, "the Node process's CPU is counted"


def test_an_npm_runs_row_quotes_the_clis_verdict_not_the_report_files_after_it(tmp_path):
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import run; print(run.cli_verdict("
        "'verdict: conforms\\ndsh-conformance: conforms (exit status 0)\\n"
        "  dsh-report/report.html\\n  dsh-report/report.md\\n'), run.cli_verdict('only\\n'),"
        " repr(run.cli_verdict('')), sep='|')"
    )
    done = children.run([sys.executable, "-c", probe, str(SCRIPT.parent)],
                        capture_output=True, text=True, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "dsh-conformance: conforms (exit status 0)|only|''"

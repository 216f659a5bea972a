"""The benchmark script keeps working (figures are reported, never asserted)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).parents[2] / "benchmarks" / "run.py"


def test_benchmarks_run_in_quick_mode(tmp_path):
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "| benchmark | items | total s | per item µs | peak KiB |" in done.stdout
    assert done.stdout.count("\n| ") == 5  # the header and four figures

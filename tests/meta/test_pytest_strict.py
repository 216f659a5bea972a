"""An empty test selection must fail the run, not pass it (pytest exit 5)."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import kit_child_processes as children

SCRIPT = pathlib.Path(__file__).parents[2] / "scripts" / "pytest-strict"


def _run(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    pytest_bin = shutil.which("pytest", path=os.path.dirname(sys.executable))
    assert pytest_bin is not None
    return children.run(
        ["bash", str(SCRIPT), *args], capture_output=True, text=True, check=False,
        cwd=tmp_path, env={**os.environ, "PYTEST": pytest_bin},
    )


def test_no_collected_tests_is_a_failure(tmp_path):
    (tmp_path / "test_some.py").write_text("def test_x():\n    pass\n")
    done = _run(tmp_path, "-p", "no:cacheprovider", "-k", "no_such_test")
    assert done.returncode == 1
    assert "collected no tests" in done.stderr


def test_a_passing_run_passes_and_a_failing_run_keeps_its_status(tmp_path):
    (tmp_path / "test_some.py").write_text("def test_x():\n    pass\n")
    assert _run(tmp_path, "-p", "no:cacheprovider").returncode == 0
    (tmp_path / "test_bad.py").write_text("def test_y():\n    assert False\n")
    assert _run(tmp_path, "-p", "no:cacheprovider").returncode == 1

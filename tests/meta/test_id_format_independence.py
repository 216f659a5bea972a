"""Readme-level schedule tests never spell a ScheduleId.

The README promises ids that are stable, session-local and never reused, but
not their format: ``schedule-N`` is pinned detail SCH-ID-FORMAT. The reference
with ids spelled ``r-<n>`` (``remapped_ids_impl.py``) must therefore conform at
the readme level, while the compat level catches the different spelling.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import kit_child_processes as children
import pytest

# Installs packages or runs pytest in other processes: more than the default budget.
pytestmark = pytest.mark.dsh_wall_budget(600)

HERE = pathlib.Path(__file__).parent
REMAPPED = "--dsh-impl=remapped_ids_impl:IMPLEMENTATION"


def _run(*options: str) -> subprocess.CompletedProcess[str]:
    # A separate process: the remapped ids patch the reference where it is imported.
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    return children.run(
        [sys.executable, "-m", "pytest", "--pyargs", "dsh_conformance.schedule", "-q",
         "-p", "no:cacheprovider", "-p", "no:randomly", "--no-header", "-rf", REMAPPED,
         *options],
        capture_output=True, text=True, check=False, env=env, cwd=HERE,
    )


def test_readme_level_schedule_tests_accept_other_id_spellings():
    done = _run("--dsh-level=readme")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout, done.stdout[-2000:]


def test_the_compat_level_catches_the_other_id_spelling():
    done = _run("--dsh-level=compat", "-k", "test_ids_are_session_local_and_never_reused or "
                "test_a_fork_allocates_ids_from_schedule_1_again")
    assert done.returncode == 1, done.stdout[-4000:] + done.stderr[-2000:]
    assert "2 failed" in done.stdout, done.stdout[-2000:]
    assert "SCH-ID-FORMAT" in done.stdout and "'r-1'" in done.stdout, done.stdout[-4000:]

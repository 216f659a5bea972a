"""Runs of a variant implementation of tests/meta, each in its own process (a
variant patches the reference where it is imported): a probe script's
observations, or one whole-suite run read back from its JSON report."""

from __future__ import annotations

import json
import os
import pathlib
import sys
from typing import Any

import kit_child_processes as children

HERE = pathlib.Path(__file__).parent


def _env() -> dict[str, str]:
    """The environment with this folder on the path, so a variant imports."""
    return {**os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}


def observe(probe: str, module: str) -> dict[str, Any]:
    """What the script ``probe`` prints (its last line, JSON) about ``module``,
    run in its own process."""
    done = children.run([sys.executable, "-c", probe, module], capture_output=True, text=True,
                        check=False, env=_env(), cwd=HERE)
    assert done.returncode == 0, done.stderr[-4000:]
    observed: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return observed


def run_variant(implementation: str, report: pathlib.Path) -> dict[str, Any]:
    """The report of ``--dsh-impl=implementation`` over both levels.

    What is read is each test's outcome, level, pins and first message line,
    all in the report: the run neither prints nor formats a traceback
    (``--tb=no``; the message is the crash line either way), nor shrinks a
    failing property test's example (``unshrunk_failures.py``). A variant
    fails hundreds of compat tests: the two were about a third of its CPU."""
    env = _env()
    done = children.run(
        [sys.executable, "-m", "pytest", "--pyargs", "dsh_conformance", "-q",
         "-p", "no:cacheprovider", "-p", "no:randomly", "--no-header",
         "-p", "unshrunk_failures", "--tb=no",
         f"--dsh-impl={implementation}", "--dsh-level=all", f"--dsh-report={report}"],
        capture_output=True, text=True, check=False, env=env, cwd=HERE,
    )
    assert report.exists(), done.stdout[-4000:] + done.stderr[-2000:]
    document: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return document


def failed_at(report: dict[str, Any], level: str) -> list[dict[str, Any]]:
    """The report's failed (or erroring) tests of ``level``."""
    return [row for row in report["tests"]
            if row["level"] == level and row["outcome"] in ("failed", "error")]

"""A plugin with five distinct bugs reads as five items on the first screen.

Five mutants of the catalog are applied together (``DSH_MUTANT``) in another
process, where the probes (``-m dsh_probe``) run: never in this one, whose
reference the other tests of the run use. The terminal's first screen and the
first 40 lines of report.md must name exactly the five broken behaviours, and
first. docs/conformance-power.md records the full-section run and how many
probes each single mutant fails.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
from typing import Any

import pytest

# Runs the probes in another process: more than the default budget.
pytestmark = pytest.mark.dsh_wall_budget(600)

HERE = pathlib.Path(__file__).parent

#: Mutant -> the probe that isolates the behaviour it breaks (the catalog describes each).
FIVE_BUGS = {
    "reminders-fire-early": "one-shots-fire-at-their-targets",
    "overlap-resolves-to-the-later-instant": "overlap-takes-the-earlier-instant",
    "delete-trims-padded-ids": "padded-delete-id-rejected",
    "batch-framing-reversed": "batch-in-target-then-creation-order",
    "ids-reused-after-delete": "ids-never-reused",
}

_ITEM = re.compile(r"^ ?\d+\. basic behaviour broken: .* \[(?P<probe>[a-z0-9-]+)[;\]]")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, pathlib.Path]:
    out = tmp_path_factory.mktemp("five-bugs")
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])),
           "DSH_MUTANT": ",".join(FIVE_BUGS)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", "dsh_conformance", "-q", "-m", "dsh_probe",
         "-p", "no:cacheprovider", "-p", "no:randomly", "--no-header",
         "--dsh-impl=mutant_impls:IMPLEMENTATION", f"--dsh-report={out}"],
        capture_output=True, text=True, check=False, env=env, cwd=HERE,
    )
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    return done.stdout, out


def test_the_terminal_first_screen_names_the_five_broken_behaviours_first(run):
    stdout, _ = run
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "basic behaviours broken" in line)
    assert lines[start].endswith("5 basic behaviours broken, 0 other causes:"), lines[start]
    items = [m["probe"] for line in lines[start + 1:] if (m := _ITEM.match(line))]
    assert sorted(items) == sorted(FIVE_BUGS.values())
    numbered = [line for line in lines[start + 1:] if re.match(r"^ ?\d+\. ", line)]
    assert len(numbered) == 5  # nothing else is numbered: no other cause


def test_report_md_names_the_five_behaviours_in_its_first_40_lines(run):
    _, out = run
    top = (out / "report.md").read_text("utf-8").splitlines()[:40]
    assert "## Broken basic behaviours (5)" in top
    rows = [line for line in top if re.match(r"^\| \d \| basic behaviour broken: ", line)]
    found = sorted(re.search(r"\\\[([a-z0-9-]+)[;\\]", row)[1] for row in rows)  # type: ignore[index]
    assert found == sorted(FIVE_BUGS.values())


def test_the_json_report_lists_the_behaviours_and_every_failing_probe_once(run):
    _, out = run
    document: dict[str, Any] = json.loads((out / "report.json").read_text("utf-8"))
    behaviours = document["behaviours"]
    assert sorted(b["probe"] for b in behaviours) == sorted(FIVE_BUGS.values())
    failing = {t["id"] for t in document["tests"] if t["outcome"] == "failed" and t["probe"]}
    assert sorted(i for b in behaviours for i in b["tests"]) == sorted(failing)
    assert all(c["follows"] in FIVE_BUGS.values() for c in document["causes"])

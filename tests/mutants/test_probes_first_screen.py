"""A plugin with five distinct bugs reads as five items on the first screen.

Five mutants of the catalog are applied together (``DSH_MUTANT``) in another
process, where the probes (``-m dsh_probe``) run: never in this one, whose
reference the other tests of the run use. The terminal's first screen and the
first 40 lines of report.md must name exactly the five broken behaviours, and
first. docs/conformance-power.md records the full-section run and how many
probes each single mutant fails.

Then four of those bugs with a value-shape choice the README leaves open (error
values ``{error, reason}``, pin SCH-ERROR-VALUE-SHAPE): over whole modules
(readme and compat tests, not only probes) the first screen still opens with
the four bugs; the shape is one compat cause below every readme item, its
messages naming the real difference (the key the code is under), and the
terminal ends with the causes, after pytest's per-test ``FAILED`` lines.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys
from typing import Any

import kit_child_processes as children
import pytest

from dsh_conformance.layout_free import CLOSED_CODES, NOT_FOUND_CODE
from dsh_conformance.sections import SECTIONS

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
#: Four real bugs (their probes) and a value-shape choice that is no bug.
FOUR_BUGS = {name: probe for name, probe in FIVE_BUGS.items()
             if name != "overlap-resolves-to-the-later-instant"}
SHAPE_CHOICE = "error-value-fields-renamed"
SHAPE = "the closed code is under 'error', not 'code'"
CODES = CLOSED_CODES | {NOT_FOUND_CODE}
#: Whole modules: every probe of the four bugs, and readme and compat tests around them
#: (each of these files, in every README section folder that has one).
MODULES = [
    f"dsh_conformance.schedule.{section.folder}.{name}"
    for section in SECTIONS if section.plugin == "schedule"
    for name in ("test_management_tools", "test_durable_state", "test_delivery_lifecycle",
                 "test_probes")
    if importlib.util.find_spec(f"dsh_conformance.schedule.{section.folder}.{name}")
]

_ITEM = re.compile(r"^ ?\d+\. basic behaviour broken: .* \[(?P<probe>[a-z0-9-]+)[;\]]")
_NUMBERED = re.compile(r"^ ?\d+\. ")


def _run(
    out: pathlib.Path, mutants: list[str], *selection: str
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])),
           "DSH_MUTANT": ",".join(mutants)}
    return children.run(
        [sys.executable, "-m", "pytest", "--pyargs", *selection, "-q",
         "-p", "no:cacheprovider", "-p", "no:randomly", "--no-header",
         "--dsh-impl=mutant_impls:IMPLEMENTATION", f"--dsh-report={out}"],
        capture_output=True, text=True, check=False, env=env, cwd=HERE,
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, pathlib.Path]:
    out = tmp_path_factory.mktemp("five-bugs")
    done = _run(out, list(FIVE_BUGS), "dsh_conformance", "-m", "dsh_probe")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    return done.stdout, out


@pytest.fixture(scope="module")
def shaped(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, pathlib.Path]:
    out = tmp_path_factory.mktemp("four-bugs-and-a-shape")
    done = _run(out, [*FOUR_BUGS, SHAPE_CHOICE], *MODULES)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    return done.stdout, out


def _first_screen(stdout: str) -> tuple[list[str], int]:
    lines = stdout.splitlines()
    return lines, next(i for i, line in enumerate(lines) if "basic behaviours broken" in line)


def test_the_terminal_first_screen_names_the_five_broken_behaviours_first(run):
    lines, start = _first_screen(run[0])
    assert "5 basic behaviours broken, 0 other README causes, " in lines[start], lines[start]
    items = [m["probe"] for line in lines[start + 1:] if (m := _ITEM.match(line))]
    assert sorted(items) == sorted(FIVE_BUGS.values())
    numbered = [line for line in lines[start + 1:] if _NUMBERED.match(line)]
    assert len(numbered) == 5  # nothing else is numbered: no other readme cause


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
    assert all(c["follows"] in FIVE_BUGS.values() for c in document["causes"]
               if c["requirement"]["level"] == "readme")


def test_the_value_shape_choice_alone_conforms_at_readme_level(tmp_path):
    done = _run(tmp_path, [SHAPE_CHOICE], *MODULES, "--dsh-level=readme")
    assert done.returncode == 0, done.stdout[-3000:]
    assert "verdict: conforms (exit status 0)" in done.stdout


def test_four_bugs_and_a_value_shape_choice_open_with_the_four_bugs(shaped):
    lines, start = _first_screen(shaped[0])
    assert " 4 basic behaviours broken, " in lines[start], lines[start]
    numbered = [line for line in lines[start + 1:] if _NUMBERED.match(line)]
    first = [m["probe"] for line in numbered[:4] if (m := _ITEM.match(line))]
    assert sorted(first) == sorted(FOUR_BUGS.values())
    # The shape is no readme item: it is the largest compat cause, one line below them all.
    assert not any("value shape" in line or SHAPE in line for line in numbered)
    compat = next(i for i, line in enumerate(lines) if line.startswith("compat failures ("))
    assert compat > lines.index(numbered[-1])
    assert f"] compat value shape: {SHAPE} (" in lines[compat + 1], lines[compat + 1]


def test_the_terminal_ends_with_the_causes_after_every_failed_line(shaped):
    lines, start = _first_screen(shaped[0])
    failed = [n for n, line in enumerate(lines) if line.startswith("FAILED ")]
    assert failed and max(failed) < start
    assert lines[-2].startswith("verdict: does not conform"), lines[-3:]


def test_every_compat_failure_of_the_shape_names_the_real_difference(shaped):
    _, out = shaped
    document: dict[str, Any] = json.loads((out / "report.json").read_text("utf-8"))
    assert sorted(b["probe"] for b in document["behaviours"]) == sorted(FOUR_BUGS.values())
    readme = [c for c in document["causes"] if c["requirement"]["level"] == "readme"]
    compat = [c for c in document["causes"] if c["requirement"]["level"] == "compat"]
    assert document["causes"] == readme + compat  # readme first
    assert not any(c["shape"] for c in readme)
    assert compat[0]["shape"] == SHAPE and compat[0]["follows"] is None
    # A pinned check requiring one closed code of a value holding it under
    # 'error' says so, not only "requires <code>; observed {'error': <code>}".
    checked = 0
    for test in document["tests"]:
        message = test["message"] or ""
        required, _, observed = message.partition("; observed ")
        codes = set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", required)) & CODES
        if (test["outcome"] == "failed" and message.startswith("AssertionError: pinned detail")
                and observed.startswith("{'error': ") and len(codes) == 1):
            assert SHAPE in required and test["id"] in compat[0]["tests"], message
            checked += 1
    assert checked >= 20
    top = (out / "report.md").read_text("utf-8").splitlines()[:40]
    assert "## Broken basic behaviours (4)" in top

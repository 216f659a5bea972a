"""Every module path of the flat layout still imports, as the very module now
at its new path, with every public name it had.

``data/flat_layout_exports.json`` was written from the flat layout itself,
before the move: for each public module, its ``__all__`` (or, without one, the
public names it defined). Level: kit API (no README sentence)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_dsh._old_paths import MOVED

FLAT = json.loads((Path(__file__).parent / "data" / "flat_layout_exports.json").read_text())

#: Names the move withdrew on purpose, and why (docs/package-map.md says so too).
WITHDRAWN = {
    ("pytest_dsh.virtual_loop", "budget"): (
        "the budget of the running test is replaced for every test phase; it lives in "
        "pytest_dsh.driving.runaway (read runaway.budget), where both hosts read it, and "
        "a name bound here would keep the first value"
    ),
    # The report document (reporting.views.ReportDocument) carries what these
    # made again from a JSON document on every call, computed once when it is built.
    **{("pytest_dsh.reporting.document", name): f"ReportDocument.{field}" for name, field in (
        ("causes", "failures.causes"), ("behaviours", "failures.behaviours"),
        ("failures", "failed"), ("not_collected", "not_collected"))},
    **{("pytest_dsh.reporting.first_screen", name): f"reporting.views: {home}" for name, home in (
        ("behaviour_label", "behaviour_label"), ("own_line", "own_line"),
        ("behaviour_line", "BehaviourRow.line"), ("other_causes", "Failures.others"))},
    ("pytest_dsh.reporting.summary", "cause_lines"): "the first screen renders CauseRow",
}


def test_the_alias_table_covers_every_flat_module_that_moved() -> None:
    moved = {old for old in FLAT if importlib.util.find_spec(old).origin is None}  # type: ignore[union-attr]
    assert moved == set(MOVED)


@pytest.mark.parametrize("old", sorted(FLAT))
def test_a_flat_path_imports_with_all_its_names(old: str) -> None:
    module = importlib.import_module(old)
    missing = [
        name for name in FLAT[old] if not hasattr(module, name) and (old, name) not in WITHDRAWN
    ]
    assert missing == []
    if old in MOVED:
        assert module is importlib.import_module(MOVED[old])
        # The module keeps its own identity: name, spec and file are the new ones.
        assert module.__name__ == MOVED[old]
        assert module.__spec__ is not None and module.__spec__.name == MOVED[old]


def test_a_withdrawn_name_is_really_gone_and_has_its_new_home() -> None:
    for old, name in WITHDRAWN:
        assert not hasattr(importlib.import_module(old), name)
    from pytest_dsh.driving import runaway

    assert isinstance(runaway.budget, runaway.Budget)


def test_an_old_patch_target_reaches_the_code_that_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_dsh.driving import runaway

    monkeypatch.setattr("pytest_dsh.virtual_loop.SPIN_ITERATIONS", 7)
    from pytest_dsh.fake_host import virtual_loop

    assert virtual_loop.SPIN_ITERATIONS == 7
    monkeypatch.setattr("pytest_dsh.budget.runaway.budget", runaway.Budget(steps=3))
    assert runaway.budget.steps == 3


def test_a_submodule_of_a_moved_package_is_not_loaded_twice() -> None:
    code = (
        "import sys, pytest_dsh.reporting.verdicts as old\n"
        "import pytest_dsh.pytest_plugin.reporting.verdicts as new\n"
        "assert old is new\n"
        "print(sorted(n for n, m in sys.modules.items() if m is new))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == (
        "['pytest_dsh.pytest_plugin.reporting.verdicts', 'pytest_dsh.reporting.verdicts']"
    )


def test_an_old_module_path_still_runs_with_dash_m() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest_dsh.version_matrix", "--help"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "--out" in done.stdout


def test_an_unknown_path_is_still_an_import_error() -> None:
    with pytest.raises(ModuleNotFoundError, match=r"pytest_dsh\.no_such_module"):
        importlib.import_module("pytest_dsh.no_such_module")

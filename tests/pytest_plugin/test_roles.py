"""Tests of a role the implementation does not provide are skipped with the
reason, never failed and never passed: the role comes from the test's
``dsh_requires`` markers and from the suite folder it lives in
(:mod:`pytest_dsh.pytest_plugin.roles`). Kit behaviour: no README sentence.

The meta-tests run the whole suite against the reference plugins of one role,
without their invariant companions: a conformance test that needs a plugin
and does not declare it fails there (``UnknownPluginError``).
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

import kit_child_processes as children
import pytest

BARE_IMPLS = textwrap.dedent(
    """
    from pytest_dsh import PythonImplementation
    from dsh_reference.implementation import IMPLEMENTATION as REFERENCE

    TIME_CONTEXT_ONLY = PythonImplementation(
        "tc-bare", "1.0", {"time-context": REFERENCE.plugins["time-context"]},
        frozenset({"time-context", "process-zone"}),
    )
    SCHEDULE_ONLY = PythonImplementation(
        "sch-bare", "1.0", {"schedule": REFERENCE.plugins["schedule"]},
        frozenset({"schedule"}),
    )
    """
)


def _suite_run(pytester: pytest.Pytester, impl: str) -> dict[str, Any]:
    pytester.makepyfile(bare_impls=BARE_IMPLS)
    pytester.syspathinsert()
    # One process: the roles are decided per test, the same with workers or
    # without (the parallel runs' tests hold workers to the serial verdict),
    # and two more workers under the kit's own only add their start-up.
    result = children.runpytest_subprocess(
        pytester, "--pyargs", "dsh_conformance", f"--dsh-impl=bare_impls:{impl}",
        "--dsh-report=out.json", "-p", "no:cacheprovider",
    )
    document: dict[str, Any] = json.loads((pytester.path / "out.json").read_text("utf-8"))
    failing = [t["id"] for t in document["tests"] if t["outcome"] in ("failed", "error")]
    assert not failing, result.stdout.str()[-3000:]
    assert result.ret == 0
    return document


def _rows(document: dict[str, Any], plugin: str) -> list[dict[str, Any]]:
    return [entry["plugins"][plugin] for entry in document["verdict"]["levels"].values()]


@pytest.mark.dsh_wall_budget(300)
@pytest.mark.parametrize(
    ("impl", "provided", "absent"),
    [("TIME_CONTEXT_ONLY", "time-context", "schedule"),
     ("SCHEDULE_ONLY", "schedule", "time-context")],
)
def test_every_suite_test_of_an_absent_role_is_skipped_not_failed(
    pytester: pytest.Pytester, impl: str, provided: str, absent: str
) -> None:
    document = _suite_run(pytester, impl)
    absent_rows = [t for t in document["tests"] if t["plugin"] == absent]
    assert absent_rows and {t["outcome"] for t in absent_rows} == {"skipped"}
    for row in _rows(document, absent):
        assert row["verdict"] == "not assessed" and not row["counted"]
    assert document["verdict"]["plugins"][absent] is None
    assert document["verdict"]["plugins"][provided] == "conforms"
    # The companion's tests are skipped with the reason, as the role's are.
    companion = f"{provided}-invariant"
    reasons = {t["message"] for t in document["tests"] if t["outcome"] == "skipped"}
    assert any(companion in str(reason) for reason in reasons)
    assert any(str(reason).endswith(f"does not declare {absent}") for reason in reasons)


def test_a_suite_folder_gives_its_role_without_a_marker(pytester: pytest.Pytester) -> None:
    # schedule/known_limitations/test_crash_enumeration.py declares no dsh_requires: its
    # folder does.
    pytester.makepyfile(bare_impls=BARE_IMPLS)
    pytester.syspathinsert()
    result = pytester.runpytest(
        "--pyargs", "dsh_conformance.schedule.known_limitations.test_crash_enumeration",
        "--dsh-impl=bare_impls:TIME_CONTEXT_ONLY", "-rs", "-p", "no:cacheprovider",
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("skipped", 0) > 0 and "failed" not in outcomes and "passed" not in outcomes
    result.stdout.fnmatch_lines(["*implementation 'tc-bare' does not declare schedule*"])

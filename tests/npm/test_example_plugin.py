"""The example third-party plugin (examples/dsh-schedule-wrapper) through the
zero-Python npm path: the suite fails exactly the official build's known
failures (it wraps that build) plus the tests of its one deliberate
deviation, SCH-036's "schedule_not_found" code, with readable messages."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_dsh.npm.expectations import load_expectations

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dsh-schedule-wrapper"

UNKNOWN_ID_TEST = (
    "schedule/test_management_tools.py::"
    "test_unknown_deleted_and_dispatched_ids_are_not_found_and_append_nothing"
)


def test_the_example_declares_its_deviation_against_real_tests_and_sentences():
    deviations = load_expectations(EXAMPLE / "expected-deviations.json")
    assert UNKNOWN_ID_TEST in deviations
    assert {s for entry in deviations.values() for s in entry["sentences"]} == {"SCH-036"}
    manifest = json.loads((EXAMPLE / "package.json").read_text("utf-8"))
    assert "@deepseek-ai/dsh-schedule" in manifest["dependencies"]


def test_the_suite_fails_exactly_the_expected_tests_of_the_example(tmp_path, kit):
    kit.require_npm()
    run = kit.run_suite(
        [
            *kit.schedule_section(),
            "--dsh-impl=npm",
            "--dsh-npm", f"schedule={EXAMPLE}",
        ],
        cwd=tmp_path,
        env=kit.user_env(),
    )
    assert run.outcomes, run.output[-3000:]
    deviations = set(load_expectations(EXAMPLE / "expected-deviations.json"))
    expected = (set(kit.official_expectations()) | deviations) - run.ids("skipped")
    assert run.ids("error") == set()
    assert run.ids("failed") == expected & set(run.outcomes)
    assert deviations <= run.ids("failed")
    message = run.messages[UNKNOWN_ID_TEST]
    assert "not_found" in message and "schedule_not_found" in message

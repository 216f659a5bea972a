"""Known failures in the dsh-expectations/1 format: the loader's checks, the
--dsh-expectations option and its ini twin, and keys that stay valid however
the suite is invoked (issue item 1)."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest

from pytest_dsh.expectations import (
    ExpectationsError,
    expectations_schema,
    load_expectations_file,
    unknown_test_ids,
)
from pytest_dsh.implementations import conformance_root
from pytest_dsh.pytest_plugin.reporting import report_schema

VALID = {
    "format": "dsh-expectations/1",
    "about": "toy",
    "classes": {"accepts-negative": "We accept a negative interval."},
    "expected_failures": {
        "test_failing.py::test_interval_must_be_safe": {
            "class": "accepts-negative",
            "sentences": ["TC-012"],
            "note": "ticket 7",
        }
    },
}


def _write(tmp_path, document) -> str:
    path = tmp_path / "known.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return str(path)


def test_a_valid_file_gives_one_reason_per_test(tmp_path):
    expectations = load_expectations_file(_write(tmp_path, VALID))
    assert expectations.reasons() == {
        "test_failing.py::test_interval_must_be_safe": "deviates from TC-012: "
        "[accepts-negative] We accept a negative interval. Here: ticket 7."
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("format"), "'format' must be 'dsh-expectations/1' (found None)"),
        (lambda d: d.update(format="dsh-expectations/2"), "found 'dsh-expectations/2'"),
        (
            lambda d: d["expected_failures"]["test_failing.py::test_interval_must_be_safe"].update(
                {"class": "nope"}
            ),
            "class 'nope' is not in 'classes' (known: accepts-negative)",
        ),
        (
            lambda d: d["expected_failures"]["test_failing.py::test_interval_must_be_safe"].update(
                {"sentences": ["TC-999"]}
            ),
            "no README sentence TC-999",
        ),
        (
            lambda d: d["expected_failures"]["test_failing.py::test_interval_must_be_safe"].update(
                {"reason": "x"}
            ),
            "['expected_failures']['test_failing.py::test_interval_must_be_safe']: "
            "Additional properties are not allowed ('reason' was unexpected)",
        ),
        (
            lambda d: d["expected_failures"].update({"not a test id": d["expected_failures"].pop(
                "test_failing.py::test_interval_must_be_safe")}),
            "'not a test id' does not match",
        ),
    ],
)
def test_problems_are_one_error_naming_the_entry(tmp_path, change, message):
    document = json.loads(json.dumps(VALID))
    change(document)
    with pytest.raises(ExpectationsError) as caught:
        load_expectations_file(_write(tmp_path, document))
    assert message in str(caught.value)
    assert str(tmp_path / "known.json") in str(caught.value)


def test_a_file_that_is_not_json_names_line_and_column(tmp_path):
    with pytest.raises(ExpectationsError, match=r"not JSON: .* at line 2, column 1"):
        load_expectations_file(_write(tmp_path, '{"format":\n}'))


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ExpectationsError, match="cannot read expectations file"):
        load_expectations_file(tmp_path / "absent.json")


def test_the_official_expectations_follow_the_documented_format():
    path = resources.files("pytest_dsh.official").joinpath("expectations.json")
    document = json.loads(path.read_text("utf-8"))
    jsonschema.validate(document, expectations_schema())
    loaded = load_expectations_file(str(path))
    assert len(loaded.failures) == len(document["expected_failures"]) > 0


def test_the_option_turns_entries_into_strict_xfails(impls, failing_test, tmp_path):
    impls.makepyfile(test_failing=failing_test)
    result = impls.runpytest(
        "--dsh-impl=impls:FULL", f"--dsh-expectations={_write(tmp_path, VALID)}", "-rx"
    )
    assert result.ret == 0
    result.assert_outcomes(xfailed=1)
    result.stdout.fnmatch_lines(["*1 known failures*", "*XFAIL*deviates from TC-012*ticket 7*"])


def test_the_ini_twin_is_relative_to_the_ini_file(impls, failing_test):
    impls.makepyfile(test_failing=failing_test)
    (impls.path / "conf").mkdir()
    (impls.path / "conf" / "known.json").write_text(json.dumps(VALID))
    impls.makeini("[pytest]\ndsh_expectations = conf/known.json\n")
    impls.runpytest("--dsh-impl=impls:FULL").assert_outcomes(xfailed=1)


def test_a_misspelt_key_is_a_usage_error_with_a_suggestion(impls, failing_test, tmp_path):
    impls.makepyfile(test_failing=failing_test)
    document = json.loads(json.dumps(VALID))
    entry = document["expected_failures"].pop("test_failing.py::test_interval_must_be_safe")
    document["expected_failures"]["test_failing.py::test_interval_must_be_saf"] = entry
    result = impls.runpytest(
        "--dsh-impl=impls:FULL", f"--dsh-expectations={_write(tmp_path, document)}"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*expected failures that name no test of the suite*",
            "*'test_failing.py::test_interval_must_be_saf' names no collected test; "
            "did you mean 'test_failing.py::test_interval_must_be_safe'?",
        ]
    )


def test_keys_of_sections_not_run_are_checked_against_the_suite_files():
    root = conformance_root()
    collected = {"time_context/overview/test_overview.py::test_x"}
    problems = unknown_test_ids(
        [
            "schedule/overview/test_composition.py::test_root_created_after_load_gets_exactly_the_three_tools",
            "schedule/test_nope.py::test_x",
            "schedule/composition/test_composition.py::test_nothing_like_this[p]",
        ],
        collected,
        root,
    )
    assert problems == [
        "'schedule/composition/test_composition.py::test_nothing_like_this[p]': "
        "schedule/composition/test_composition.py defines no test 'test_nothing_like_this'",
        "'schedule/test_nope.py::test_x': no file 'schedule/test_nope.py' in the conformance suite",
    ]


def test_a_key_from_before_the_section_layout_names_the_tests_new_id():
    # Test files moved into README section folders (schedule/test_x.py ->
    # schedule/<section>/test_x.py); an old key is refused with its new id.
    root = conformance_root()
    old = ("schedule/test_composition.py::"
           "test_root_created_after_load_gets_exactly_the_three_tools")
    moved = ("schedule/test_probes.py::"
             "test_a_fork_lists_none_of_its_parents_reminders[p]")
    problems = unknown_test_ids([old, moved], set(), root)
    assert problems == [
        f"{old!r}: no file 'schedule/test_composition.py' in the conformance suite; test files "
        "are in README section folders now: did you mean 'schedule/overview/test_composition.py::"
        "test_root_created_after_load_gets_exactly_the_three_tools'?",
        f"{moved!r}: no file 'schedule/test_probes.py' in the conformance suite; test files are "
        "in README section folders now: did you mean 'schedule/durable_state/test_probes.py::"
        "test_a_fork_lists_none_of_its_parents_reminders[p]'?",
    ]


def test_one_section_run_keeps_package_relative_ids(pytester):
    # The node ids of a section run lose their section prefix; the stable ids must not.
    result = pytester.runpytest(
        "--pyargs", "dsh_conformance.time_context", "--dsh-impl=reference",
        "-k", "test_both_keys_are_optional", "--dsh-report=out.json",
    )
    assert result.ret == 0
    document = json.loads((pytester.path / "out.json").read_text())
    jsonschema.validate(document, report_schema())
    tests = document["tests"]
    assert [t["id"] for t in tests] == [
        "time_context/configuration/test_configuration.py::test_both_keys_are_optional"
    ]
    assert tests[0]["nodeid"] == "configuration/test_configuration.py::test_both_keys_are_optional"

"""Requirement levels: --dsh-level and its ini twin select them; every report
and the JUnit XML name each test's level, plugin, sentences and pinned details."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest


def test_compat_marked_tests_are_level_compat_and_the_rest_readme(impls, spec_tests):
    impls.makepyfile(test_spec=spec_tests)
    impls.runpytest("--dsh-impl=impls:FULL", "--dsh-report=out.json")
    tests = {t["id"]: t for t in json.loads((impls.path / "out.json").read_text())["tests"]}
    assert tests["test_spec.py::test_a_pinned_detail"]["level"] == "compat"
    assert tests["test_spec.py::test_a_pinned_detail"]["pinned_details"] == ["PIN-DEMO"]
    assert tests["test_spec.py::test_schedule_loads"]["level"] == "readme"
    assert tests["test_spec.py::test_schedule_loads"]["plugin"] == "schedule"
    assert tests["test_spec.py::test_time_context_loads"]["sentences"] == ["TC-015"]


@pytest.mark.parametrize(
    ("args", "ini", "passed", "levels"),
    [
        (["--dsh-level=readme"], None, 2, ["readme"]),
        (["--dsh-level=compat"], None, 1, ["compat"]),
        (["--dsh-level=all"], None, 3, ["readme", "compat"]),
        ([], "compat", 1, ["compat"]),
        (["--dsh-level=readme"], "compat", 2, ["readme"]),  # the command line wins
    ],
)
def test_levels_select_tests(impls, spec_tests, args, ini, passed, levels):
    impls.makepyfile(test_spec=spec_tests)
    if ini:
        impls.makeini(f"[pytest]\ndsh_level = {ini}\n")
    result = impls.runpytest("--dsh-impl=impls:FULL", "--dsh-report=out.json", *args)
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] == passed
    assert outcomes.get("deselected", 0) == 3 - passed
    assert json.loads((impls.path / "out.json").read_text())["levels"] == levels
    result.stdout.fnmatch_lines([f"dsh: levels {', '.join(levels)}; *"])


def test_an_unknown_level_in_the_ini_is_a_usage_error(impls, spec_tests):
    impls.makepyfile(test_spec=spec_tests)
    impls.makeini("[pytest]\ndsh_level = strict\n")
    result = impls.runpytest("--dsh-impl=impls:FULL")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*dsh_level: 'strict' is not one of readme, compat, all*"])


def test_junit_xml_carries_level_plugin_sentences_and_pinned_details(impls, spec_tests):
    impls.makepyfile(test_spec=spec_tests)
    impls.runpytest("--dsh-impl=impls:FULL", "--junitxml=junit.xml")
    cases = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in ET.parse(impls.path / "junit.xml").getroot().iter("testcase")
    }
    assert cases["test_a_pinned_detail"] == {
        "test_id": "test_spec.py::test_a_pinned_detail",
        "level": "compat",
        "plugin": "time-context",
        "sentences": "",
        "pinned_details": "PIN-DEMO",
    }
    assert cases["test_schedule_loads"]["level"] == "readme"
    assert cases["test_schedule_loads"]["sentences"] == "SCH-001"
    assert cases["test_schedule_loads"]["plugin"] == "schedule"

"""The suite is laid out by README section, and each test stays in its section.

``conformance/<plugin>/<section>/`` holds the tests of one README section
(``dsh_conformance.sections``). A test's section is the one holding most of the
sentences it cites (on a tie, the first-cited one's); a test citing none (a
guard of its file's scenarios) must share its file with tests that cite the
section. A failure names the test, its sentences and the folder it belongs in.
"""

from __future__ import annotations

import importlib
import inspect
import pathlib
import pkgutil
from typing import NamedTuple

import pytest

import dsh_conformance
from dsh_conformance.sections import SECTIONS, folder_of, primary_section
from dsh_spec.sentences import Sentence, all_sentences

SENTENCES = {sentence.id: sentence for sentence in all_sentences()}
PLUGIN_PACKAGES = sorted({section.package for section in SECTIONS})


class SuiteTest(NamedTuple):
    module: str  # dsh_conformance.<plugin>.<section>.test_x
    name: str
    sentences: tuple[str, ...]


def _sentences_of(function: object) -> tuple[str, ...]:
    marks = getattr(function, "pytestmark", [])
    return tuple(str(i) for mark in marks if mark.name == "spec" for i in mark.args)


def _suite_tests() -> list[SuiteTest]:
    found = []
    for package in PLUGIN_PACKAGES:
        root = importlib.import_module(f"dsh_conformance.{package}")
        for info in pkgutil.walk_packages(root.__path__, root.__name__ + "."):
            if not info.name.rpartition(".")[2].startswith("test_"):
                continue
            module = importlib.import_module(info.name)
            for name, function in inspect.getmembers(module, inspect.isfunction):
                if name.startswith("test_") and function.__module__ == info.name:
                    found.append(SuiteTest(info.name, name, _sentences_of(function)))
    return found


def misplaced(tests: list[SuiteTest], sentences: dict[str, Sentence]) -> list[str]:
    """One line per test outside its section's folder."""
    problems = []
    cited_files = {test.module for test in tests if test.sentences}
    for test in tests:
        parts = test.module.split(".")
        where = "/".join(parts[1:-1])
        if not test.sentences:
            if test.module not in cited_files:
                problems.append(f"{where}/{parts[-1]}.py::{test.name} cites no sentence and "
                                "shares its file with no test that does")
            continue
        if len(parts) != 4:
            problems.append(f"{where}/{parts[-1]}.py::{test.name} is not in a section folder")
            continue
        section = primary_section(list(test.sentences), sentences)
        if section.folder != parts[2]:
            problems.append(
                f"{where}/{parts[-1]}.py::{test.name} cites {', '.join(test.sentences)}, mostly "
                f"of README section {section.heading!r}: it belongs in "
                f"{section.package}/{section.folder}/")
    return problems


SUITE_TESTS = _suite_tests()


def test_every_suite_test_is_in_the_folder_of_its_primary_section():
    assert len(SUITE_TESTS) > 400
    assert misplaced(SUITE_TESTS, SENTENCES) == []


def test_a_misplaced_test_is_named_with_its_sentences_and_its_folder():
    tests = [
        SuiteTest("dsh_conformance.schedule.composition.test_x", "test_y", ("SCH-020", "SCH-004")),
        SuiteTest("dsh_conformance.schedule.test_flat", "test_z", ("SCH-004",)),
        SuiteTest("dsh_conformance.schedule.composition.test_w", "test_uncited", ()),
        # A tie goes to the first-cited sentence's section.
        SuiteTest("dsh_conformance.schedule.composition.test_v", "test_tie",
                  ("SCH-004", "SCH-020")),
    ]
    assert misplaced(tests, SENTENCES) == [
        "schedule/composition/test_x.py::test_y cites SCH-020, SCH-004, mostly of README "
        "section 'Durable state': it belongs in schedule/durable_state/",
        "schedule/test_flat.py::test_z is not in a section folder",
        "schedule/composition/test_w.py::test_uncited cites no sentence and shares its file "
        "with no test that does",
    ]


def test_most_cited_section_wins_over_the_first_cited():
    ids = ["SCH-004", "SCH-020", "SCH-021"]  # Composition once, Durable state twice
    assert primary_section(ids, SENTENCES).folder == "durable_state"


@pytest.mark.parametrize("sentence", list(SENTENCES.values()), ids=list(SENTENCES))
def test_every_readme_sentence_has_a_section_folder(sentence):
    section = folder_of(sentence)
    assert section.plugin == sentence.plugin


def test_the_section_folders_are_the_packages_of_the_suite():
    root = pathlib.Path(dsh_conformance.__file__).parent
    for package in PLUGIN_PACKAGES:
        folders = sorted(p.parent.name for p in (root / package).glob("*/__init__.py"))
        declared = sorted(s.folder for s in SECTIONS if s.package == package)
        assert folders == declared, f"conformance/{package}/ has folders {folders}"
        flat = sorted(p.name for p in (root / package).glob("test_*.py"))
        assert flat == [], f"conformance/{package}/ holds tests outside a section: {flat}"

"""The expectations file of the official build stays well-formed: every entry
names a known class and real README sentences, and points at a test that
exists in the conformance suite. (Whether each entry still fails is checked by
the suite itself: the entries are strict xfails.)"""

from __future__ import annotations

import json
import re
from importlib import resources

from dsh_spec.sentences import all_sentences
from pytest_dsh import NodeImplementation
from pytest_dsh.official import IMPLEMENTATION, load_expectations


def _document():
    text = resources.files("pytest_dsh.official").joinpath("expectations.json").read_text("utf-8")
    return json.loads(text)


def test_the_file_is_a_dsh_expectations_document():
    assert _document()["format"] == "dsh-expectations/1"


def test_every_entry_has_a_known_class_and_real_sentences():
    document = _document()
    known = {sentence.id for sentence in all_sentences()}
    for test_id, entry in document["expected_failures"].items():
        assert entry["class"] in document["classes"], test_id
        assert entry["sentences"], test_id
        assert set(entry["sentences"]) <= known, test_id


def test_every_entry_names_a_test_of_the_suite():
    suite = resources.files("dsh_conformance")
    for test_id in _document()["expected_failures"]:
        path, _, name = test_id.partition("::")
        function = re.sub(r"\[.*\]$", "", name)
        source = suite.joinpath(path).read_text("utf-8")
        assert f"def {function}(" in source, test_id


def test_the_implementation_exposes_every_entry_as_a_reason():
    expected = IMPLEMENTATION.expected_failures
    assert set(expected) == set(load_expectations()) == set(_document()["expected_failures"])
    assert all(reason.startswith("deviates from ") for reason in expected.values())


def test_the_official_build_is_a_node_implementation_of_its_pinned_packages():
    assert isinstance(IMPLEMENTATION, NodeImplementation)
    assert dict(IMPLEMENTATION.packages) == {
        "schedule": "@deepseek-ai/dsh-schedule@0.1.0-rc.8",
        "time-context": "@deepseek-ai/dsh-time-context@0.0.1-rc.1",
    }

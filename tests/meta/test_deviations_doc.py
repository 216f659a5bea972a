"""docs/deviations.md explains every class of the official build's known failures."""

from __future__ import annotations

import json
import pathlib
import re

from dsh_spec.sentences import all_sentences

ROOT = pathlib.Path(__file__).parents[2]
DOC = (ROOT / "docs" / "deviations.md").read_text("utf-8")
EXPECTATIONS = json.loads(
    (ROOT / "pytest_dsh" / "official" / "expectations.json").read_text("utf-8")
)


def test_every_class_used_is_explained_in_the_deviations_doc() -> None:
    used = {entry["class"] for entry in EXPECTATIONS["expected_failures"].values()}
    documented = set(re.findall(r"^###.*— `([a-z0-9-]+)`$", DOC, flags=re.MULTILINE))
    assert used <= documented
    assert used <= set(EXPECTATIONS["classes"])


def test_every_expected_failure_names_real_readme_sentences() -> None:
    known = {sentence.id for sentence in all_sentences()}
    unknown = {
        test_id: entry["sentences"]
        for test_id, entry in EXPECTATIONS["expected_failures"].items()
        if not entry["sentences"] or not set(entry["sentences"]) <= known
    }
    assert unknown == {}


def test_documented_classes_are_all_in_use_or_explained_as_not_needed() -> None:
    used = {entry["class"] for entry in EXPECTATIONS["expected_failures"].values()}
    documented = set(re.findall(r"^###.*— `([a-z0-9-]+)`$", DOC, flags=re.MULTILINE))
    assert documented - used <= {"host-event-model"}

"""The dsh-expectations/1 loader as an npm implementation uses it (the shared
loader of pytest_dsh.expectations): a known-failures file either loads whole or
is refused with the place of the problem (nothing half-read). Pins the kit's
file format; no README sentence covers it."""

from __future__ import annotations

import json

import pytest

from pytest_dsh.expectations import ExpectationsError
from pytest_dsh.npm.known_failures import load_expectations, reasons

VALID = {
    "format": "dsh-expectations/1",
    "about": "x",
    "classes": {"renamed": "a renamed code"},
    "expected_failures": {
        "schedule/test_a.py::test_b": {"class": "renamed", "sentences": ["SCH-036"], "note": "n"}
    },
}


def _write(tmp_path, document):
    path = tmp_path / "known.json"
    path.write_text(json.dumps(document) if not isinstance(document, str) else document)
    return path


def test_a_valid_file_becomes_xfail_reasons_naming_sentences_and_class(tmp_path):
    loaded = load_expectations(_write(tmp_path, VALID))
    assert loaded == {
        "schedule/test_a.py::test_b": {
            "sentences": ["SCH-036"], "reason": "[renamed] a renamed code Here: n."
        }
    }
    assert reasons(loaded) == {
        "schedule/test_a.py::test_b": "deviates from SCH-036: [renamed] a renamed code Here: n."
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("format"), "'format' must be 'dsh-expectations/1' \\(found None\\)"),
        (lambda d: d.update(format="dsh-expectations/2"), "'format' must be"),
        (lambda d: d.update(expected_failures=[]),
         r"\['expected_failures'\]: \[\] is not of type 'object'"),
        (lambda d: d["expected_failures"]["schedule/test_a.py::test_b"].update(**{"class": "x"}),
         "class 'x' is not in 'classes'"),
        (lambda d: d["expected_failures"]["schedule/test_a.py::test_b"].update(sentences=[]),
         r"\['sentences'\]: \[\] should be non-empty"),
    ],
)
def test_a_malformed_file_is_refused_with_the_problem(tmp_path, change, message):
    document = json.loads(json.dumps(VALID))
    change(document)
    with pytest.raises(ExpectationsError, match=message):
        load_expectations(_write(tmp_path, document))


def test_a_file_that_is_not_json_is_refused(tmp_path):
    with pytest.raises(ExpectationsError, match="cannot read"):
        load_expectations(_write(tmp_path, "{not json"))

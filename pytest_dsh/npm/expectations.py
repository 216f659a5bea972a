"""Expectations files: an implementation's known failures, as data.

Format ``dsh-expectations/1`` (JSON)::

    {
      "format": "dsh-expectations/1",
      "about": "what this file is about",
      "classes": {"CLASS": "the difference, explained once"},
      "expected_failures": {
        "TEST_ID": {"class": "CLASS", "sentences": ["SCH-001", ...], "note": "optional"}
      }
    }

``TEST_ID`` is relative to the ``dsh_conformance`` package
(``schedule/test_x.py::test_y[param]``). Every entry becomes a strict xfail
whose reason names the README sentences and the class text, so a fix shows up
as an unexpected pass.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Final, TypedDict

__all__ = ["FORMAT", "Expectation", "ExpectationsFormatError", "load_expectations", "reasons"]

FORMAT: Final = "dsh-expectations/1"


class Expectation(TypedDict):
    """One known failure: the README sentence ids deviated from and why."""

    sentences: list[str]
    reason: str


class ExpectationsFormatError(ValueError):
    """The file is not a ``dsh-expectations/1`` document."""


def _require(condition: bool, where: str, what: str) -> None:
    if not condition:
        raise ExpectationsFormatError(f"{where}: {what} (format {FORMAT})")


def load_expectations(source: Path | Traversable) -> dict[str, Expectation]:
    """``{test_id: {sentences, reason}}`` from the file at ``source``; the
    reason is ``[class] class text`` plus the entry's note."""
    where = str(source)
    try:
        document = json.loads(source.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ExpectationsFormatError(f"{where}: cannot read: {exc}") from exc
    _require(isinstance(document, dict), where, "not a JSON object")
    _require(document.get("format") == FORMAT, where, f'"format" must be "{FORMAT}"')
    classes = document.get("classes", {})
    failures = document.get("expected_failures")
    _require(isinstance(classes, dict), where, '"classes" must map names to text')
    _require(isinstance(failures, dict), where, '"expected_failures" must be an object')
    loaded: dict[str, Expectation] = {}
    for test_id, entry in failures.items():
        _require(isinstance(entry, dict), where, f"{test_id}: an entry must be an object")
        kind = entry.get("class")
        sentences = entry.get("sentences")
        _require(kind in classes, where, f"{test_id}: unknown class {kind!r}")
        _require(
            isinstance(sentences, list) and bool(sentences)
            and all(isinstance(s, str) for s in sentences),
            where,
            f"{test_id}: sentences must be a non-empty list of README sentence ids",
        )
        note = f" Here: {entry['note']}." if entry.get("note") else ""
        loaded[test_id] = Expectation(
            sentences=list(sentences), reason=f"[{kind}] {classes[kind]}{note}"
        )
    return loaded


def reasons(expectations: Mapping[str, Expectation]) -> dict[str, str]:
    """The ``expected_failures`` mapping of an implementation (test id -> xfail reason)."""
    return {
        test_id: f"deviates from {', '.join(entry['sentences'])}: {entry['reason']}"
        for test_id, entry in expectations.items()
    }

"""Known failures of an npm implementation, read from a ``dsh-expectations/1`` file.

The format, its JSON Schema and its checks belong to
:mod:`pytest_dsh.expectations` (the file ``--dsh-expectations`` reads); this
module adapts a file to the ``{test_id: reason}`` mapping an implementation
object carries as ``expected_failures``, keeping each entry's README sentences.
A file that cannot be used raises :class:`pytest_dsh.expectations.ExpectationsError`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TypedDict

from pytest_dsh.expectations import FORMAT, ExpectationsError, parse_expectations

__all__ = ["FORMAT", "Expectation", "load_expectations", "reasons"]


class Expectation(TypedDict):
    """One known failure: the README sentence ids deviated from and why."""

    sentences: list[str]
    reason: str


def load_expectations(source: Path | Traversable) -> dict[str, Expectation]:
    """``{test_id: {sentences, reason}}`` from the file at ``source``; the
    reason is ``[class] class text`` plus the entry's note."""
    where = str(source)
    try:
        document = json.loads(source.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ExpectationsError(f"{where}: cannot read: {exc}") from exc
    parsed = parse_expectations(document, where)
    return {
        test_id: Expectation(
            sentences=list(failure.sentences),
            reason=f"[{failure.kind}] {failure.explanation}"
            + (f" Here: {failure.note}." if failure.note else ""),
        )
        for test_id, failure in parsed.failures.items()
    }


def reasons(expectations: Mapping[str, Expectation]) -> dict[str, str]:
    """The ``expected_failures`` mapping of an implementation (test id -> xfail reason)."""
    return {
        test_id: f"deviates from {', '.join(entry['sentences'])}: {entry['reason']}"
        for test_id, entry in expectations.items()
    }

"""Known failures of an implementation: the ``dsh-expectations/1`` file format.

``--dsh-expectations PATH`` (ini ``dsh_expectations``) reads a JSON file of this
shape, for any implementation::

    {
      "format": "dsh-expectations/1",
      "about": "my-dsh 1.2.0 against pytest-dsh 0.1.0",
      "classes": {"batched-one-shots": "We deliver due one-shots in one turn."},
      "expected_failures": {
        "schedule/test_delivery_lifecycle.py::test_due_one_shots_come_first_each_in_its_own_later_turn":
          {"class": "batched-one-shots", "sentences": ["SCH-045"], "note": "ticket 123"}
      }
    }

Keys are stable test ids relative to the ``dsh_conformance`` package (see
:func:`pytest_dsh.implementations.stable_test_id`); each entry becomes a strict
xfail, so a fix is reported too. The JSON Schema is
``pytest_dsh/schemas/dsh-expectations-1.schema.json``; every problem is one
:class:`ExpectationsError` naming the file and the entry to fix.
"""

from __future__ import annotations

import difflib
import importlib.resources
import json
import pathlib
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Final

from pytest_dsh.errors import DshKitError

__all__ = [
    "FORMAT",
    "Expectations",
    "ExpectationsError",
    "KnownFailure",
    "expectations_schema",
    "load_expectations_file",
    "parse_expectations",
    "unknown_test_ids",
]

FORMAT: Final = "dsh-expectations/1"
SCHEMA_FILE: Final = "dsh-expectations-1.schema.json"


class ExpectationsError(DshKitError):
    """An expectations file cannot be used; the message says what to fix."""


@dataclass(frozen=True, slots=True)
class KnownFailure:
    test_id: str
    kind: str
    explanation: str
    sentences: tuple[str, ...]
    note: str | None = None

    @property
    def reason(self) -> str:
        """One line for the xfail reason and the report."""
        deviates = f"deviates from {', '.join(self.sentences)}: " if self.sentences else ""
        note = f" Here: {self.note}." if self.note else ""
        return f"{deviates}[{self.kind}] {self.explanation}{note}"


@dataclass(frozen=True, slots=True)
class Expectations:
    source: str
    about: str
    classes: Mapping[str, str]
    failures: Mapping[str, KnownFailure]

    def reasons(self) -> dict[str, str]:
        return {test_id: failure.reason for test_id, failure in self.failures.items()}


def expectations_schema() -> dict[str, Any]:
    """The JSON Schema of the ``dsh-expectations/1`` format."""
    text = importlib.resources.files("pytest_dsh").joinpath("schemas", SCHEMA_FILE)
    schema: dict[str, Any] = json.loads(text.read_text("utf-8"))
    return schema


def _path_text(path: Collection[object]) -> str:
    text = "".join(f"[{part!r}]" if isinstance(part, str) else f"[{part}]" for part in path)
    return text or "(top level)"


def parse_expectations(document: object, source: str) -> Expectations:
    """Check ``document`` (parsed JSON) against the format and build it."""
    import jsonschema

    if isinstance(document, dict) and document.get("format") != FORMAT:
        found = document.get("format")
        raise ExpectationsError(
            f"{source}: 'format' must be {FORMAT!r} (found {found!r}); "
            f"add \"format\": \"{FORMAT}\" at the top of the file"
        )
    validator = jsonschema.Draft202012Validator(expectations_schema())
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        listed = "\n".join(
            f"  - {_path_text(list(error.absolute_path))}: {error.message}" for error in errors[:10]
        )
        raise ExpectationsError(f"{source} is not a valid {FORMAT} file:\n{listed}")
    assert isinstance(document, dict)
    classes: dict[str, str] = dict(document["classes"])
    failures: dict[str, KnownFailure] = {}
    problems: list[str] = []
    known_sentences = _known_sentence_ids()
    for test_id, entry in document["expected_failures"].items():
        kind = entry["class"]
        if kind not in classes:
            problems.append(
                f"  - expected_failures[{test_id!r}]: class {kind!r} is not in 'classes' "
                f"(known: {', '.join(sorted(classes)) or 'none'})"
            )
            continue
        unknown = [s for s in entry["sentences"] if known_sentences and s not in known_sentences]
        if unknown:
            problems.append(
                f"  - expected_failures[{test_id!r}]: no README sentence {', '.join(unknown)} "
                "(see docs/traceability.md for the ids)"
            )
            continue
        failures[test_id] = KnownFailure(
            test_id, kind, classes[kind], tuple(entry["sentences"]), entry.get("note")
        )
    if problems:
        raise ExpectationsError(f"{source}:\n" + "\n".join(problems))
    return Expectations(source, str(document.get("about", "")), classes, failures)


def load_expectations_file(path: str | pathlib.Path) -> Expectations:
    """Read and check an expectations file."""
    path = pathlib.Path(path)
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise ExpectationsError(f"cannot read expectations file {str(path)!r}: {exc}") from exc
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ExpectationsError(
            f"{path}: not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from exc
    return parse_expectations(document, str(path))


def _known_sentence_ids() -> frozenset[str]:
    try:
        from dsh_conformance.traceability import all_sentences
    except ImportError:  # the suite is not installed: the schema's pattern must do
        return frozenset()
    return frozenset(sentence.id for sentence in all_sentences())


_PARAMS = re.compile(r"\[.*\]$")


def unknown_test_ids(
    keys: Collection[str],
    collected: Collection[str],
    suite_root: pathlib.Path | None,
) -> list[str]:
    """Expectation keys that name no test, each with a hint.

    ``collected`` holds the stable ids of every test collected in this run
    (before ``-k`` or level deselection). A key whose file was collected must
    be one of them exactly; a key for a file outside this run's selection (one
    section was run) must name an existing suite file defining that function."""
    collected_set = set(collected)
    files = {test_id.partition("::")[0] for test_id in collected_set}
    problems: list[str] = []
    for key in sorted(keys):
        if key in collected_set:
            continue
        path, _, name = key.partition("::")
        if path in files:
            near = difflib.get_close_matches(key, sorted(collected_set), n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            problems.append(f"{key!r} names no collected test{hint}")
            continue
        source = suite_root / path if suite_root is not None else None
        # The module-level name: a function, a class, or an assigned TestCase.
        top = _PARAMS.sub("", name.split("::")[0])
        defined = re.compile(rf"^((async\s+)?def\s+{re.escape(top)}\(|class\s+{re.escape(top)}\b|"
                             rf"{re.escape(top)}\s*=)", re.M)
        if source is None or not source.is_file():
            problems.append(f"{key!r}: no file {path!r} in the conformance suite")
        elif not defined.search(source.read_text("utf-8")):
            problems.append(f"{key!r}: {path} defines no test {top!r}")
    return problems

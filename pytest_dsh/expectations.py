"""Known failures of an implementation: the ``dsh-expectations/1`` file format.

``--dsh-expectations PATH`` (ini ``dsh_expectations``) reads a JSON file of this
shape, for any implementation::

    {
      "format": "dsh-expectations/1",
      "about": "my-dsh 1.2.0 against pytest-dsh 0.1.0",
      "classes": {"batched-one-shots": "We deliver due one-shots in one turn."},
      "expected_failures": {
        "schedule/delivery_lifecycle/test_delivery_lifecycle.py::test_due_one_shots_come_first_each_in_its_own_later_turn":
          {"class": "batched-one-shots", "sentences": ["SCH-045"], "note": "ticket 123"}
      }
    }

Keys are stable test ids relative to the ``dsh_conformance`` package (see
:func:`pytest_dsh.implementations.stable_test_id`); each entry becomes a strict
xfail, so a fix is reported too. The JSON Schema is
``pytest_dsh/schemas/dsh-expectations-1.schema.json``; every problem is one
:class:`ExpectationsError` naming the file and the entry to fix.

The file is operator input: it is read only when it is a regular file (a FIFO
or a device is refused, never waited on), at most :data:`MAX_FILE_BYTES`, as
UTF-8, at most :data:`MAX_DEPTH` levels deep. A key is checked only against
files inside the conformance suite, and however many keys name no test, the
"did you mean" search runs for the first :data:`SUGGESTED_KEYS` of them (each
among the tests of its own file) and the listing stops after
:data:`LISTED_PROBLEMS`.
"""

from __future__ import annotations

import difflib
import importlib.resources
import json
import os
import pathlib
import re
import stat
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Final

from dsh_spec.sentences import all_sentences
from pytest_dsh.errors import DshKitError

__all__ = [
    "FORMAT",
    "LISTED_PROBLEMS",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "SUGGESTED_KEYS",
    "Expectations",
    "ExpectationsError",
    "KnownFailure",
    "expectations_schema",
    "load_expectations_file",
    "parse_expectations",
    "read_bounded_text",
    "unknown_test_ids",
]

FORMAT: Final = "dsh-expectations/1"
SCHEMA_FILE: Final = "dsh-expectations-1.schema.json"
#: The largest expectations file (or suite file a key names) the kit reads.
MAX_FILE_BYTES: Final = 8 * 1024 * 1024
#: The deepest nesting accepted; the format itself needs four levels.
MAX_DEPTH: Final = 16
#: Unknown keys that get a "did you mean" suggestion.
SUGGESTED_KEYS: Final = 20
#: Problems listed before the rest are counted.
LISTED_PROBLEMS: Final = 50


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


class _Unreadable(Exception):
    """Why a file cannot be read as bounded UTF-8 text (a clause)."""


def read_bounded_text(path: pathlib.Path) -> str:
    """``path``'s text: a regular file of at most :data:`MAX_FILE_BYTES` bytes
    of UTF-8, else :class:`_Unreadable` saying what it is."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError) as exc:
        raise _Unreadable(getattr(exc, "strerror", None) or str(exc)) from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise _Unreadable("not a regular file (a FIFO, a device or a folder)")
    with os.fdopen(descriptor, "rb") as handle:
        try:
            data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise _Unreadable(exc.strerror or str(exc)) from None
    if len(data) > MAX_FILE_BYTES:
        raise _Unreadable(f"larger than {MAX_FILE_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise _Unreadable(
            f"not UTF-8 text (byte {data[exc.start]:#04x} on line {line})"
        ) from None


def _depth(document: object) -> int:
    """How deeply ``document`` nests (iteratively: any depth is measured)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                break
            stack.extend((item, depth + 1) for item in value)
    return deepest


def load_expectations_file(path: str | pathlib.Path) -> Expectations:
    """Read and check an expectations file."""
    path = pathlib.Path(path)
    try:
        text = read_bounded_text(path)
    except _Unreadable as exc:
        raise ExpectationsError(f"cannot read expectations file {str(path)!r}: {exc}") from None
    return parse_expectations_text(text, str(path))


def parse_expectations_text(text: str, source: str) -> Expectations:
    """Parse and check the text of an expectations file named ``source``."""
    too_deep = ExpectationsError(
        f"{source}: not a {FORMAT} file: nested more than {MAX_DEPTH} levels deep"
    )
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ExpectationsError(
            f"{source}: not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:
        raise too_deep from None
    except ValueError as exc:  # e.g. an integer longer than Python converts
        raise ExpectationsError(f"{source}: not JSON: {exc}") from None
    if _depth(document) > MAX_DEPTH:
        raise too_deep
    return parse_expectations(document, source)


def _known_sentence_ids() -> frozenset[str]:
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
    section was run) must name an existing suite file defining that function.
    A key is never read outside ``suite_root``; suggestions and the listing
    are bounded (:data:`SUGGESTED_KEYS`, :data:`LISTED_PROBLEMS`)."""
    collected_set = set(collected)
    by_file: dict[str, list[str]] = {}
    for test_id in sorted(collected_set):
        by_file.setdefault(test_id.partition("::")[0], []).append(test_id)
    sources = _SuiteSources(suite_root)
    problems: list[str] = []
    suggested = 0
    for key in sorted(keys):
        if key in collected_set:
            continue
        path, _, name = key.partition("::")
        if path in by_file:
            hint = ""
            if suggested < SUGGESTED_KEYS:
                suggested += 1
                near = difflib.get_close_matches(key, by_file[path], n=1, cutoff=0.6)
                hint = f"; did you mean {near[0]!r}?" if near else ""
            problems.append(f"{key!r} names no collected test{hint}")
            continue
        # The module-level name: a function, a class, or an assigned TestCase.
        top = _PARAMS.sub("", name.split("::")[0])
        source = sources.text(path)
        if not isinstance(source, str):
            moved = sources.moved(path, top)
            hint = (f"; test files are in README section folders now: did you mean "
                    f"{moved + '::' + name!r}?") if moved else ""
            problems.append(f"{key!r}: {source.args[0]}{hint}")
            continue
        if not _defines(source, top):
            problems.append(f"{key!r}: {path} defines no test {top!r}")
    if len(problems) > LISTED_PROBLEMS:
        rest = len(problems) - LISTED_PROBLEMS
        problems = [*problems[:LISTED_PROBLEMS], f"... and {rest} more keys that name no test"]
    return problems


def _defines(source: str, top: str) -> bool:
    defined = re.compile(rf"^((async\s+)?def\s+{re.escape(top)}\(|class\s+{re.escape(top)}\b|"
                         rf"{re.escape(top)}\s*=)", re.M)
    return defined.search(source) is not None


_FLAT_TEST_FILE = re.compile(r"(schedule|time_context)/test_\w+\.py")


class _SuiteSources:
    """The suite files keys name, each read once, never outside the suite."""

    def __init__(self, root: pathlib.Path | None) -> None:
        self._root = root
        self._resolved = root.resolve() if root is not None else None
        self._texts: dict[str, str | _Unreadable] = {}

    def text(self, path: str) -> str | _Unreadable:
        """The text of the suite file ``path`` names, or why there is none."""
        if path not in self._texts:
            self._texts[path] = self._read(path)
        return self._texts[path]

    def moved(self, path: str, top: str) -> str | None:
        """Where ``schedule/test_x.py`` (the layout before README section
        folders) is now, if one ``schedule/<section>/test_x.py`` defines ``top``."""
        if self._root is None or not _FLAT_TEST_FILE.fullmatch(path):
            return None
        plugin, _, filename = path.partition("/")
        try:
            folders = sorted(p.name for p in (self._root / plugin).iterdir() if p.is_dir())
        except OSError:
            return None
        for folder in folders:
            candidate = f"{plugin}/{folder}/{filename}"
            source = self.text(candidate)
            if isinstance(source, str) and _defines(source, top):
                return candidate
        return None

    def _read(self, path: str) -> str | _Unreadable:
        missing = _Unreadable(f"no file {path!r} in the conformance suite")
        if self._root is None or self._resolved is None:
            return missing
        relative = pathlib.PurePosixPath(path)
        if relative.is_absolute() or ".." in relative.parts or "\x00" in path:
            return _Unreadable("names a file outside the conformance suite")
        source = self._root / relative
        try:
            if not source.resolve().is_relative_to(self._resolved):
                return _Unreadable("names a file outside the conformance suite")
            if not source.is_file():
                return missing
        except (OSError, RuntimeError):  # a loop of links, a name too long, ...
            return missing
        try:
            return read_bounded_text(source)
        except _Unreadable as exc:
            return _Unreadable(f"{path} cannot be read: {exc}")

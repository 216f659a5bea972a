"""Every failure names its requirement, also when the test never reached an
assertion.

A conformance test that dies on ``KeyError: 'id'`` or ``ValueError: too many
values to unpack`` says nothing about what it checks, though it is usually
the implementation's answer that lacked what the test looked for. For a test
that names README sentences (``spec``) or pinned details (``compat``), this
hook rewrites the one-line crash message of such an exception (what pytest's
short summary and the reports show):

* raised by test code (the test file or the conformance suite):
  ``readme TC-016 (<sentence>): the test could not observe what it checks:
  value is an object without the key 'id'; observed value = {'code': 'x'}
  (KeyError 'id' at time_context/test_x.py:12)``: what the failing
  expression read, and why that value is not what it reads. A value whose
  shape explains the failure (``dsh_conformance.shapes``: the list value is
  not an array of records) is said with ``, but`` as assertion messages say
  it, so that the report counts it under that shape;
* raised elsewhere (the implementation, the host, the bridge): its own wording,
  prefixed with the requirement.

Assertion failures (already worded by :mod:`dsh_conformance.expect`), skips and
pytest's own outcomes are left alone; the traceback is untouched.
"""

from __future__ import annotations

import ast
import functools
import linecache
import os
import pathlib
import sysconfig
from collections.abc import Callable, Generator, Mapping
from typing import Any

import pytest

from dsh_spec.sentences import all_sentences
from pytest_dsh.driving.value_shapes import json_kind, records_wrapped
from pytest_dsh.implementations import suite_relative_path
from pytest_dsh.pytest_plugin.reporting.causes import requirement_label, short_text
from pytest_dsh.pytest_plugin.reporting.document import pinned_details

__all__ = ["requirement_of", "sentence_texts"]

_LIBRARY_DIRS = tuple(
    {str(pathlib.Path(sysconfig.get_paths()[key])) for key in ("stdlib", "platstdlib")}
)
# A Python whose packages install inside its standard library folder (a
# python:3.11 image, pyenv, a system pip) puts the kit, the suite and the
# implementation there: those are never library.
_PACKAGE_DIRS = tuple(
    {str(pathlib.Path(sysconfig.get_paths()[key])) for key in ("purelib", "platlib")}
)
_NOT_OURS = (f"{os.sep}_pytest{os.sep}", f"{os.sep}pluggy{os.sep}")


@functools.cache
def sentence_texts() -> Mapping[str, str]:
    """README sentence id -> its English text."""
    return {s.id: s.english or s.text for s in all_sentences()}


def requirement_of(item: pytest.Item) -> dict[str, Any] | None:
    """The requirement ``item`` checks, shaped as a cause's ``requirement``;
    ``None`` for a test that names neither a sentence nor a pinned detail."""
    sentences = list(
        dict.fromkeys(str(a) for mark in item.iter_markers("spec") for a in mark.args)
    )
    pins = list(dict.fromkeys(str(a) for mark in item.iter_markers("compat") for a in mark.args))
    if not sentences and not pins:
        return None
    texts = sentence_texts()
    titles = pinned_details()
    return {
        "level": "compat" if pins else "readme",
        "plugin": "",
        "sentences": [
            {"id": s, "text": short_text(texts[s]) if s in texts else None} for s in sentences
        ],
        "pinned_details": [{"id": p, "title": titles.get(p, {}).get("title")} for p in pins],
    }


def _is_library(path: str) -> bool:
    if any(part in path for part in _NOT_OURS):
        return True
    return path.startswith(_LIBRARY_DIRS) and not path.startswith(_PACKAGE_DIRS)


def _shown_path(path: str, item: pytest.Item) -> str:
    relative = suite_relative_path(pathlib.Path(path))
    if relative is not None:
        return relative
    try:
        return pathlib.Path(path).relative_to(item.config.rootpath).as_posix()
    except ValueError:
        return "/".join(pathlib.Path(path).parts[-3:])


def _origin(
    excinfo: pytest.ExceptionInfo[BaseException], item: pytest.Item
) -> tuple[bool, str, Any]:
    """(raised by test code?, ``file:line``, the traceback entry) of the
    innermost frame that is neither the standard library nor pytest: where
    the exception was raised for the purpose of blame (``json.loads`` raising
    is its caller's doing)."""
    for entry in reversed(excinfo.traceback):
        path = str(entry.path)
        if _is_library(path):
            continue
        where = f"{_shown_path(path, item)}:{entry.lineno + 1}"
        in_test = path == str(item.path) or suite_relative_path(pathlib.Path(path)) is not None
        return in_test, where, entry
    return False, "an unknown place", None


def _message(
    exc: BaseException, in_test: bool, where: str, label: str, crash: str, entry: Any
) -> str:
    if not in_test:
        return f"{label}: {crash} (raised at {where})"
    detail = str(exc).strip()
    seen = f"{type(exc).__name__} {detail}" if detail else type(exc).__name__
    read = _what_was_read(exc, entry)
    if read is None:
        return f"{label}: the test could not observe what it checks: {seen} at {where}"
    source, value = read
    shape = records_wrapped(value)
    shown = f"observed {source} = {_short_repr(value)} ({seen} at {where})"
    if shape is not None:
        return f"{label}: the test could not observe what it checks, but {shape}; {shown}"
    return (
        f"{label}: the test could not observe what it checks: "
        f"{_why(exc, source, value)}; {shown}"
    )


def _short_repr(value: object, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def _why(exc: BaseException, source: str, value: object) -> str:
    """Why ``value`` (read as ``source``) does not hold what the test read."""
    kind = json_kind(value)
    if isinstance(exc, KeyError) and isinstance(value, Mapping) and exc.args:
        key = exc.args[0]
        if isinstance(key, int):
            return f"{source} is an object, not an array"
        return f"{source} is an object without the key {key!r}"
    if isinstance(exc, IndexError) and isinstance(value, (list, tuple)):
        return f"{source} is an array of {len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(exc, (AttributeError, TypeError)) and isinstance(value, (list, tuple)):
        return f"{source} is an array, not an object"
    return f"{source} is {kind}"


# What a failing expression reads: a name, attributes of it, constant subscripts.
_SAFE_BASE = (ast.Name, ast.Attribute, ast.Subscript)


def _what_was_read(exc: BaseException, entry: Any) -> tuple[str, object] | None:
    """``(source, value)`` of the value the failing expression read from (the
    ``listed`` of ``listed[0]``, the ``outcome.value`` of
    ``outcome.value.get("id")``), when the expression and the value can be
    found without running anything; else ``None``."""
    if not isinstance(exc, (KeyError, IndexError, TypeError, AttributeError)) or entry is None:
        return None
    try:
        raw = entry._rawentry
        code = raw.tb_frame.f_code
        positions = list(code.co_positions())[raw.tb_lasti // 2]
        node = _failing_node(code.co_filename, positions)
    except (AttributeError, IndexError, SyntaxError, ValueError, TypeError):
        return None
    base = _base_of(node)
    if base is None:
        return None
    frame = raw.tb_frame
    found = _evaluate(base, lambda name: _lookup(name, frame.f_locals, frame.f_globals))
    if found is _MISSING:
        return None
    return ast.unparse(base), found


def _failing_node(filename: str, positions: tuple[Any, ...]) -> ast.expr | None:
    line, end_line, column, end_column = positions
    if None in (line, end_line, column, end_column):
        return None
    lines = [linecache.getline(filename, n).encode("utf-8") for n in range(line, end_line + 1)]
    if len(lines) == 1:
        text = lines[0][column:end_column]
    else:
        text = lines[0][column:] + b"".join(lines[1:-1]) + lines[-1][:end_column]
    return ast.parse(text.decode("utf-8").strip(), mode="eval").body


def _base_of(node: ast.expr | None) -> ast.expr | None:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.value, _SAFE_BASE):
        return node.value
    return None


_MISSING = object()


def _lookup(name: str, local: Mapping[str, Any], global_: Mapping[str, Any]) -> object:
    if name in local:
        return local[name]
    return global_.get(name, _MISSING)


def _evaluate(node: ast.expr, lookup: Callable[[str], object]) -> object:
    """The value of a name, attribute or constant-subscript chain, read
    without calling anything the test did not already call."""
    if isinstance(node, ast.Name):
        return lookup(node.id)
    if isinstance(node, ast.Attribute):
        inner = _evaluate(node.value, lookup)
        if inner is _MISSING:
            return _MISSING
        declared = getattr(type(inner), node.attr, _MISSING)
        if declared is _MISSING:
            return getattr(inner, "__dict__", {}).get(node.attr, _MISSING)
        # A slot or a named-tuple field is data; a property may run code.
        if type(declared).__name__ in ("member_descriptor", "_tuplegetter"):
            return getattr(inner, node.attr, _MISSING)
        return _MISSING
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        inner = _evaluate(node.value, lookup)
        if isinstance(inner, Mapping):
            return inner.get(node.slice.value, _MISSING)
        if isinstance(inner, (list, tuple)) and isinstance(node.slice.value, int):
            index = node.slice.value
            return inner[index] if -len(inner) <= index < len(inner) else _MISSING
    return _MISSING


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    excinfo = call.excinfo
    if (
        excinfo is None
        or not report.failed
        or call.when != "call"
        or not isinstance(excinfo.value, Exception)
        or isinstance(excinfo.value, AssertionError)
    ):
        return report
    crash = getattr(report.longrepr, "reprcrash", None)
    requirement = requirement_of(item)
    if crash is None or requirement is None:
        return report
    in_test, where, entry = _origin(excinfo, item)
    label = requirement_label(requirement)
    crash.message = _message(excinfo.value, in_test, where, label, str(crash.message), entry)
    report.sections.append(("dsh requirement", crash.message))
    return report

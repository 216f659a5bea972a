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
  KeyError 'id' at time_context/test_x.py:12``;
* raised elsewhere (the implementation, the host, the bridge): its own wording,
  prefixed with the requirement.

Assertion failures (already worded by :mod:`dsh_conformance.expect`), skips and
pytest's own outcomes are left alone; the traceback is untouched.
"""

from __future__ import annotations

import functools
import os
import pathlib
import sysconfig
from collections.abc import Generator, Mapping
from typing import Any

import pytest

from pytest_dsh.implementations import suite_relative_path
from pytest_dsh.pytest_plugin.reporting.causes import requirement_label, short_text
from pytest_dsh.pytest_plugin.reporting.document import pinned_details

__all__ = ["requirement_of", "sentence_texts"]

_LIBRARY_DIRS = tuple(
    {str(pathlib.Path(sysconfig.get_paths()[key])) for key in ("stdlib", "platstdlib")}
)
_NOT_OURS = (f"{os.sep}_pytest{os.sep}", f"{os.sep}pluggy{os.sep}")


@functools.cache
def sentence_texts() -> Mapping[str, str]:
    """README sentence id -> its English text (empty without the suite)."""
    try:
        from dsh_conformance.traceability import all_sentences
    except ImportError:
        return {}
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
    return path.startswith(_LIBRARY_DIRS) or any(part in path for part in _NOT_OURS)


def _shown_path(path: str, item: pytest.Item) -> str:
    relative = suite_relative_path(pathlib.Path(path))
    if relative is not None:
        return relative
    try:
        return pathlib.Path(path).relative_to(item.config.rootpath).as_posix()
    except ValueError:
        return "/".join(pathlib.Path(path).parts[-3:])


def _origin(excinfo: pytest.ExceptionInfo[BaseException], item: pytest.Item) -> tuple[bool, str]:
    """(raised by test code?, ``file:line``) of the innermost frame that is
    neither the standard library nor pytest: where the exception was raised
    for the purpose of blame (``json.loads`` raising is its caller's doing)."""
    for entry in reversed(excinfo.traceback):
        path = str(entry.path)
        if _is_library(path):
            continue
        where = f"{_shown_path(path, item)}:{entry.lineno + 1}"
        in_test = path == str(item.path) or suite_relative_path(pathlib.Path(path)) is not None
        return in_test, where
    return False, "an unknown place"


def _message(exc: BaseException, in_test: bool, where: str, label: str, crash: str) -> str:
    if in_test:
        detail = str(exc).strip()
        seen = f"{type(exc).__name__} {detail}" if detail else type(exc).__name__
        return f"{label}: the test could not observe what it checks: {seen} at {where}"
    return f"{label}: {crash} (raised at {where})"


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
    in_test, where = _origin(excinfo, item)
    label = requirement_label(requirement)
    crash.message = _message(excinfo.value, in_test, where, label, str(crash.message))
    report.sections.append(("dsh requirement", crash.message))
    return report

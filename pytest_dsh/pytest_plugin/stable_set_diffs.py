"""A suite test's set comparison explained in the same order in every run.

pytest explains a failed ``assert left == right`` between two sets by listing
each side's extra items, in the sets' iteration order, which for strings
follows the interpreter's hash seed: the same failure of the same package
read differently from one run to the next in the reports' messages. For the
suite's own tests, a comparison of two sets (``==``, ``!=``, ``<=``, ``>=``,
``<``, ``>``) is explained with the items sorted by their repr: the same
facts, in an order that is the same in every process. Every other test
(a project's own, run with the kit installed) keeps pytest's explanation."""

from __future__ import annotations

from collections.abc import Generator, Set
from typing import Any, Final

import pytest

from pytest_dsh.driving.stable_repr import stable_repr
from pytest_dsh.pytest_plugin.suite_items import in_suite

#: pytest's width for each side of the summary line at verbosity 0.
_SIDE_WIDTH: Final = 30
_OPERATORS: Final = frozenset({"==", "!=", "<=", ">=", "<", ">"})

#: Whether the running test (setup, call or teardown) is one of the suite's.
_in_suite_test = False


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    global _in_suite_test
    _in_suite_test = in_suite(item.path)
    try:
        return (yield)
    finally:
        _in_suite_test = False


def _sorted_text(items: Set[Any]) -> list[str]:
    return sorted(stable_repr(item) for item in items)


def _shown(value: Set[Any], width: int | None) -> str:
    text = stable_repr(value)
    if width is None or len(text) <= width:
        return text
    keep = max(width - 3, 2)
    return text[: keep // 2] + "..." + text[len(text) - (keep - keep // 2):]


def explain(op: str, left: Set[Any], right: Set[Any], *, verbose: int = 0) -> list[str]:
    """The lines of a failed comparison of two sets: the summary, then each
    side's extra items (or that the sets are equal), sorted by repr."""
    width = None if verbose > 1 else _SIDE_WIDTH
    lines = [f"{_shown(left, width)} {op} {_shown(right, width)}"]
    if op in ("==", "<=", "<") and left - right:
        lines += ["Extra items in the left set:", *_sorted_text(left - right)]
    if op in ("==", ">=", ">") and right - left:
        lines += ["Extra items in the right set:", *_sorted_text(right - left)]
    if op in ("!=", "<", ">") and left == right:
        lines.append("Both sets are equal")
    return lines


@pytest.hookimpl(tryfirst=True)
def pytest_assertrepr_compare(
    config: pytest.Config, op: str, left: object, right: object
) -> list[str] | None:
    if not (_in_suite_test and op in _OPERATORS
            and isinstance(left, (set, frozenset)) and isinstance(right, (set, frozenset))):
        return None
    try:
        return explain(op, left, right, verbose=config.get_verbosity())
    except Exception:  # an item whose repr fails: pytest's own explanation instead
        return None

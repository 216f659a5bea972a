"""The traceback of a test the kit expects to fail, formatted by Python.

pytest formats a failed call (``--tb=auto``, its default: the long style)
by finding each traceback entry's statement, which parses that entry's whole
source file: about 17 ms a failure for the suite's files, 2 s of CPU for the
official build's 128 known failures. A test the kit marks as an expected
failure (a known failure of the implementation, or a DSH host's limit) that
fails is reported xfailed: pytest's terminal shows its reason, the kit's
reports show its crash message, and nothing shows its traceback. Those
failures are therefore formatted in pytest's ``native`` style (Python's own
traceback, with the same crash message) instead.

Left as pytest formats them: every test with ``--runxfail`` (its failures are
shown, as failures), every test when ``--tb`` names a style, and a failure
outside the test's call (a fixture's, formatted by pytest directly)."""

from __future__ import annotations

from typing import Any

import pytest


def format_natively(item: pytest.Item) -> None:
    """Have ``item``'s call failures formatted natively, if pytest would not
    otherwise show them (see the module's docstring)."""
    config = item.config
    if config.option.runxfail or config.getoption("tbstyle", "auto") != "auto":
        return
    # A Node method of pytest's, present since pytest 3; without it (another
    # pytest), the failure keeps pytest's own format.
    formatter = getattr(item, "_repr_failure_py", None)
    if formatter is None:
        return

    def repr_failure(excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        # pytest's own branches stay: --full-trace, pytest.fail(pytrace=False).
        return formatter(excinfo, style="native")

    # On the item only: its class's method, and every other test, keep pytest's.
    item.repr_failure = repr_failure  # type: ignore[method-assign]

"""Expected failures' tracebacks in Python's format (pytest_plugin.expected_failure_repr).

Pins the kit's behaviour: a test the kit expects to fail is formatted in
pytest's native style, with the crash message pytest's default gives;
--runxfail, an explicit --tb and tests not expected to fail keep pytest's."""

from __future__ import annotations

import re
import textwrap

import pytest

EXPECTING = textwrap.dedent(
    """
    from pytest_dsh import PythonImplementation

    class Factory:
        name = "schedule"
        requires = frozenset()
        def load(self, services, config):
            return object()

    IMPLEMENTATION = PythonImplementation(
        "toy", "9.9", {"schedule": Factory()}, frozenset({"schedule"}),
    )

    class WithExpectations:
        name = "toy"; version = "1"; capabilities = frozenset()
        expected_failures = {"test_known.py::test_known": "README sentence X"}
        def open_host(self, *, start_ms, withhold=frozenset()):
            return IMPLEMENTATION.open_host(start_ms=start_ms)

    EXPECTING = WithExpectations()
    """
)

TESTS = textwrap.dedent(
    """
    def helper(value):
        assert value == 2, "the value is two"

    def test_known():
        helper(1)

    def test_other():
        helper(1)
    """
)
#: The line of the failing assertion (pytester writes the file stripped).
ASSERT_LINE = next(number for number, line in enumerate(TESTS.strip().splitlines(), 1)
                   if "assert value" in line)


def _call_reports(pytester: pytest.Pytester, *args: str) -> dict[str, pytest.TestReport]:
    pytester.makepyfile(toyimpl=EXPECTING, test_known=TESTS)
    pytester.syspathinsert()
    recorded = pytester.inline_run("--dsh-impl=toyimpl:EXPECTING", "-p", "no:randomly", *args)
    return {
        report.nodeid.rpartition("::")[2]: report
        for report in recorded.getreports("pytest_runtest_logreport")
        if report.when == "call"
    }


def _long_style(text: str) -> bool:
    # pytest's long style quotes the failing function's source and marks the
    # exception's lines with "E   "; Python's own traceback does neither.
    return "def helper(value):" in text and "E       AssertionError" in text


def _native_style(text: str) -> bool:
    return text.startswith("Traceback (most recent call last):") and "E   " not in text


def test_an_expected_failure_is_formatted_natively_with_the_same_crash_message(pytester):
    reports = _call_reports(pytester)
    known, other = reports["test_known"], reports["test_other"]
    assert hasattr(known, "wasxfail") and known.skipped
    assert _native_style(known.longreprtext), known.longreprtext
    assert f"line {ASSERT_LINE}, in helper" in known.longreprtext
    assert other.failed and _long_style(other.longreprtext), other.longreprtext
    # What the kit's reports read: the crash message and where it was raised.
    assert known.longrepr.reprcrash.message == other.longrepr.reprcrash.message
    assert known.longrepr.reprcrash.message.startswith("AssertionError: the value is two")
    assert known.longrepr.reprcrash.lineno == other.longrepr.reprcrash.lineno == ASSERT_LINE


def test_runxfail_keeps_pytest_s_format_for_the_failure_it_shows(pytester):
    reports = _call_reports(pytester, "--runxfail")
    known = reports["test_known"]
    assert known.failed and not hasattr(known, "wasxfail")
    assert _long_style(known.longreprtext), known.longreprtext


@pytest.mark.parametrize("style", ["long", "short", "native"])
def test_a_traceback_style_named_on_the_command_line_is_kept(pytester, style):
    reports = _call_reports(pytester, f"--tb={style}")
    known, other = reports["test_known"], reports["test_other"]
    assert hasattr(known, "wasxfail")
    assert _unnamed(known.longreprtext) == _unnamed(other.longreprtext)


def _unnamed(text: str) -> str:
    """A traceback without what tells the two tests apart: name and line."""
    return re.sub(r"test_(known|other)\b|(?<=test_known\.py:)\d+|(?<=line )\d+", "", text)

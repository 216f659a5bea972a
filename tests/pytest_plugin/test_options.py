"""The pytest plugin: --dsh-impl, its ini twin, listing, header, markers, report,
expected failures (strict xfails, their tracebacks)."""

from __future__ import annotations

import re
import textwrap

import pytest

from pytest_dsh import TZDATA_VERSION, __version__

TOY_IMPL = textwrap.dedent(
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
    """
)


def test_unknown_implementation_is_a_usage_error_naming_the_available_ones(pytester):
    result = pytester.runpytest("--dsh-impl=nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*unknown implementation 'nope'*available implementations:*reference*"]
    )


def test_an_import_path_that_does_not_exist_is_a_usage_error(pytester):
    result = pytester.runpytest("--dsh-impl=no_such_module:IMPL")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*cannot load implementation 'no_such_module:IMPL'*reference*"])


def test_an_object_that_is_not_an_implementation_is_refused(pytester):
    pytester.makepyfile(notimpl="IMPLEMENTATION = 42\n")
    pytester.syspathinsert()
    result = pytester.runpytest("--dsh-impl=notimpl:IMPLEMENTATION")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*'notimpl:IMPLEMENTATION' is not an implementation*"])


def test_list_impls_prints_the_entry_points_and_exits(pytester):
    result = pytester.runpytest("--dsh-list-impls")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*reference*dsh_reference.implementation:IMPLEMENTATION*"])


def test_tests_needing_a_host_without_an_implementation_are_a_usage_error(pytester):
    pytester.makepyfile("def test_x(dsh_host):\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*need an implementation under test*--dsh-impl=NAME*reference*"])


def test_header_names_implementation_kit_tzdata_and_hypothesis(pytester):
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("--dsh-impl=reference", "--hypothesis-seed=1234")
    result.stdout.fnmatch_lines(
        [
            f"dsh: implementation reference {__version__}; pytest-dsh {__version__}",
            f"dsh: tzdata {TZDATA_VERSION} (IANA *); hypothesis profile *, seed 1234",
        ]
    )


def test_ini_twin_selects_the_implementation(pytester):
    pytester.makeini("[pytest]\ndsh_impl = reference\n")
    pytester.makepyfile(
        "def test_x(dsh_implementation):\n    assert dsh_implementation.name == 'reference'\n"
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)


def test_command_line_wins_over_the_ini(pytester):
    pytester.makeini("[pytest]\ndsh_impl = nope\n")
    pytester.makepyfile(toyimpl=TOY_IMPL)
    pytester.syspathinsert()
    pytester.makepyfile(
        "def test_x(dsh_implementation):\n    assert dsh_implementation.name == 'toy'\n"
    )
    result = pytester.runpytest("--dsh-impl=toyimpl:IMPLEMENTATION")
    result.assert_outcomes(passed=1)


def test_each_test_gets_a_fresh_host(pytester):
    pytester.makepyfile(
        """
        seen = []
        def test_a(dsh_host):
            dsh_host.load_plugin("schedule")
            seen.append(dsh_host)
        def test_b(dsh_host):
            assert dsh_host is not seen[0]
            dsh_host.load_plugin("schedule")  # would fail if the plugin manager were shared
        """
    )
    result = pytester.runpytest("--dsh-impl=reference")
    result.assert_outcomes(passed=2)


def test_missing_capabilities_skip_with_the_reason(pytester):
    pytester.makepyfile(toyimpl=TOY_IMPL)
    pytester.syspathinsert()
    pytester.makepyfile(
        """
        import pytest
        @pytest.mark.dsh_requires("schedule", "time-context")
        def test_x(dsh_host):
            pass
        @pytest.mark.dsh_requires("schedule")
        def test_y(dsh_host):
            pass
        """
    )
    result = pytester.runpytest("--dsh-impl=toyimpl:IMPLEMENTATION", "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*implementation 'toy' does not declare time-context*"])


def test_expected_failures_become_strict_xfails(pytester):
    pytester.makepyfile(
        toyimpl=TOY_IMPL
        + textwrap.dedent(
            """
            class WithExpectations:
                name = "toy"; version = "1"; capabilities = frozenset()
                expected_failures = {
                    "test_known.py::test_still_broken": "README sentence X",
                    "test_known.py::test_fixed": "README sentence Y",
                }
                def open_host(self, *, start_ms, withhold=frozenset()):
                    return IMPLEMENTATION.open_host(start_ms=start_ms)
            EXPECTING = WithExpectations()
            """
        )
    )
    pytester.syspathinsert()
    pytester.makepyfile(
        test_known="def test_still_broken():\n    assert False\n"
        "def test_fixed():\n    assert True\n"
    )
    result = pytester.runpytest("--dsh-impl=toyimpl:EXPECTING", "-rxX")
    result.assert_outcomes(xfailed=1, failed=1)
    result.stdout.fnmatch_lines(["*XPASS(strict)*README sentence Y*"])


def test_markers_are_registered(pytester):
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(
        ["@pytest.mark.dsh_requires(*requirements)*", "@pytest.mark.spec(*"]
    )


def test_the_plugin_defines_no_autouse_fixtures(pytester):
    pytester.makepyfile(
        """
        def test_x(request):
            # fixturenames includes every autouse fixture in effect.
            assert [name for name in request.fixturenames if "dsh" in name] == []
        """
    )
    pytester.runpytest("--dsh-impl=reference").assert_outcomes(passed=1)


def test_report_option_writes_a_markdown_summary(pytester):
    pytester.makepyfile(
        "def test_ok(dsh_host):\n    pass\ndef test_bad(dsh_host):\n    assert 1 == 2\n"
    )
    pytester.runpytest("--dsh-impl=reference", "--dsh-report=out/report.md")
    report = (pytester.path / "out" / "report.md").read_text()
    assert f"implementation: reference {__version__}" in report
    assert "**Verdict: does not conform** (exit status 1)" in report
    assert "| readme | general | does not conform | 1 | 1 | 0 | 0 | 0 | 0 |" in report
    assert "### `test_report_option_writes_a_markdown_summary.py::test_bad`" in report


def test_python_implementations_carry_their_expected_failures(pytester):
    pytester.makepyfile(
        toyimpl=TOY_IMPL.replace(
            'frozenset({"schedule"}),', 'frozenset({"schedule"}),\n        '
            'expected_failures={"test_known.py::test_broken": "README sentence Z"},'
        )
    )
    pytester.syspathinsert()
    pytester.makepyfile(test_known="def test_broken():\n    assert False\n")
    result = pytester.runpytest("--dsh-impl=toyimpl:IMPLEMENTATION", "-rx")
    result.assert_outcomes(xfailed=1)
    result.stdout.fnmatch_lines(["*XFAIL*test_broken*README sentence Z*"])


@pytest.mark.parametrize(
    ("nodeid", "expected"),
    [
        (".venv/lib/python3.11/site-packages/dsh_conformance/schedule/test_x.py::test_y[a]",
         "schedule/test_x.py::test_y[a]"),
        ("conformance/schedule/test_x.py::test_y", "conformance/schedule/test_x.py::test_y"),
    ],
)
def test_suite_test_ids_are_relative_to_the_conformance_package(nodeid, expected):
    from pytest_dsh.implementations import suite_test_id

    assert suite_test_id(nodeid) == expected


# -- expected failures' tracebacks (pytest_plugin.expected_failure_repr) --------------
# Pins the kit's behaviour: a test the kit expects to fail is formatted in
# pytest's native style, with the crash message pytest's default gives;
# --runxfail, an explicit --tb and tests not expected to fail keep pytest's.

EXPECTING = TOY_IMPL + textwrap.dedent(
    """
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

"""An implementation object is checked when it is loaded: every problem is one
usage error saying what to fix, never hundreds of identical test failures
(issue items 5 and 7)."""

from __future__ import annotations

import dataclasses
import os
import sys
import textwrap

import kit_child_processes as children
import pytest

from pytest_dsh.fake_host.implementation import PythonImplementation
from pytest_dsh.implementations import check_implementation

FACTORY = textwrap.dedent(
    """
    from pytest_dsh import PythonImplementation
    from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
    TC = REFERENCE.plugins["time-context"]
    """
)


def _run(pytester: pytest.Pytester, source: str) -> pytest.RunResult:
    pytester.makepyfile(broken=FACTORY + textwrap.dedent(source))
    pytester.syspathinsert()
    pytester.makepyfile("def test_x(dsh_host):\n    pass\n")
    return pytester.runpytest("--dsh-impl=broken:IMPLEMENTATION")


def _single_usage_error(result: pytest.RunResult, *patterns: str) -> None:
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(list(patterns))
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert result.stdout.str().count("passed") == 0


def test_an_exception_while_importing_is_one_usage_error_naming_the_line(pytester):
    result = _run(pytester, "raise RuntimeError('config file missing')\nIMPLEMENTATION = None\n")
    _single_usage_error(
        result,
        "*importing implementation 'broken:IMPLEMENTATION' raised RuntimeError: "
        "config file missing (at *broken.py:*); fix the error in that module*",
    )


def test_a_junk_factory_is_named(pytester):
    result = _run(
        pytester,
        """
        IMPLEMENTATION = PythonImplementation(
            "junk", "1", {"time-context": object()}, frozenset({"time-context"})
        )
        """,
    )
    _single_usage_error(
        result,
        "*implementation 'broken:IMPLEMENTATION' is not usable:*",
        "*time-context* has no string 'name'*",
    )


def test_a_list_for_plugins_is_refused_with_an_example(pytester):
    result = _run(
        pytester,
        'IMPLEMENTATION = PythonImplementation("l", "1", [TC], frozenset({"time-context"}))\n',
    )
    _single_usage_error(result, "*plugins must be a mapping of plugin name -> factory, got list*")


def test_a_capability_without_its_plugin_is_refused(pytester):
    result = _run(
        pytester,
        'IMPLEMENTATION = PythonImplementation("c", "1", {"time-context": TC},\n'
        '    frozenset({"time-context", "schedule"}))\n',
    )
    _single_usage_error(
        result, "*capability 'schedule' needs plugin 'schedule', which is not in plugins*"
    )


def test_a_capability_list_is_refused(pytester):
    result = _run(
        pytester,
        'IMPLEMENTATION = PythonImplementation("c", "1", {"time-context": TC}, ["time-context"])\n',
    )
    _single_usage_error(result, "*capabilities must be a frozenset of names, got list*")


def test_an_implementation_that_is_not_ready_says_so_once(pytester):
    result = _run(
        pytester,
        """
        from pytest_dsh.errors import ImplementationError
        class NeedsNode:
            name = "node"; version = "1"; capabilities = frozenset()
            def open_host(self, *, start_ms, withhold=frozenset()):
                raise AssertionError("never reached")
            def check_ready(self):
                raise ImplementationError("the Node bridge is not installed: run npm ci")
        IMPLEMENTATION = NeedsNode()
        """,
    )
    _single_usage_error(result, "*--dsh-impl: the Node bridge is not installed: run npm ci*")


def test_unknown_plugin_names_and_mismatched_factory_names_are_listed_together():
    class Factory:
        name = "schedule"
        requires = frozenset({"clock", "telepathy"})

        def load(self, services, config):
            return object()

    implementation = PythonImplementation(
        "x", "1", {"scheduler": Factory(), "time-context": Factory()}, frozenset()
    )
    problems = check_implementation(implementation)
    assert any("unknown plugin name 'scheduler'" in p for p in problems)
    assert any("plugins['time-context'].name is 'schedule'" in p for p in problems)
    assert any("unknown services ['telepathy']" in p for p in problems)


def test_the_reference_and_official_implementations_pass_the_checks():
    from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
    from pytest_dsh.official import IMPLEMENTATION as OFFICIAL

    assert check_implementation(REFERENCE) == []
    assert check_implementation(OFFICIAL) == []


def test_the_official_build_without_its_bridge_is_one_usage_error(pytester, monkeypatch, tmp_path):
    # Issue item 7: not 123 repeated BridgeUnavailableErrors.
    monkeypatch.setenv("DSH_BRIDGE_DIR", str(tmp_path / "no-bridge-here"))
    pytester.makepyfile("def test_x(dsh_host):\n    pass\n")
    # In a subprocess: this process may already hold a prepared official runtime.
    result = children.runpytest_subprocess(pytester, "--dsh-impl=official")
    _single_usage_error(result, "*--dsh-impl: DSH_BRIDGE_DIR=*is not the pytest-dsh bridge*")


@pytest.mark.parametrize("name", ["reference", "official"])
def test_a_failing_example_prints_the_implementation_without_its_known_failures(name):
    # Hypothesis pretty-prints a failing example's arguments, the implementation
    # fixture among them; the official build's known failures ran to 53 kB
    # and made Hypothesis warn in every run.
    from hypothesis.vendor.pretty import pretty

    from pytest_dsh.implementations import resolve_implementation

    implementation = resolve_implementation(name)
    many = {f"schedule/test_x.py::test_{n}": "reason " * 20 for n in range(500)}
    implementation = dataclasses.replace(implementation, expected_failures=many)
    printed = pretty(implementation)
    assert printed == repr(implementation)
    assert len(printed) < 2000 and "test_0" not in printed
    assert f"name={name!r}" in printed


@pytest.mark.parametrize("name", ["reference", "official"])
def test_the_implementation_prints_the_same_in_every_process(name):
    # A failing example's message quotes the implementation: the same package
    # must give the same message whatever the process's hash seed.
    script = ("from pytest_dsh.implementations import resolve_implementation; "
              f"print(repr(resolve_implementation({name!r})))")
    printed = {
        children.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                     env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("1", "2", "3", "4")
    }
    assert len(printed) == 1, printed
    text = printed.pop()
    assert " at 0x" not in text and f"name={name!r}" in text
    assert "capabilities=['" in text  # sorted names, not a set's order

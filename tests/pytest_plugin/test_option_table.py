"""The kit's pytest options are declared in one table
(``pytest_dsh.pytest_plugin.options.OPTIONS``): pytest registers exactly the
table, every ini twin with it, and a rerun command leaves out what the table
marks as not carried, found through pytest's public parser API only.
Kit behaviour: no README sentence."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pytest_dsh.pytest_plugin as pytest_side
from pytest_dsh.pytest_plugin.options import OPTIONS
from pytest_dsh.pytest_plugin.rerun_options import DROPPED, rerun_options


def test_the_table_holds_each_option_once() -> None:
    flags = [option.flag for option in OPTIONS]
    dests = [option.dest for option in OPTIONS]
    assert len(set(flags)) == len(flags) and len(set(dests)) == len(dests)
    assert all(option.flag == "--" + option.dest.replace("_", "-") for option in OPTIONS)


def test_pytest_registers_exactly_the_table(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfig()
    for option in OPTIONS:
        assert config.getoption(option.dest) == option.default, option.flag
        if option.ini is not None:
            config.getini(option.ini.name)  # registered: no ValueError
    help_text = pytester.runpytest("--help").stdout.str()
    section = help_text[help_text.index("DSH plugin conformance (pytest-dsh):"):]
    section = section[:section.index("\n\n")]
    listed = {line.split()[0].split("=")[0] for line in section.splitlines()[1:]
              if line.startswith("  --dsh-")}
    assert listed == {option.flag for option in OPTIONS}


def test_a_rerun_leaves_out_what_the_table_does_not_carry(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfig()
    for option in OPTIONS:
        assert (option.dest in DROPPED) is (not option.carried), option.flag
    given = ["--dsh-report", "out", "--dsh-explore", "--dsh-wall-budget", "30",
             "--dsh-npm", "schedule=./pkg", "--dsh-level=readme"]
    assert rerun_options(config, given) == [
        "--dsh-wall-budget", "30", "--dsh-npm", "schedule=./pkg", "--dsh-level=readme"
    ]


def test_an_option_followed_by_one_a_rerun_drops_is_kept(pytester: pytest.Pytester) -> None:
    # Each word is read alone: the next option's destination is not its own.
    config = pytester.parseconfig()
    given = ["--dsh-level=compat", "--dsh-report=x.json", "--continue-on-collection-errors",
             "-n", "2", "-x", "--dsh-report", "y.json", "-p", "no:cacheprovider"]
    assert rerun_options(config, given) == [
        "--dsh-level=compat", "--continue-on-collection-errors", "-x", "-p", "no:cacheprovider"
    ]


#: pytest's private parser state (``config._parser``, ``parser._groups``, argparse's own).
_PRIVATE = {"_parser", "optparser", "_option_string_actions", "_groups", "_anonymous", "_inidict"}


def private_parser_reads(source: str) -> list[int]:
    """Lines of ``source`` that read :data:`_PRIVATE` state, as an attribute
    or by name (``getattr(config, "_parser")``)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Attribute) and node.attr in _PRIVATE and not (
            isinstance(node.value, ast.Name) and node.value.id == "self"
        )) or (isinstance(node, ast.Constant) and node.value in _PRIVATE):
            lines.append(node.lineno)
    return lines


def test_the_check_sees_a_getattr_of_the_private_parser() -> None:
    old = 'parser = getattr(getattr(config, "_parser", None), "optparser", None)\n'
    assert private_parser_reads(old) == [1, 1]


def test_the_pytest_side_reads_no_private_parser_state() -> None:
    """pytest's internals may change silently; its public API may not."""
    private = [
        f"{path.name}:{line}"
        for path in sorted(Path(pytest_side.__file__).parent.rglob("*.py"))
        for line in private_parser_reads(path.read_text("utf-8"))
    ]
    assert private == []

"""The options tables a user reads are the real option lists.

docs/validate-your-plugin.md lists every ``dsh-conformance`` option, README.md
every ``--dsh-*`` pytest option, docs/validate-your-npm-plugin.md every option
of the npm path; an option added to the code without its row (or a row left
after its option went) fails here. The ``--help`` texts name every kind of
implementation, ``npm`` included."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import kit_child_processes as children
import pytest

from pytest_dsh.pytest_plugin.conformance_cli import _parser

REPO = Path(__file__).resolve().parents[2]
_ROW = re.compile(r"^\| `(?P<option>-[-a-z]+|-k)\b[^`]*` \|", re.M)


def _table_options(path: Path, heading: str) -> list[str]:
    """The options in the first column of the first table after ``heading``."""
    text = path.read_text("utf-8")
    after = text[text.index(heading):]
    table = re.search(r"(?:^\|.*\n)+", after[after.index("\n|"):].lstrip("\n"), re.M)
    assert table is not None, heading
    return [m["option"] for m in _ROW.finditer(table.group(0))]


@pytest.fixture(scope="module")
def pytest_help() -> str:
    return children.run(
        [sys.executable, "-m", "pytest", "--help", "-p", "no:randomly"],
        capture_output=True, text=True, check=True, cwd=REPO,
    ).stdout


def _pytest_options(help_text: str) -> set[str]:
    section = help_text[help_text.index("DSH plugin conformance (pytest-dsh):"):]
    section = section[:section.index("\n\n")]
    return set(re.findall(r"^  (--dsh-[a-z-]+)", section, re.M))


def test_the_dsh_conformance_table_lists_every_option_of_the_command():
    real = {
        option for action in _parser()._actions for option in action.option_strings
        if option not in ("-h", "--help")
    }
    documented = _table_options(REPO / "docs" / "validate-your-plugin.md", "## 3. Run the suite")
    assert len(documented) == len(set(documented))
    assert set(documented) == real


def test_the_readme_table_lists_every_dsh_pytest_option(pytest_help):
    documented = _table_options(REPO / "README.md", "| option | ini | meaning |")
    assert len(documented) == len(set(documented))
    own = {option for option in documented if option.startswith("--dsh-")}
    assert own == _pytest_options(pytest_help)
    # A row for another plugin's option the kit relies on (--hypothesis-seed)
    # must name a real option too.
    for option in set(documented) - own:
        assert re.search(rf"^  {re.escape(option)}\b", pytest_help, re.M), option


def test_the_npm_guide_lists_every_option_of_the_npm_path(pytest_help):
    documented = _table_options(REPO / "docs" / "validate-your-npm-plugin.md", "## Options")
    npm = {o for o in _pytest_options(pytest_help) if o.startswith(("--dsh-npm", "--dsh-host"))}
    assert set(documented) == {"--dsh-impl", *npm}


def test_the_help_of_every_implementation_option_names_npm(pytest_help):
    section = pytest_help[pytest_help.index("  --dsh-impl=NAME"):]
    impl = section[:section.index("\n  --", 1)]
    assert "npm (the packages given with --dsh-npm)" in " ".join(impl.split())
    (action,) = (a for a in _parser()._actions if "--impl" in a.option_strings)
    assert "npm (the packages given with --npm)" in str(action.help)

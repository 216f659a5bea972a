"""Every code example of the pages this test owns runs as written.

Python blocks whose first line is ``# my_dsh/NAME.py`` become files of a
package ``my_dsh``; ``dsh-conformance`` and ``pytest`` command lines run against
it (collect-only: they must select tests and accept the implementation and
options); a JSON expectations block must load and name real tests; a TOML
entry-point block must name a loadable implementation. Lines that install or
run the whole project (``pip install``, ``make``) are the only ones not run.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tomllib

import kit_child_processes as children
import pytest

from pytest_dsh.expectations import load_expectations_file, unknown_test_ids
from pytest_dsh.implementations import conformance_root

# Installs packages or runs pytest in other processes: more than the default budget.
pytestmark = pytest.mark.dsh_wall_budget(600)

ROOT = pathlib.Path(__file__).parents[2]
PAGES = ["docs/validate-your-plugin.md", "README.md", "docs/index.md"]
BIN = pathlib.Path(sys.executable).parent
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.M | re.S)
_NOT_RUN = ("pip install", "make ")
# The npm path's set-up and run: tests/npm/test_fresh_venv.py runs them, in a
# fresh virtual environment, with npm.
_NPM_PATH = ("python3 -m venv ", ". dsh-venv/bin/activate", "python -m pip install ")


def _blocks(page: str) -> list[tuple[str, str]]:
    return _BLOCK.findall((ROOT / page).read_text("utf-8"))


def _commands(page: str) -> list[str]:
    lines = []
    for language, body in _blocks(page):
        if language != "sh":
            continue
        for line in body.splitlines():
            command = line.split("#", 1)[0].strip()
            if command.startswith(_NPM_PATH) or "--dsh-impl=npm" in command:
                continue
            if command and not command.startswith(_NOT_RUN):
                lines.append(command)
    return lines


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> pathlib.Path:
    """``my_dsh`` written from the python blocks of every page (the same
    files must agree where pages repeat them)."""
    root = tmp_path_factory.mktemp("project")
    (root / "my_dsh").mkdir()
    (root / "my_dsh" / "__init__.py").write_text("")
    written: dict[str, str] = {}
    for page in PAGES:
        for language, body in _blocks(page):
            first = body.splitlines()[0] if body else ""
            match = re.fullmatch(r"# (my_dsh/\w+\.py)", first)
            if language != "python" or match is None:
                continue
            written.setdefault(match.group(1), body)
            (root / match.group(1)).write_text(written[match.group(1)])
    assert set(written) == {"my_dsh/schedule.py", "my_dsh/impl.py"}
    return root


def _run(project: pathlib.Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    return children.run(
        argv, cwd=project, capture_output=True, text=True, check=False, timeout=300,
        env={**os.environ, "PYTHONPATH": str(project)},
    )


def test_every_page_has_examples_and_every_command_is_known():
    commands = [c for page in PAGES for c in _commands(page)]
    assert len(commands) >= 5
    assert all(c.split()[0] in ("dsh-conformance", "pytest", "dsh-log") for c in commands)


@pytest.mark.parametrize(
    "command", [c for page in PAGES for c in _commands(page) if not c.startswith("dsh-log")]
)
def test_command_lines_select_tests_and_accept_the_implementation(project, command):
    argv = shlex.split(command)
    argv[0] = str(BIN / argv[0])
    argv += ["--", "--co", "-q"] if argv[0].endswith("dsh-conformance") else ["--co", "-q"]
    done = _run(project, argv)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(r"\d+ tests? collected", done.stdout), done.stdout[-2000:]


def test_the_python_examples_make_a_valid_implementation(project):
    done = _run(
        project,
        [sys.executable, "-c",
         "from pytest_dsh import resolve_implementation as r\n"
         "i = r('my_dsh.impl:IMPLEMENTATION')\nprint(i.name, sorted(i.capabilities))"],
    )
    assert done.stdout.strip() == "my-dsh ['schedule']", done.stderr


def test_the_expectations_example_loads_and_names_real_tests(project, tmp_path):
    (document,) = [body for lang, body in _blocks(PAGES[0]) if lang == "json"]
    path = tmp_path / "known.json"
    path.write_text(document)
    expectations = load_expectations_file(path)
    assert unknown_test_ids(expectations.failures, set(), conformance_root()) == []
    done = _run(
        project,
        [str(BIN / "dsh-conformance"), "--impl", "my_dsh.impl:IMPLEMENTATION",
         "--expectations", str(path), "--", "--co", "-q"],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(document)["format"] == "dsh-expectations/1"


def test_the_entry_point_example_names_the_example_implementation(project):
    (toml,) = [body for lang, body in _blocks(PAGES[0]) if lang == "toml"]
    points = tomllib.loads(toml)["project"]["entry-points"]["dsh.impl"]
    assert points == {"my-dsh": "my_dsh.impl:IMPLEMENTATION"}

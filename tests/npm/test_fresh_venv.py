"""The npm path as a user meets it: a fresh virtual environment with the kit's
wheel installed, a working folder outside any checkout, npm on PATH.

Must-show of the npm path: the official dsh-schedule package repacked under
another name passes the schedule section up to the official expectations
file; a repack with a renamed error code fails the delete tests; and every
command of docs/validate-your-npm-plugin.md runs. Pins the kit's behaviour;
the README sentences are checked by the suite these runs execute."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import kit_child_processes as children
import pytest

import pytest_dsh
from pytest_dsh.npm.known_failures import load_expectations

# Installs packages or runs pytest in other processes: more than the default budget.
pytestmark = pytest.mark.dsh_wall_budget(900)

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "validate-your-npm-plugin.md"
DELETE_TESTS = {
    "schedule/management_tools/test_management_tools.py::test_list_and_delete_ignore_extra_argument_keys",
    "schedule/management_tools/test_management_tools.py::"
    "test_unknown_deleted_and_dispatched_ids_are_not_found_and_append_nothing",
}


class Venv:
    def __init__(self, folder: Path, wheel: Path) -> None:
        self.folder = folder
        self.wheel = wheel
        self.bin = folder / "bin"
        self.python = str(self.bin / "python")
        site = children.run(
            [self.python, "-c", "import dsh_conformance, os; "
             "print(os.path.dirname(dsh_conformance.__file__))"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        self.suite_dir = Path(site)

    def env(self, kit, path: str | None = None, **extra: str) -> dict[str, str]:
        """A user's shell: the venv first on PATH, no checkout's bridge."""
        default = f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}"
        return kit.user_env(PATH=path if path is not None else default, **extra)


def _record(lines: str) -> set[str]:
    """A RECORD's ``path,hash`` entries of the kit's own files (not its dist-info)."""
    return {line.rsplit(",", 1)[0] for line in lines.splitlines()
            if line and ".dist-info/" not in line.split(",", 1)[0]}


def _installed_kit_wheel() -> Path | None:
    """The wheel ``make`` built and installed into this environment
    (``DSH_KIT_WHEEL``), if every file of it is the installed kit's: the
    distribution the other tests exercise, so it need not be built again."""
    named = os.environ.get("DSH_KIT_WHEEL")
    if not named or not Path(named).is_file():
        return None
    with zipfile.ZipFile(named) as archive:
        records = [n for n in archive.namelist() if n.endswith(".dist-info/RECORD")]
        if len(records) != 1:
            return None
        shipped = _record(archive.read(records[0]).decode("utf-8"))
    # The distribution beside the imported kit (a checkout's egg-info is not it).
    site = str(Path(pytest_dsh.__file__).resolve().parents[1])
    dists = [d for d in metadata.distributions(path=[site]) if d.name == "pytest-dsh"]
    installed = (dists[0].read_text("RECORD") or "") if len(dists) == 1 else ""
    return Path(named) if shipped and shipped <= _record(installed) else None


def _checkout_wheel(shared: Path) -> Path:
    """A wheel of the checkout, built once for the whole run. pytest-xdist
    runs this module's fixture on each worker that takes one of its tests;
    two builds of one checkout at once collide in its build folder (one
    fails), so the first worker builds it under a lock and the others reuse it."""
    dist = shared / "checkout-wheel"
    with (shared / "checkout-wheel.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        built = sorted(dist.glob("pytest_dsh-*.whl"))
        if not built:
            children.run(
                [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w",
                 str(dist), str(REPO)],
                check=True, capture_output=True, timeout=600,
            )
            built = sorted(dist.glob("pytest_dsh-*.whl"))
    return built[-1]


@pytest.fixture(scope="module")
def venv(tmp_path_factory, kit) -> Venv:
    kit.require_npm()
    root = tmp_path_factory.mktemp("fresh")
    # Under pytest-xdist each worker's base temp folder sits in one folder of
    # the run, shared by the workers; without it the base folder is the run's.
    base = tmp_path_factory.getbasetemp()
    run_folder = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    wheel = _installed_kit_wheel() or _checkout_wheel(run_folder)
    children.run([sys.executable, "-m", "venv", str(root / "venv")], check=True, timeout=300)
    children.run(
        [str(root / "venv" / "bin" / "python"), "-m", "pip", "install", "--quiet",
         "--disable-pip-version-check", "-c", str(REPO / "requirements" / "constraints.txt"),
         str(wheel)],
        check=True, capture_output=True,
    )
    return Venv(root / "venv", wheel)


def test_the_wheel_ships_the_bridge_without_node_modules(venv):
    bridge = venv.suite_dir.parent / "pytest_dsh" / "_bridge"
    assert {"server.mjs", "host.mjs", "package.json", "package-lock.json"} <= {
        p.name for p in bridge.iterdir()
    }
    assert (bridge / "lib" / "packages.mjs").is_file()
    # Every host profile's lockfile ships with the bridge (--dsh-host).
    assert (bridge / "hosts" / "0.1.1-rc.2" / "package-lock.json").is_file()
    assert not (bridge / "node_modules").exists()


def test_a_repacked_official_tarball_passes_up_to_the_official_expectations(
    venv, kit, tmp_path
):
    tarball = kit.repack_official(tmp_path / "packages", "acme-dsh-schedule")
    run = kit.run_suite(
        [*kit.schedule_section(venv.suite_dir), "--dsh-impl=npm", "--dsh-npm",
         f"schedule={tarball}"],
        cwd=tmp_path, env=venv.env(kit), python=venv.python,
    )
    assert run.outcomes, run.output[-3000:]
    expected = set(kit.official_expectations()) & set(run.outcomes) - run.ids("skipped")
    assert run.ids("error") == set()
    assert run.ids("failed") == expected
    assert len(run.ids("passed")) > 300


def test_a_repack_with_a_renamed_error_code_fails_the_delete_tests(venv, kit, tmp_path):
    tarball = kit.repack_official(
        tmp_path / "packages", "acme-dsh-schedule-renamed",
        replace={'"schedule_not_found"': '"not_found"'},
    )
    run = kit.run_suite(
        [str(venv.suite_dir / "schedule" / "management_tools" / "test_management_tools.py"),
         f"--rootdir={venv.suite_dir}", "--dsh-impl=npm", "--dsh-npm", f"schedule={tarball}"],
        cwd=tmp_path, env=venv.env(kit), python=venv.python,
    )
    failed = run.ids("failed")
    assert failed >= DELETE_TESTS, run.output[-3000:]
    assert all("delete" in test_id or "not_found" in test_id for test_id in failed)
    assert "'not_found'" in run.messages[sorted(DELETE_TESTS)[1]]


def test_official_without_a_bridge_or_npm_is_one_usage_error(venv, kit, tmp_path):
    env = venv.env(kit, path=str(venv.bin), DSH_NPM_CACHE=str(tmp_path / "cache"))
    env.pop("DSH_NPM", None)
    done = children.run(
        [venv.python, "-m", "pytest", "--pyargs", "dsh_conformance", "--dsh-impl=official"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 4, output[-3000:]
    assert output.count("ERROR: --dsh-impl:") == 1
    assert "npm was not found on PATH" in output


@pytest.fixture(scope="module")
def lifecycle_cache(tmp_path_factory) -> Path:
    """An npm cache of these runs' own, shared by both: the host's base
    install is made once, and each run still installs the example itself
    (whether scripts may run is part of an install's key)."""
    return tmp_path_factory.mktemp("lifecycle-npm-cache")


@pytest.mark.parametrize("allowed", [False, True], ids=["scripts-off", "scripts-on"])
def test_lifecycle_scripts_run_only_when_allowed(venv, kit, tmp_path, lifecycle_cache, allowed):
    """The example with a postinstall script, installed by a user's run: the
    script runs only under --dsh-npm-scripts, with the run's environment."""
    import json

    plugin = tmp_path / "plugin"
    shutil.copytree(kit.EXAMPLE, plugin)
    manifest = json.loads((plugin / "package.json").read_text("utf-8"))
    manifest["scripts"] = {"postinstall": "node -e \"require('fs').writeFileSync("
                           "process.env.DSH_TEST_MARK, 'ran')\""}
    (plugin / "package.json").write_text(json.dumps(manifest), "utf-8")
    mark = tmp_path / "postinstall-ran"
    run = kit.run_suite(
        [str(venv.suite_dir / "schedule" / "management_tools" / "test_management_tools.py"),
         f"--rootdir={venv.suite_dir}", "-k", "test_list_and_delete_ignore_extra_argument_keys",
         "--dsh-impl=npm", "--dsh-npm", f"schedule={plugin}",
         *(["--dsh-npm-scripts"] if allowed else [])],
        # Installs are cached by content across runs: a cache of these runs' own
        # makes each install (and so run, or not run, the script) instead of
        # reusing an install an earlier run of this test made.
        cwd=tmp_path, python=venv.python,
        env=venv.env(kit, DSH_TEST_MARK=str(mark), DSH_NPM_CACHE=str(lifecycle_cache)),
    )
    assert run.outcomes and run.ids("error") == set(), run.output[-3000:]
    assert mark.exists() is allowed, run.output[-3000:]
    installs = [p for p in lifecycle_cache.glob("*/dsh-install.json")
                if json.loads(p.read_text("utf-8")).get("scripts") is allowed]
    assert len(installs) == 1, "this run made an install of its own"


def _doc_commands(path: Path = DOC) -> list[str]:
    """The lines of every ```sh block of a page, in order."""
    text = path.read_text("utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def _stock_path() -> str:
    """``PATH`` without any virtual environment's ``bin`` (the kit's own,
    this run's): a user's shell before the guide's first command."""
    return os.pathsep.join(
        folder for folder in os.environ.get("PATH", "").split(os.pathsep)
        if folder and not (Path(folder) / "activate").is_file()
        and not (Path(folder).parent / "pyvenv.cfg").is_file()
    )


def _as_one_shell(commands: list[str]) -> str:
    """A bash script running ``commands`` as written, in order, in one shell
    (``cd`` and ``. activate`` carry over), stopping at the first that fails;
    the suite's run may exit 1: the example deviates on purpose."""
    lines = ["set -u"]
    for number, command in enumerate(commands):
        allowed = 1 if command.startswith("pytest ") else 0
        lines += [
            command,
            f"rc=$?; if [ $rc -gt {allowed} ]; then echo \"guide command {number} failed "
            f"($rc)\" >&2; exit 90; fi",
        ]
    return "\n".join(lines) + "\n"


def test_the_readme_gives_the_guide_s_set_up_commands():
    """README's npm block is the guide's set-up, then a run of the suite."""
    readme = next(
        block for block in re.findall(r"```sh\n(.*?)```", (REPO / "README.md").read_text(
            "utf-8"), flags=re.DOTALL) if "--dsh-impl=npm" in block
    )
    lines = [line.split("  #", 1)[0].rstrip() for line in readme.splitlines() if line.strip()]
    guide = _doc_commands()
    assert lines[:3] == guide[:3]
    assert lines[3].startswith("pytest --pyargs dsh_conformance --dsh-impl=npm --dsh-npm ")


def test_every_command_of_the_npm_guide_runs_and_the_example_fails_exactly_as_expected(
    venv, kit, tmp_path
):
    """The guide's commands, run literally in one shell from a PATH with no
    virtual environment on it: they make their own environment, install the
    kit's wheel, pack the example and run the whole suite on it, which fails
    exactly the official build's known failures (the example wraps that
    build) plus the tests of its one deliberate deviation."""
    commands = _doc_commands()
    assert commands[0] == "python3 -m venv dsh-venv"
    # Stock Debian and Ubuntu have python3 only, and refuse pip outside a venv.
    activated = commands.index(". dsh-venv/bin/activate")
    assert not any(c.split()[0] in ("python", "pip") for c in commands[:activated])
    assert any("--dsh-impl=npm" in c for c in commands)
    shutil.copytree(kit.EXAMPLE, tmp_path / "dsh-schedule-wrapper")
    junit = tmp_path / "guide-junit.xml"
    # pytest reads the JUnit option from the environment; the pip install is
    # held to the kit's constraints, as the fixture's is.
    env = kit.user_env(
        PATH=_stock_path(), PYTEST_DSH=str(venv.wheel),
        PYTEST_ADDOPTS=f"--junitxml={junit} -p no:randomly",
        PIP_CONSTRAINT=str(REPO / "requirements" / "constraints.txt"),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    env.pop("VIRTUAL_ENV", None)
    done = children.run(
        ["bash", "-c", _as_one_shell(commands)], cwd=tmp_path, env=env, capture_output=True,
        text=True,
    )
    output = done.stdout + done.stderr
    assert done.returncode in (0, 1), output[-3000:]
    assert (tmp_path / "dsh-venv" / "bin" / "pytest").is_file()
    cwd = tmp_path / "dsh-schedule-wrapper"
    report = (cwd / "report.md").read_text("utf-8")
    assert "example-dsh-schedule-wrapper" in report
    outcomes, messages = kit.read_junit(junit)
    failed = {test_id for test_id, outcome in outcomes.items() if outcome == "failed"}
    skipped = {test_id for test_id, outcome in outcomes.items() if outcome == "skipped"}
    deviations = set(load_expectations(kit.EXAMPLE / "expected-deviations.json"))
    expected = (set(kit.official_expectations()) | deviations) & set(outcomes) - skipped
    assert deviations <= failed
    assert failed == expected
    assert not {outcome for outcome in outcomes.values()} - {"passed", "failed", "skipped"}
    message = messages[kit.UNKNOWN_ID_TEST]
    assert "'not_found'" in message and "'schedule_not_found'" in message

"""The conformance suite fails each deliberately broken implementation.

Every mutant in ``mutant_impls.MUTANTS`` breaks one behaviour the READMEs
require (or a pinned official detail). Against each, the conformance test named
by the catalog (all its parameters, selected with ``-k`` to stay fast) must
fail; the same selection passes against the catalog without a mutant, so every
failure is the mutant's doing. Each run is a pytest process of its own, forked
from one that has imported pytest (``pytest_forks.py``). docs/conformance-power.md
lists the mutants and the mutation-tool run that complements them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import json
import os
import pathlib
import select
import signal
import subprocess
import sys
from dataclasses import dataclass

import kit_child_processes as children
import pytest

# Installs packages or runs pytest in other processes: more than the default budget.
pytestmark = pytest.mark.dsh_wall_budget(600)

HERE = pathlib.Path(__file__).parent


def _load_catalog():
    # The catalog sits beside this file; under --import-mode=importlib it is not
    # importable by name, and it must be imported without DSH_MUTANT set.
    spec = importlib.util.spec_from_file_location("mutant_catalog", HERE / "mutant_impls.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve annotations through it
    env_mutant = os.environ.pop("DSH_MUTANT", None)
    try:
        spec.loader.exec_module(module)
    finally:
        if env_mutant is not None:
            os.environ["DSH_MUTANT"] = env_mutant
    return module.MUTANTS


MUTANTS = _load_catalog()


def _env() -> dict[str, str]:
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    env.pop("DSH_MUTANT", None)
    return env


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str


class PytestForks:
    """``python -m pytest`` runs, each in a process of its own forked from one
    server that imported pytest once (``pytest_forks.py``)."""

    def __init__(self, folder: pathlib.Path) -> None:
        self._folder = folder
        self._runs = itertools.count()
        self._server = subprocess.Popen(
            [sys.executable, str(HERE / "pytest_forks.py")], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, env=_env(), cwd=HERE, text=True,
        )

    def run(self, args: list[str], env: dict[str, str]) -> Run:
        number = next(self._runs)
        out, err = self._folder / f"{number}.out", self._folder / f"{number}.err"
        pid = self._folder / f"{number}.pid"
        request = {"args": args, "env": env, "cwd": str(HERE), "stdout": str(out),
                   "stderr": str(err), "pid": str(pid)}
        assert self._server.stdin is not None and self._server.stdout is not None
        self._server.stdin.write(json.dumps(request) + "\n")
        self._server.stdin.flush()
        # One answer a request: nothing of it is buffered before it arrives.
        limit = children.child_timeout()
        if not select.select([self._server.stdout], [], [], limit)[0]:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(int(pid.read_text("utf-8")), signal.SIGKILL)
            self._server.stdout.readline()  # the server reaps the run and answers
            pytest.fail(
                f"pytest {' '.join(args)} did not end within {limit:.1f} s (its test's wall "
                f"budget less a margin) and was stopped; it printed:\n--- stdout (end) ---\n"
                f"{out.read_text('utf-8', 'replace')[-4000:]}\n--- stderr (end) ---\n"
                f"{err.read_text('utf-8', 'replace')[-4000:]}", pytrace=False,
            )
        answer = self._server.stdout.readline()
        assert answer, f"the pytest fork server ended (exit status {self._server.wait()})"
        return Run(json.loads(answer)["returncode"], out.read_text("utf-8"),
                   err.read_text("utf-8"))

    def close(self) -> None:
        assert self._server.stdin is not None
        self._server.stdin.close()
        assert self._server.wait(timeout=children.child_timeout(60)) == 0


@pytest.fixture(scope="module")
def forks(tmp_path_factory):
    runner = PytestForks(tmp_path_factory.mktemp("mutant-runs"))
    yield runner
    runner.close()


def _run(forks, modules, *options, mutant=None):
    env = _env()
    if mutant is not None:
        env["DSH_MUTANT"] = mutant
    return forks.run(["--pyargs", *modules, "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                      "--no-header", *options], env)


def test_the_catalog_covers_at_least_thirty_behaviours():
    assert len(MUTANTS) >= 30
    assert all(m.description and m.module.startswith("dsh_conformance.") for m in MUTANTS.values())


def _function(mutant):
    return mutant.expected_failure.split("[")[0]


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_the_suite_fails_the_mutant(forks, name):
    mutant = MUTANTS[name]
    done = _run(forks, [mutant.module], "-k", _function(mutant),
                "--dsh-impl=mutant_impls:IMPLEMENTATION", "-rf", mutant=name)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED ")]
    assert any(mutant.expected_failure in line for line in failed), done.stdout[-3000:]


def test_the_unbroken_catalog_passes_the_same_tests(forks):
    # Imported without DSH_MUTANT the catalog patches nothing: its implementation
    # is the reference, so every failure above is the mutant's doing.
    modules = sorted({mutant.module for mutant in MUTANTS.values()})
    selection = " or ".join(sorted({_function(mutant) for mutant in MUTANTS.values()}))
    done = _run(forks, modules, "-k", selection, "--dsh-impl=mutant_impls:IMPLEMENTATION")
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout.splitlines()[-1]

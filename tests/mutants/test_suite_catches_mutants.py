"""The conformance suite fails each deliberately broken implementation.

Every mutant in ``mutant_impls.MUTANTS`` breaks one behaviour the READMEs
require (or a pinned official detail). Against each, the conformance test named
by the catalog (all its parameters, selected with ``-k`` to stay fast) must
fail; the same selection passes against the catalog without a mutant, so every
failure is the mutant's doing. docs/conformance-power.md lists the mutants and
the mutation-tool run that complements them.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys

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


def _run(modules, *options, mutant=None):
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    env.pop("DSH_MUTANT", None)
    if mutant is not None:
        env["DSH_MUTANT"] = mutant
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", *modules, "-q", "-p", "no:cacheprovider",
         "-p", "no:randomly", "--no-header", *options],
        capture_output=True, text=True, check=False, env=env, cwd=HERE,
    )


def test_the_catalog_covers_at_least_thirty_behaviours():
    assert len(MUTANTS) >= 30
    assert all(m.description and m.module.startswith("dsh_conformance.") for m in MUTANTS.values())


def _function(mutant):
    return mutant.expected_failure.split("[")[0]


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_the_suite_fails_the_mutant(name):
    mutant = MUTANTS[name]
    done = _run([mutant.module], "-k", _function(mutant),
                "--dsh-impl=mutant_impls:IMPLEMENTATION", "-rf", mutant=name)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED ")]
    assert any(mutant.expected_failure in line for line in failed), done.stdout[-3000:]


def test_the_unbroken_catalog_passes_the_same_tests():
    # Imported without DSH_MUTANT the catalog patches nothing: its implementation
    # is the reference, so every failure above is the mutant's doing.
    modules = sorted({mutant.module for mutant in MUTANTS.values()})
    selection = " or ".join(sorted({_function(mutant) for mutant in MUTANTS.values()}))
    done = _run(modules, "-k", selection, "--dsh-impl=mutant_impls:IMPLEMENTATION")
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout.splitlines()[-1]

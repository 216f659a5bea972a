"""Helpers shared by the meta tests (the kit runs them with
``--import-mode=importlib``, so a sibling module is loaded by path)."""

from __future__ import annotations

import importlib.util
import pathlib
from types import ModuleType

import pytest

HERE = pathlib.Path(__file__).parent
BENCHMARKS = HERE.parents[1] / "benchmarks"


def _load(name: str, path: pathlib.Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def variant_runs() -> ModuleType:
    """``variant_runs.py``: one whole-suite run of a variant, and its failures."""
    return _load("meta_variant_runs", HERE / "variant_runs.py")


@pytest.fixture(scope="session")
def interpreter() -> ModuleType:
    """``benchmarks/interpreter.py`` (the folder is no package)."""
    return _load("benchmark_interpreter", BENCHMARKS / "interpreter.py")


@pytest.fixture(scope="session")
def node_share() -> ModuleType:
    """``benchmarks/node_share.py``."""
    return _load("benchmark_node_share", BENCHMARKS / "node_share.py")


@pytest.fixture(scope="session")
def machine_share() -> ModuleType:
    """``benchmarks/machine_share.py``."""
    return _load("benchmark_machine_share", BENCHMARKS / "machine_share.py")

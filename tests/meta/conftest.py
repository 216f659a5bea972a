"""Helpers shared by the meta tests (the kit runs them with
``--import-mode=importlib``, so a sibling module is loaded by path)."""

from __future__ import annotations

import importlib.util
import pathlib
from types import ModuleType

import pytest

HERE = pathlib.Path(__file__).parent


@pytest.fixture(scope="session")
def variant_runs() -> ModuleType:
    """``variant_runs.py``: one whole-suite run of a variant, and its failures."""
    spec = importlib.util.spec_from_file_location("meta_variant_runs", HERE / "variant_runs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

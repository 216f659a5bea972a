"""Shared by every folder of the kit's tests."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# The kit's own property tests assert no speed (benchmarks measure it), so a
# loaded machine must not fail them with a deadline or a too-slow health check.
# Loaded here, before any test module is imported, because ``@given`` takes the
# default settings when it decorates. The parent is the profile Hypothesis
# chose (``ci`` under CI keeps its derandomized runs); ``--hypothesis-profile``
# still wins, since Hypothesis loads it after this file.
settings.register_profile(
    "dsh-kit-tests",
    parent=settings.get_profile(settings.get_current_profile_name()),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("dsh-kit-tests")

KIT_TESTS = Path(__file__).resolve().parent


def _load_child_processes() -> None:
    """``child_processes.py`` as the module ``kit_child_processes``: the
    kit's tests import it by that name (``--import-mode=importlib`` puts no
    test folder on the path). Loaded before any test module is imported."""
    name = "kit_child_processes"
    if name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(name, KIT_TESTS / "child_processes.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


_load_child_processes()


@pytest.fixture(scope="session")
def bridge_node() -> Path:
    """The Node runtime of an installed bridge (``npm ci --prefix bridge``).
    Without one a test is skipped with the reason, except under CI, where the
    bridge is part of the set-up and its absence fails the test."""
    from pytest_dsh.npm.bridge import BridgeUnavailableError, locate_bridge, locate_node

    try:
        return locate_node(locate_bridge())
    except BridgeUnavailableError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install the bridge (npm ci --prefix bridge): {exc}")
        pytest.skip(str(exc))


def _declared_wall_budget(item: pytest.Item) -> float:
    if not item.path.is_relative_to(KIT_TESTS):
        return 0.0  # a suite run from this folder (a mutant's, a variant's) keeps its order
    marker = item.get_closest_marker("dsh_wall_budget")
    return float(marker.args[0]) if marker is not None and marker.args else 0.0


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest tests first, so that two workers never end on one long test
    while the other core idles. A test that installs packages or runs pytest
    in other processes declares a wall budget above the default
    (``dsh_wall_budget``): the larger, the longer it runs. The sort is stable
    (a module's tests stay together) and the same in every worker."""
    items.sort(key=lambda item: -_declared_wall_budget(item))

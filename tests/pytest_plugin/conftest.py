"""Implementations and test files for pytester runs of the plugin.

``impls`` is a module of implementations built from the reference plugins:
``FULL`` (both plugins), ``TC_ONLY`` (time-context only) and ``EMPTY`` (no
plugin at all). ``SPEC_TESTS`` is a test file with one README-level test per
plugin and one compat-level test; ``FAILING`` asserts with a message;
``RUNAWAYS`` runs away a given number of times. ``chromium`` runs the headless
browser the HTML report tests measure the layout in.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path

import kit_child_processes as children
import pytest

IMPLS = textwrap.dedent(
    """
    from pytest_dsh import PythonImplementation
    from dsh_reference.implementation import IMPLEMENTATION as REFERENCE

    FULL = PythonImplementation(
        "full", "1.0", dict(REFERENCE.plugins), frozenset({"schedule", "time-context"})
    )
    TC_ONLY = PythonImplementation(
        "tc-only", "1.0", {"time-context": REFERENCE.plugins["time-context"]},
        frozenset({"time-context"}),
    )
    EMPTY = PythonImplementation("empty", "0.0", {})
    """
)

SPEC_TESTS = textwrap.dedent(
    """
    import pytest

    @pytest.mark.spec("SCH-001")
    @pytest.mark.dsh_requires("schedule")
    def test_schedule_loads(dsh_host):
        dsh_host.load_plugin("schedule")

    @pytest.mark.spec("TC-015")
    @pytest.mark.dsh_requires("time-context")
    def test_time_context_loads(dsh_host):
        dsh_host.load_plugin("time-context")

    @pytest.mark.compat("PIN-DEMO")
    @pytest.mark.dsh_requires("time-context")
    def test_a_pinned_detail(dsh_host):
        dsh_host.load_plugin("time-context")
    """
)

FAILING = textwrap.dedent(
    """
    import pytest

    @pytest.mark.spec("TC-012")
    @pytest.mark.dsh_requires("time-context")
    def test_interval_must_be_safe(dsh_host):
        assert 1 == 2, "refreshIntervalMs -1 was accepted"
    """
)

# The runaways raise RunawayError themselves: no test spends a real budget.
RUNAWAYS = textwrap.dedent(
    """
    import pytest
    from pytest_dsh.driving.runaway import RunawayError

    @pytest.mark.parametrize("n", range({count}))
    @pytest.mark.spec("TC-012")
    def test_runs_away(n):
        raise RunawayError(f"budget used up ({{n}})")

    @pytest.mark.spec("TC-015")
    def test_z_after():
        pass
    """
)

_CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture
def spec_tests() -> str:
    return SPEC_TESTS


@pytest.fixture
def failing_test() -> str:
    return FAILING


@pytest.fixture
def impls(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(impls=IMPLS)
    pytester.syspathinsert()
    return pytester


@pytest.fixture
def runaway_tests() -> Callable[[int], str]:
    """A test file of ``count`` tests that run away, then one that passes."""

    def tests(count: int) -> str:
        return RUNAWAYS.format(count=count)

    return tests


@pytest.fixture
def chromium(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Runs headless Chromium (Debian's package, scripts/ensure-chromium) with the
    given arguments, each time with a fresh profile. A missing browser skips the
    test, and fails it under CI."""
    found = os.environ.get("DSH_CHROMIUM") or shutil.which("chromium") or shutil.which(
        "chromium-browser"
    )
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install chromium (scripts/ensure-chromium)")
        pytest.skip("no chromium on PATH (run scripts/ensure-chromium)")
    profiles = itertools.count()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        profile = tmp_path / f"chromium-profile-{next(profiles)}"
        return children.run(
            [found, *_CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True, text=True, check=True,
        )

    return run

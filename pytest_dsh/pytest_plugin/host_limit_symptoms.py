"""Host limits met by symptom: a failure that follows from what the host did.

Some host limits (:mod:`pytest_dsh.npm.host_limits`) strike only when a plugin
takes a particular way: the DSH host queues a message a plugin gives
``agent.inject()`` while a step is prepared for the *next* step. A plugin
written the README's way meets it in nearly every test, one that appends its
reading otherwise never does. Listing every test that can fail from it would
charge no plugin for it but also excuse every plugin, so such a limit
declares its *symptom* (what the host notes when it strikes,
:mod:`pytest_dsh.driving.host_symptoms`) and the host behaviour it takes away;
a test declares the behaviour it needs::

    @pytest.mark.dsh_requires("inject-into-the-step")   # or dsh_needs_host(...)

A test that fails on a host profile with such a limit, after the host noted
the limit's symptom during the test, and that needs the behaviour the limit
takes away, is reported as that host limit (outcome ``host limit``), never
against the plugin. A test that passes stays passed. A runaway that the host
traced to a limit's symptom (every step opened by the message injected while
the step before was prepared) is the limit too, whatever the test needs: it is
named as the limit and does not count toward ``--dsh-max-runaways``.

A probe (``dsh_probe``) reported this way says that it cannot observe its
behaviour on that host, so the first screen never diagnoses the limit as a
bug of the plugin.
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

from pytest_dsh.driving import host_symptoms
from pytest_dsh.driving.runaway import RunawayError
from pytest_dsh.npm.host_limits import HostLimit, limit_shown
from pytest_dsh.pytest_plugin.probes import probe_of
from pytest_dsh.pytest_plugin.roles import NEEDS_HOST_MARKER, named_requirements

__all__ = ["HOST_VERSION"]

#: The DSH host profile the implementation under test runs on (npm
#: implementations only); set by the pytest plugin at configure time.
HOST_VERSION = pytest.StashKey[str | None]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{NEEDS_HOST_MARKER}(*behaviours): this test needs these host behaviours, as "
        "naming them in dsh_requires does (pytest_dsh/driving/requirements.py); on a DSH host "
        "profile whose limit takes one away, a failure after the limit's symptom is "
        "reported as that host limit (pytest_dsh/npm/host_limits.json)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    host_symptoms.clear()  # the symptoms are the running test's


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    # tryfirst: the outermost wrapper, so the runaway flag the budget's wrapper
    # set is there to take back.
    report = yield
    host = item.config.stash.get(HOST_VERSION, None)
    if host is None or not report.failed or report.when not in ("setup", "call"):
        return report
    limit, runaway = _limit_met(item, call, host)
    if limit is None:
        return report
    reason = limit.reason(host)
    if runaway:
        reason = f"runaway caused by the {reason}"
    probe = probe_of(item)
    if probe is not None:
        reason = f"this probe cannot observe '{probe[1]}' on DSH host {host}: {reason}"
    # Reported as the host limits decided by test id are: an expected failure
    # whose reason names the limit; the row takes the reason (reporting.results).
    report.outcome = "skipped"
    report.wasxfail = reason
    report.dsh_host_limit = reason  # type: ignore[attr-defined]
    if hasattr(report, "dsh_runaway"):
        del report.dsh_runaway  # a limit's runaway is no runaway of the plugin
    return report


def _limit_met(
    item: pytest.Item, call: pytest.CallInfo[None], host: str
) -> tuple[HostLimit | None, bool]:
    """The limit the failure follows from, and whether it was a runaway."""
    excinfo = call.excinfo
    if excinfo is not None and excinfo.errisinstance(RunawayError):
        symptom = getattr(excinfo.value, "symptom", None)
        if symptom is None:
            return None, True
        return limit_shown(host, frozenset({symptom})), True
    needs = named_requirements(item, "host-behaviour")
    if not needs:
        return None, False
    return limit_shown(host, host_symptoms.observed(), needs), False

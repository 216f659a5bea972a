"""The per-test budget: how much work and wall-clock time one test may take.

An implementation that never settles (timers re-armed forever, a log or a
follow-up queue that grows without end, a callback that never returns) must
fail the one test that triggered it, quickly, and let the run go on. The
virtual loop's own detectors (see :mod:`pytest_dsh.fake_host.virtual_loop`) catch the
common patterns within seconds; the budget is the backstop for the rest.

Options (each with an ini twin; declared in :mod:`pytest_dsh.pytest_plugin.options`):

``--dsh-step-budget N`` / ini ``dsh_step_budget`` (default 5,000,000)
    Virtual work: event-loop iterations one test phase may run on the fake
    host. ``0`` is unlimited.
``--dsh-wall-budget SECONDS`` / ini ``dsh_wall_budget`` (default 120)
    Real time one test phase may take. The fake host's loop checks it while it
    runs; the bridge bounds each request's wait by it and stops a Node process
    that overran; a signal (POSIX, main thread) interrupts synchronous code that
    never returns to the loop. ``0`` is unlimited.
``--dsh-growth-budget N`` / ini ``dsh_growth_budget`` (default 1,000,000)
    Events one test phase may append plus follow-ups it may queue (and, on the
    Node bridge, messages injected), on either host: a log or follow-up queue
    that grows without end fails the test where it grows, even from code that
    never returns to the event loop. The bridge counts inside Node, against
    what the phase has left, and also stops a request that opens 500 steps of
    one turn without virtual time moving (a turn that never ends, caught
    within seconds), 64 when most of those steps were opened by messages
    injected at the step before (the host limit's runaway). ``0`` is unlimited.

``--dsh-max-runaways N`` / ini ``dsh_max_runaways`` (default 3)
    Stop the run after N tests ran away (each may cost the whole wall
    budget); the tests not run are reported as not run, never as passed, and
    the run does not conform. ``0`` never stops. Under pytest-xdist the
    workers share the count (a file the controller names), so the run stops
    after N runaways in all, give or take the tests already running. A
    runaway the host traced to a host limit is reported as that limit and not
    counted (:mod:`pytest_dsh.pytest_plugin.host_limit_symptoms`).

A test that legitimately takes long (one that installs packages or runs
another pytest) sets its own wall budget with the marker
``@pytest.mark.dsh_wall_budget(SECONDS)`` (``0``: unlimited), which wins over
the option and the ini value.

Setup, call and teardown each get the whole budget, so a host whose test ran
away can still be closed. A budget overrun is a
:class:`~pytest_dsh.driving.runaway.RunawayError`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from types import FrameType
from typing import Any, Final

import pytest

from pytest_dsh.driving import runaway
from pytest_dsh.driving.runaway import Budget, RunawayError
from pytest_dsh.implementations import suite_test_id
from pytest_dsh.pytest_plugin import parallel
from pytest_dsh.pytest_plugin.reporting.document import EarlyStop

__all__ = [
    "DEFAULT_GROWTH_BUDGET",
    "DEFAULT_MAX_RUNAWAYS",
    "DEFAULT_STEP_BUDGET",
    "DEFAULT_WALL_BUDGET_S",
    "RunawayStop",
    "early_stop",
]

DEFAULT_STEP_BUDGET: Final = 5_000_000
DEFAULT_GROWTH_BUDGET: Final = 1_000_000
DEFAULT_WALL_BUDGET_S: Final = 120.0
DEFAULT_MAX_RUNAWAYS: Final = 3
#: The signal fires this much after the loop's own check would have, so the
#: loop's message (which names the callback) wins when the loop is running.
_SIGNAL_GRACE_S: Final = 2.0


def _configured(config: pytest.Config) -> tuple[int | None, float | None]:
    steps = config.getoption("dsh_step_budget")
    if steps is None:
        text = str(config.getini("dsh_step_budget")).strip()
        steps = int(text) if text else DEFAULT_STEP_BUDGET
    wall = config.getoption("dsh_wall_budget")
    if wall is None:
        text = str(config.getini("dsh_wall_budget")).strip()
        wall = float(text) if text else DEFAULT_WALL_BUDGET_S
    if steps < 0 or wall < 0:
        raise pytest.UsageError("--dsh-step-budget and --dsh-wall-budget cannot be negative")
    return (steps or None), (wall or None)


def _configured_growth(config: pytest.Config) -> int | None:
    growth = config.getoption("dsh_growth_budget")
    if growth is None:
        text = str(config.getini("dsh_growth_budget")).strip()
        growth = int(text) if text else DEFAULT_GROWTH_BUDGET
    if growth < 0:
        raise pytest.UsageError("--dsh-growth-budget cannot be negative")
    return growth or None


#: The run's budgets (steps, wall seconds, growth), read once at configure time.
_LIMITS_KEY = pytest.StashKey[tuple[int | None, float | None, int | None]]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "dsh_wall_budget(seconds): this test's own wall-clock budget per phase "
        "(0: unlimited), instead of --dsh-wall-budget",
    )
    # A bad value is one usage error before anything runs, not an error per test.
    steps, wall = _configured(config)
    config.stash[_LIMITS_KEY] = (steps, wall, _configured_growth(config))
    limit = _configured_max_runaways(config)
    if limit:
        config.pluginmanager.register(RunawayStop(config, limit), "dsh-runaway-stop")


#: A test's own wall budget from its marker: seconds, or None for unlimited.
_MARKED_WALL_KEY = pytest.StashKey[float | None]()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A malformed marker is one usage error at collection, not an error per phase.
    for item in items:
        marker = item.get_closest_marker("dsh_wall_budget")
        if marker is None:
            continue
        value = marker.args[0] if len(marker.args) == 1 and not marker.kwargs else None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
            raise pytest.UsageError(
                f"{item.nodeid}: dsh_wall_budget takes one number of seconds >= 0 "
                f"(0: unlimited), not {marker.args!r}"
            )
        item.stash[_MARKED_WALL_KEY] = float(value) or None


def _marked_wall(item: pytest.Item, wall: float | None) -> float | None:
    if _MARKED_WALL_KEY in item.stash:
        return item.stash[_MARKED_WALL_KEY]
    return wall


def _limits(config: pytest.Config) -> tuple[int | None, float | None, int | None]:
    limits = config.stash.get(_LIMITS_KEY, None)
    if limits is None:  # pragma: no cover - pytest_configure always ran first
        steps, wall = _configured(config)
        limits = (steps, wall, _configured_growth(config))
    return limits


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    wall = runaway.budget.wall_s
    raise RunawayError(
        f"the test used its wall-clock budget of {wall:g} s (--dsh-wall-budget) in code "
        "that never returned to the event loop: a callback or hook that loops forever"
    )


def _alarm_available() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


#: Set while a test's protocol holds the alarm's handler (_on_alarm).
_ALARM_HANDLER_KEY = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    # The alarm's handler is installed once per test (installing one costs
    # more than the phase it guards); each phase arms its own timer.
    wall = _marked_wall(item, _limits(item.config)[1])
    if wall is None or not _alarm_available():
        return (yield)
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    item.stash[_ALARM_HANDLER_KEY] = True
    try:
        return (yield)
    finally:
        del item.stash[_ALARM_HANDLER_KEY]
        signal.signal(signal.SIGALRM, previous)


#: Test phases now running in this process: more than one inside a nested run.
_open_phases = 0


@contextlib.contextmanager
def _phase(item: pytest.Item) -> Iterator[None]:
    steps, wall, growth = _limits(item.config)
    wall = _marked_wall(item, wall)
    # A phase may run inside another test's phase (an in-process nested
    # pytest run, as pytester's): the outer budget and alarm come back after it.
    global _open_phases
    outer = runaway.budget if _open_phases else None
    _open_phases += 1
    runaway.budget = Budget(
        steps_left=steps,
        wall_deadline=None if wall is None else time.monotonic() + wall,
        growth_left=growth,
        steps=steps,
        wall_s=wall,
        growth=growth,
    )
    alarm = wall is not None and (_ALARM_HANDLER_KEY in item.stash or _alarm_available())
    # A phase run outside the test's protocol installs the handler itself.
    own_handler = alarm and _ALARM_HANDLER_KEY not in item.stash
    previous = None
    if own_handler:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
    outer_alarm_s = 0.0
    if wall is not None and alarm:
        outer_alarm_s = signal.setitimer(signal.ITIMER_REAL, wall + _SIGNAL_GRACE_S)[0]
    started = time.monotonic()
    try:
        yield
    finally:
        if wall is not None and alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if own_handler:
            signal.signal(signal.SIGALRM, previous)
        _open_phases -= 1
        runaway.budget = Budget() if outer is None else outer
        if outer_alarm_s > 0:
            # The outer phase's alarm, less the time this one took (at least
            # a tick, so that an outer budget already spent still fires).
            left = outer_alarm_s - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    with _phase(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    with _phase(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    with _phase(item):
        return (yield)


# ----------------------------------------------------------------- fail-fast


def _configured_max_runaways(config: pytest.Config) -> int:
    limit = config.getoption("dsh_max_runaways")
    if limit is None:
        text = str(config.getini("dsh_max_runaways")).strip()
        try:
            limit = int(text) if text else DEFAULT_MAX_RUNAWAYS
        except ValueError:
            raise pytest.UsageError(f"dsh_max_runaways: {text!r} is not a number") from None
    if limit < 0:
        raise pytest.UsageError("--dsh-max-runaways cannot be negative (0: never stop)")
    return int(limit)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if call.excinfo is not None and call.excinfo.errisinstance(RunawayError):
        # A plain attribute: pytest-xdist carries it to the controller.
        report.dsh_runaway = True  # type: ignore[attr-defined]
    return report


#: The workerinput key naming the file where a parallel run's workers count runaways.
_SHARED_KEY: Final = "dsh_runaway_file"


class RunawayStop:
    """Counts the tests that ran away and stops the run at the limit.

    In one process it sets ``session.shouldfail`` (pytest stops as ``-x``
    does: exit status 1, not "interrupted"). Under pytest-xdist each worker
    appends its runaways to one file and stops once the file holds the limit;
    the controller counts the reports, stops scheduling and turns xdist's
    interruption back into a failure."""

    def __init__(self, config: pytest.Config, limit: int) -> None:
        self.limit = limit
        self.ids: list[str] = []
        self.reason: str | None = None
        #: The tests that ran away, as counted when the run was stopped.
        self.stopped: tuple[str, ...] | None = None
        self._session: pytest.Session | None = None
        self._worker = parallel.is_worker(config)
        workerinput: dict[str, Any] = getattr(config, "workerinput", {})
        shared = workerinput.get(_SHARED_KEY)
        self._shared: Path | None = Path(shared) if shared else None
        self._owned: Path | None = None
        #: The shared file's size when this worker last read it.
        self._shared_size = -1
        if not self._worker and parallel.runs_workers(config):
            handle, name = tempfile.mkstemp(prefix="dsh-runaways-", suffix=".txt")
            os.close(handle)
            self._shared = self._owned = Path(name)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        if self._shared is not None:
            node.workerinput[_SHARED_KEY] = str(self._shared)

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self._session = session

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not getattr(report, "dsh_runaway", False):
            return
        test_id = suite_test_id(report.nodeid)
        if test_id in self.ids:
            return
        self.ids.append(test_id)
        if self._worker:
            if self._shared is not None:
                with self._shared.open("a", encoding="utf-8") as shared:
                    shared.write(test_id + "\n")
            return
        if len(self.ids) >= self.limit:
            self._stop(self.ids)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, object]:
        result = yield
        if self._worker and self._shared is not None:
            # Workers only append to the file: read it again only once it grew
            # (a stat after every test instead of opening and reading it).
            size = os.stat(self._shared).st_size
            if size != self._shared_size:
                self._shared_size = size
                counted = self._shared.read_text("utf-8").split()
                if len(counted) >= self.limit:
                    self._stop(counted)
        return result

    def _stop(self, ids: list[str]) -> None:
        if self.reason is not None or self._session is None:
            return
        self.reason = f"stopped after {len(ids)} runaways: {', '.join(ids)}"
        self.stopped = tuple(ids)
        self._session.shouldfail = self.reason
        dsession = self._session.config.pluginmanager.getplugin("dsession")
        if dsession is not None:  # the xdist controller: schedule nothing more
            dsession.shouldstop = self.reason

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        try:
            return (yield)
        except KeyboardInterrupt:
            # xdist stops its loop by raising its Interrupted: when the stop
            # was ours it is a failure (exit status 1), not an interruption.
            if self.reason is None or parallel.is_worker(session.config):
                raise
            raise session.Failed(self.reason) from None

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        # A run against an implementation says it beside its verdict (the
        # report's stop line); this line is for runs without one.
        if self.reason is not None and not terminalreporter.config.pluginmanager.has_plugin(
            "dsh-report"
        ):
            terminalreporter.line(
                f"dsh: {self.reason} (--dsh-max-runaways {self.limit}); the tests after "
                "them were not run and count as not run, never passed",
                red=True,
                bold=True,
            )

    def pytest_unconfigure(self) -> None:
        if self._owned is not None:
            self._owned.unlink(missing_ok=True)


def early_stop(config: pytest.Config) -> EarlyStop | None:
    """What the report says when --dsh-max-runaways stopped this run; ``None``
    when it did not (or the limit is 0)."""
    stop = config.pluginmanager.getplugin("dsh-runaway-stop")
    if not isinstance(stop, RunawayStop) or stop.stopped is None:
        return None
    return EarlyStop(limit=stop.limit, tests=stop.stopped)

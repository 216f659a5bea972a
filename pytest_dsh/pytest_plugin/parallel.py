"""Conformance runs spread over several processes with pytest-xdist (``-n N``).

Under xdist the controller process never collects: its workers do, and run the
tests between them. The verdict and the reports are still made once, on the
controller, from the same rows a serial run makes (docs/parallel-runs.md):

* every worker describes the tests it collected as a serial run does
  (:func:`pytest_dsh.pytest_plugin.suite_items.describe_item`) and hands the descriptions
  back in ``workeroutput`` when it finishes; every worker collects the whole
  selection, so one finished worker is enough;
* xdist forwards every phase's report to the controller, which keeps them and,
  once the workers are down, folds them into the described rows in the order
  they came; a test whose worker crashed gets a failed report from xdist;
* a collection error stops the run before any test is handed out, as a serial
  run stops there (exit status 2, the collected tests "not run");
* what a run picks once (the Hypothesis seed) is picked by the controller and
  handed to each worker in ``workerinput`` (:func:`inherited`);
* a usage error found while a worker collects (an expected failure that names
  no test, a test that needs an implementation when none is chosen) is the
  controller's usage error, with the same message, as in a serial run.

``--dist each`` (every test on every worker) is a usage error. The xdist hooks
here are optional ones: without pytest-xdist (``-p no:xdist``) nothing calls them.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Mapping, Sequence
from typing import Any, Final, final

import pytest

from pytest_dsh.pytest_plugin.reporting import ReportCollector, TestResult
from pytest_dsh.pytest_plugin.suite_items import rerun_command

__all__ = [
    "HANDED_DOWN",
    "ControllerRows",
    "check_distribution",
    "hand_back",
    "inherited",
    "is_worker",
    "runs_workers",
]

#: What the controller hands every worker (``workerinput["dsh"]``), set by the plugin.
HANDED_DOWN = pytest.StashKey[dict[str, Any]]()
_INPUT_KEY: Final = "dsh"
#: The descriptions a worker hands back (``workeroutput["dsh_tests"]``).
_OUTPUT_KEY: Final = "dsh_tests"
#: A usage error a worker met while collecting (``workeroutput["dsh_usage_error"]``).
_USAGE_ERROR_KEY: Final = "dsh_usage_error"


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is a pytest-xdist worker."""
    return hasattr(config, "workerinput")


def runs_workers(config: pytest.Config) -> bool:
    """Whether this process is a pytest-xdist controller: it hands the tests
    to workers and collects nothing itself."""
    if is_worker(config) or config.option.collectonly:
        return False
    return str(getattr(config.option, "dist", "no")) != "no"


def check_distribution(config: pytest.Config) -> None:
    """Refuse ``--dist each``: every worker would run every test, and one row
    would fold several runs into one verdict."""
    if runs_workers(config) and str(getattr(config.option, "dist", "")) == "each":
        raise pytest.UsageError(
            "--dist each runs every test on every worker: a conformance run needs each "
            "test run once (use -n N, or --dist load, loadscope, loadfile or worksteal)"
        )


def inherited(config: pytest.Config) -> Mapping[str, Any] | None:
    """On a worker, what the controller handed down; ``None`` elsewhere."""
    workerinput = getattr(config, "workerinput", None)
    if not isinstance(workerinput, Mapping):
        return None
    handed = workerinput.get(_INPUT_KEY)
    return handed if isinstance(handed, Mapping) else None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """A worker is being started: give it what the run picked once."""
    handed = node.config.stash.get(HANDED_DOWN, None)
    if handed is not None:
        node.workerinput[_INPUT_KEY] = dict(handed)


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, object, object]:
    try:
        return (yield)
    except pytest.UsageError as exc:
        # xdist would only see a worker that stopped; the controller raises it again.
        workeroutput = getattr(session.config, "workeroutput", None)
        if isinstance(workeroutput, dict):
            workeroutput[_USAGE_ERROR_KEY] = str(exc)
        raise


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    workeroutput = getattr(node, "workeroutput", None)
    if isinstance(workeroutput, Mapping) and workeroutput.get(_USAGE_ERROR_KEY):
        raise pytest.UsageError(str(workeroutput[_USAGE_ERROR_KEY]))


def hand_back(config: pytest.Config, results: Iterable[TestResult]) -> None:
    """On a worker: the descriptions of the tests it collected, for the controller."""
    workeroutput = getattr(config, "workeroutput", None)
    if isinstance(workeroutput, dict):
        workeroutput[_OUTPUT_KEY] = [result.description() for result in results]


@final
class ControllerRows:
    """Registered on a controller: turns the workers' descriptions and the
    reports they forward into the collector's rows before it gives the verdict."""

    def __init__(
        self, config: pytest.Config, collector: ReportCollector, rerun_args: Sequence[str]
    ) -> None:
        self._config = config
        self._collector = collector
        self._rerun_args = list(rerun_args)
        self._described: dict[str, Mapping[str, Any]] = {}
        self._reports: dict[str, list[pytest.TestReport]] = {}
        self._collection_errors = 0

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        workeroutput = getattr(node, "workeroutput", None)
        if not isinstance(workeroutput, Mapping):
            return  # the worker died: another one describes the same tests
        for data in workeroutput.get(_OUTPUT_KEY, ()):
            self._described.setdefault(str(data["nodeid"]), data)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._reports.setdefault(report.nodeid, []).append(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if not report.failed or self._config.option.continue_on_collection_errors:
            return
        # A serial run stops after collecting when a module failed to import;
        # stop handing out tests (xdist would run the others) and say why as it does.
        self._collection_errors += 1
        dsession = self._config.pluginmanager.getplugin("dsession")
        if dsession is not None:
            count = self._collection_errors
            dsession.shouldstop = f"{count} error{'s' if count > 1 else ''} during collection"

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        for nodeid in [*self._described, *(n for n in self._reports if n not in self._described)]:
            reports = self._reports.get(nodeid, [])
            result = self._row(nodeid, reports)
            for report in reports:
                result.record(report)
            self._collector.add(result)

    def _row(self, nodeid: str, reports: Sequence[pytest.TestReport]) -> TestResult:
        data = self._described.get(nodeid)
        if data is not None:
            return TestResult.described(data)
        # No worker finished to describe it (every one died): what its reports say.
        for report in reports:
            result = _from_properties(report, self._config, self._rerun_args)
            if result is not None:
                return result
        return TestResult(id=nodeid, nodeid=nodeid, plugin="general", level="readme")


def _from_properties(
    report: pytest.TestReport, config: pytest.Config, rerun_args: Sequence[str]
) -> TestResult | None:
    properties = {str(name): str(value) for name, value in report.user_properties}
    test_id = properties.get("test_id")
    if test_id is None:
        return None
    path = config.rootpath / report.location[0]
    return TestResult(
        id=test_id,
        nodeid=report.nodeid,
        plugin=properties.get("plugin", "general"),
        level=properties.get("level", "readme"),
        sentences=tuple(properties.get("sentences", "").split()),
        pinned_details=tuple(properties.get("pinned_details", "").split()),
        rerun=rerun_command(
            path, report.nodeid, test_id, config.invocation_params.dir, rerun_args
        ),
    )


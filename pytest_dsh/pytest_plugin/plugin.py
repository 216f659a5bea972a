"""The pytest plugin (entry point ``pytest11: dsh``).

Options (each with an ini twin where it makes sense):

``--dsh-impl NAME`` / ini ``dsh_impl``
    The implementation under test: an entry-point name of group ``dsh.impl``
    (``reference`` ships with the kit) or ``package.module:attribute``. It is
    checked before anything runs; a problem is one usage error.
``--dsh-level {readme,compat,all}`` / ini ``dsh_level``
    Requirement levels to run: ``readme`` tests check README sentences,
    ``compat`` tests pin details the README leaves open (default ``all``).
``--dsh-expectations PATH`` / ini ``dsh_expectations``
    Known failures in the ``dsh-expectations/1`` format
    (:mod:`pytest_dsh.expectations`), added to the implementation's own.
``--dsh-report PATH`` / ini ``dsh_report``
    Write the conformance report: ``PATH.html``, ``PATH.json`` or ``PATH.md``
    in that format, any other path as a folder with all three.
``--dsh-list-impls``
    Print the installed implementations and exit.
``--dsh-dst-table {sample,full}``
    Replay a deterministic sample of the DST regression tables, or all of them.
``--dsh-update-golden``
    Regenerate golden fixture files instead of failing on drift (never in CI).
``--dsh-explore`` / ini ``dsh_explore``, ``--dsh-explore-examples N`` / ini ``dsh_explore_examples``
    Property tests with a random seed, or more examples
    (:mod:`pytest_dsh.pytest_plugin.exploration`); by default they run the
    kit's fixed example set (:mod:`pytest_dsh.pytest_plugin.hypothesis_scope`).

With an implementation under test, every run ends with a verdict
(:mod:`pytest_dsh.pytest_plugin.reporting.verdicts`) that sets the exit status: 0 conforms
(with or without known failures), 1 does not conform, 6 not assessed. Under
pytest-xdist (``-n N``) the controller gives the same verdict and writes the
same reports from its workers' results (:mod:`pytest_dsh.pytest_plugin.parallel`).

Fixtures: :func:`dsh_implementation`, :func:`dsh_host`, :func:`dsh_host_factory`.
No fixture is autouse: tests that do not ask for a host get none.
Markers: ``dsh_requires(*requirements)`` names what a test needs, from the one
registry :mod:`pytest_dsh.driving.requirements`: it skips, with the reason, a
test whose capability the implementation does not declare (a suite test also
needs the role of its folder) or whose ``dsh_host`` lacks a seam, and makes a
failure a host limit explains that limit's (:mod:`pytest_dsh.pytest_plugin.roles`);
``spec(*sentence_ids)`` and
``compat(*pinned_detail_ids)`` say what a test checks.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field

import pytest

from pytest_dsh import __version__
from pytest_dsh.contract.tzdb import TZDATA_VERSION, iana_release
from pytest_dsh.driving.api import HostDriver
from pytest_dsh.errors import DshKitError
from pytest_dsh.expectations import Expectations, load_expectations_file, unknown_test_ids
from pytest_dsh.implementations import (
    Implementation,
    available_implementations,
    conformance_root,
    resolve_implementation,
)
from pytest_dsh.npm.host_limits import host_limits, limit_for
from pytest_dsh.pytest_plugin import (
    budget,
    expected_failure_repr,
    exploration,
    host_limit_symptoms,
    npm_options,
    parallel,
    roles,
)
from pytest_dsh.pytest_plugin.fixture_options import dsh_update_golden  # noqa: F401  (a fixture)
from pytest_dsh.pytest_plugin.hypothesis_scope import SuiteHypothesis, property_test
from pytest_dsh.pytest_plugin.options import configured
from pytest_dsh.pytest_plugin.probes import register as register_probe_marker
from pytest_dsh.pytest_plugin.reporting import ReportCollector, RunInfo, TestResult
from pytest_dsh.pytest_plugin.reporting.readmes import readme_line, readme_versions
from pytest_dsh.pytest_plugin.reporting.report_files import check_report_target
from pytest_dsh.pytest_plugin.rerun_options import rerun_options
from pytest_dsh.pytest_plugin.suite_items import LEVELS, describe_item, in_suite

__all__ = ["DEFAULT_START_MS", "DshRun", "resolve_configured_implementation"]

# The kit's options (one table), the per-test budget's hooks, the pytest-xdist
# glue and scheduler, a missing requirement as a skip, the requirement named in failures
# that are not assertions, and the collected suite kept out of the GC's way.
pytest_plugins = [
    "pytest_dsh.pytest_plugin.options",
    "pytest_dsh.pytest_plugin.rerun_options",
    "pytest_dsh.pytest_plugin.budget",
    "pytest_dsh.pytest_plugin.host_limit_symptoms",
    "pytest_dsh.pytest_plugin.requirement_skips",
    "pytest_dsh.pytest_plugin.parallel",
    "pytest_dsh.pytest_plugin.replay_groups",
    "pytest_dsh.pytest_plugin.reporting.raised",
    "pytest_dsh.pytest_plugin.gc_baseline",
    "pytest_dsh.pytest_plugin.stable_set_diffs",
]

#: Wall clock at which hosts start unless a test asks otherwise:
#: 2026-01-01T00:00:00.000Z.
DEFAULT_START_MS = 1_767_225_600_000

_HOST_FIXTURES = frozenset({"dsh_implementation", "dsh_host", "dsh_host_factory"})


@dataclass
class DshRun:
    """Everything this run decided at configure time."""

    spec: str | None
    implementation: Implementation | None
    levels: tuple[str, ...]
    hypothesis: SuiteHypothesis
    explore: bool = False
    expectations: dict[str, str] = field(default_factory=dict)
    expectations_file: Expectations | None = None
    collector: ReportCollector | None = None
    described: dict[str, TestResult] = field(default_factory=dict)


_RUN_KEY = pytest.StashKey[DshRun]()


def pytest_cmdline_main(config: pytest.Config) -> int | None:
    if config.getoption("dsh_list_impls"):
        found = available_implementations()
        print("installed DSH implementations (entry-point group dsh.impl):")
        for name, target in found.items():
            print(f"  {name:<16} {target}")
        if not found:
            print("  (none)")
        return 0
    return None


def _configured_path(config: pytest.Config, name: str) -> pathlib.Path | None:
    """A path option (relative to the invocation folder) or its ini twin
    (relative to the ini file's folder)."""
    option = config.getoption(name)
    if option is not None:
        return config.invocation_params.dir / str(option)
    ini = str(config.getini(name) or "").strip()
    if not ini:
        return None
    base = config.inipath.parent if config.inipath else config.rootpath
    return base / ini


def resolve_configured_implementation(config: pytest.Config) -> tuple[str, Implementation] | None:
    """The implementation this run tests (``--dsh-impl`` or ``dsh_impl``), or
    ``None``. Every way of naming one goes through here; any problem, an
    exception raised by the implementation's own module included, is one
    :class:`pytest.UsageError` saying what to fix."""
    spec = configured(config, "dsh_impl")
    if spec is None:
        return None
    try:
        implementation = npm_options.implementation_for(config, spec) or resolve_implementation(
            spec
        )
        # npm packages are installed (once, cached) before anything runs, on
        # the --dsh-host profile when one is given.
        implementation = npm_options.prepare(config, implementation)
        # An implementation that needs something outside Python (a Node
        # bridge, a binary) may say up front that it is missing.
        check_ready = getattr(implementation, "check_ready", None)
        if callable(check_ready):
            check_ready()
    except DshKitError as exc:
        raise pytest.UsageError(f"--dsh-impl: {exc}") from exc
    return spec, implementation


def _load_expectations(config: pytest.Config, run: DshRun) -> None:
    own = getattr(run.implementation, "expected_failures", None) or {}
    run.expectations = dict(own)
    path = _configured_path(config, "dsh_expectations")
    if path is None:
        return
    try:
        run.expectations_file = load_expectations_file(path)
    except DshKitError as exc:
        raise pytest.UsageError(f"--dsh-expectations: {exc}") from exc
    run.expectations.update(run.expectations_file.reasons())


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "dsh_requires(*requirements): what this test needs (pytest_dsh/driving/requirements.py): "
        "skip unless the implementation declares every capability and dsh_host has every "
        "seam; a host behaviour a DSH host profile takes away makes a failure it explains "
        "that host limit",
    )
    config.addinivalue_line(
        "markers", "spec(*sentence_ids): README sentences this test checks (traceability)"
    )
    config.addinivalue_line(
        "markers",
        "compat(*pinned_detail_ids): this test pins details the README leaves open, "
        "following the official build (requirement level compat)",
    )
    register_probe_marker(config)
    resolved = resolve_configured_implementation(config)
    level = configured(config, "dsh_level") or "all"
    if level not in ("all", *LEVELS):
        raise pytest.UsageError(f"dsh_level: {level!r} is not one of readme, compat, all")
    run = DshRun(
        spec=resolved[0] if resolved else None,
        implementation=resolved[1] if resolved else None,
        levels=LEVELS if level == "all" else (level,),
        hypothesis=_hypothesis(config),
        explore=exploration.explore_requested(config),
    )
    config.stash[_RUN_KEY] = run
    profile = getattr(run.implementation, "host_profile", None)  # npm implementations
    config.stash[host_limit_symptoms.HOST_VERSION] = profile.version if profile else None
    config.stash[parallel.HANDED_DOWN] = {
        "hypothesis_seed": run.hypothesis.seed,
        "hypothesis_chosen": run.hypothesis.chosen,
        # Workers load the npm install the controller resolved, never their own.
        **npm_options.handed_down(run.implementation),
    }
    if run.implementation is None:
        return
    _load_expectations(config, run)
    if parallel.is_worker(config):
        return  # the controller gives the verdict and writes the reports
    report = _configured_path(config, "dsh_report")
    if report is not None and not config.option.collectonly:
        # Before anything runs: not a traceback after the whole suite.
        try:
            check_report_target(report)
        except DshKitError as exc:
            raise pytest.UsageError(f"--dsh-report: {exc}") from exc
    run.collector = ReportCollector(lambda: _run_info(config, run), report)
    config.pluginmanager.register(run.collector, "dsh-report")
    if run.explore:
        config.pluginmanager.register(
            exploration.Exploration(config, run.hypothesis, _rerun_args(config, run)),
            "dsh-exploration",
        )
    if parallel.runs_workers(config):
        parallel.check_distribution(config)
        config.pluginmanager.register(
            parallel.ControllerRows(config, run.collector, _rerun_args(config, run)),
            "dsh-parallel-rows",
        )


def _hypothesis(config: pytest.Config) -> SuiteHypothesis:
    """The suite's Hypothesis settings; a parallel run's workers take the seed
    their controller chose, so the header's seed is the one every test used."""
    handed = parallel.inherited(config)
    chosen = SuiteHypothesis.choose(
        user_profile=config.getoption("hypothesis_profile", None),
        user_seed=config.getoption("hypothesis_seed", None),
        # A worker never draws a seed of its own: it is handed the controller's.
        explore=handed is None and exploration.explore_requested(config),
        examples=exploration.examples_requested(config),
    )
    if handed is None:
        return chosen
    seed = handed.get("hypothesis_seed")
    return chosen.inheriting(
        seed if isinstance(seed, int | str) else None, str(handed.get("hypothesis_chosen"))
    )


def _rerun_args(config: pytest.Config, run: DshRun) -> list[str]:
    # Every option the run was given (pytest_dsh.pytest_plugin.rerun_options), so the
    # command reproduces the run, not only the kit's own options.
    args = [f"--dsh-impl={run.spec}", *rerun_options(config)]
    given = {arg.partition("=")[0] for arg in args}
    if run.expectations_file is not None and "--dsh-expectations" not in given:
        args.append(f"--dsh-expectations={run.expectations_file.source}")
    # The seed the test ran with (the kit's, the user's or an exploring run's)
    # and its example count, so the command runs the same examples.
    args.extend(run.hypothesis.replay_args())
    return args


def _run_info(config: pytest.Config, run: DshRun) -> RunInfo:
    implementation = run.implementation
    assert implementation is not None
    # An npm implementation's DSH host, named in the reports as in the header.
    host = getattr(implementation, "host_profile", None)
    peer_notes = getattr(implementation, "peer_notes", None)
    return RunInfo(
        implementation=implementation.name,
        version=implementation.version,
        spec=run.spec or "",
        capabilities=tuple(sorted(implementation.capabilities)),
        kit_version=__version__,
        tzdata=f"{TZDATA_VERSION} (IANA {iana_release()})",
        hypothesis=run.hypothesis.describe(),
        seed=run.hypothesis.seed,
        seed_chosen=run.hypothesis.chosen,
        hypothesis_version=run.hypothesis.hypothesis_version(),
        examples=run.hypothesis.examples,
        levels=run.levels,
        expectations=run.expectations_file.source if run.expectations_file else None,
        known_failures=len(run.expectations),
        command=" ".join(["pytest", *config.invocation_params.args]),
        stopped=budget.early_stop(config),
        host=host.describe() if host is not None else None,
        host_version=host.version if host is not None else None,
        host_notes=tuple(peer_notes()) if callable(peer_notes) else (),
    )


def pytest_report_header(config: pytest.Config) -> list[str]:
    run = config.stash.get(_RUN_KEY, None)
    if run is None:
        return []
    implementation = run.implementation
    impl_text = (
        f"{implementation.name} {implementation.version}" if implementation else "none selected"
    )
    host = getattr(implementation, "host_profile", None)
    if host is not None:  # an npm implementation names the DSH host it runs on
        impl_text += f" on {host.describe()}"

    lines = [
        f"dsh: implementation {impl_text}; pytest-dsh {__version__}",
        f"dsh: tzdata {TZDATA_VERSION} (IANA {iana_release()}); {run.hypothesis.describe()}",
    ]
    readmes = readme_line(readme_versions())
    if readmes is not None:  # the README texts the suite checks
        lines.append(f"dsh: {readmes}")
    notes = getattr(implementation, "notes", None)
    if callable(notes):  # e.g. an npm package's companion left out
        lines.extend(f"dsh: {note}" for note in notes())
    if implementation is not None:
        source = run.expectations_file.source if run.expectations_file else "the implementation"
        lines.append(
            f"dsh: levels {', '.join(run.levels)}; {len(run.expectations)} known failures "
            f"(from {source})"
        )
    limits = host_limits(host.version) if host is not None else ()
    if host is not None and limits:
        lines.append(
            f"dsh: {len(limits)} host limits of DSH host {host.version}: "
            "their tests run but are not counted (pytest_dsh/npm/host_limits.json)"
        )
    return lines


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, object, object]:
    # Test modules of the suite are imported here, and @given reads the
    # default Hypothesis settings at import: load the suite's profile only then.
    run = collector.config.stash.get(_RUN_KEY, None)
    if run is None or not isinstance(collector, pytest.Module) or not in_suite(collector.path):
        return (yield)
    with run.hypothesis.applied():
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    run = item.config.stash.get(_RUN_KEY, None)
    if run is None or not in_suite(item.path):
        return (yield)
    with run.hypothesis.applied(getattr(item, "obj", None)):
        return (yield)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    run = config.stash[_RUN_KEY]
    if run.implementation is None:
        needs_impl = [i for i in items if _HOST_FIXTURES & set(getattr(i, "fixturenames", ()))]
        if needs_impl:
            raise pytest.UsageError(
                f"{len(needs_impl)} collected tests need an implementation under test; "
                f"choose one with --dsh-impl=NAME (installed: "
                f"{', '.join(available_implementations()) or 'none'})"
            )
        return
    rerun_args = _rerun_args(config, run)
    described = {item.nodeid: describe_item(item, rerun_args) for item in items}
    # Checked against everything collected, before -k or a level deselects.
    problems = unknown_test_ids(
        run.expectations, {d.id for d in described.values()}, conformance_root()
    )
    if problems:
        raise pytest.UsageError(
            "expected failures that name no test of the suite (keys are test ids relative "
            "to the dsh_conformance package):\n" + "\n".join(f"  - {p}" for p in problems)
        )
    kept: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    host_version = config.stash[host_limit_symptoms.HOST_VERSION]
    for item in items:
        info = described[item.nodeid]
        reason = run.expectations.get(info.id)
        limit = limit_for(host_version, info.id) if host_version is not None else None
        if limit is not None:
            # The host decides this test, not the plugin: it still runs, and
            # a pass is reported (host limit lifted) without failing the run.
            info.host_limit = limit.reason(str(host_version))
            item.add_marker(pytest.mark.xfail(reason=info.host_limit, strict=False))
            expected_failure_repr.format_natively(item)
        elif reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
            expected_failure_repr.format_natively(item)
        item.user_properties.extend(
            [
                ("test_id", info.id),
                ("level", info.level),
                ("plugin", info.plugin),
                ("sentences", " ".join(info.sentences)),
                ("pinned_details", " ".join(info.pinned_details)),
            ]
        )
        if run.explore and property_test(getattr(item, "obj", None)) is not None:
            item.user_properties.append((exploration.PROPERTY, "yes"))
        (kept if info.level in run.levels else deselected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept
    run.described = described


def pytest_collection_finish(session: pytest.Session) -> None:
    run = session.config.stash.get(_RUN_KEY, None)
    if run is None or run.implementation is None:
        return
    results = [run.described[i.nodeid] for i in session.items if i.nodeid in run.described]
    if parallel.is_worker(session.config):
        parallel.hand_back(session.config, results)
    elif run.collector is not None:
        for result in results:
            run.collector.add(result)


def pytest_runtest_setup(item: pytest.Item) -> None:
    run = item.config.stash.get(_RUN_KEY, None)
    implementation = run.implementation if run else None
    if implementation is None:
        return
    # The markers and the suite folder's role (pytest_dsh.pytest_plugin.roles).
    missing = roles.missing_capabilities(item, implementation.capabilities)
    if missing:
        pytest.skip(f"implementation {implementation.name!r} does not declare {', '.join(missing)}")


@pytest.fixture(scope="session")
def dsh_implementation(request: pytest.FixtureRequest) -> Implementation:
    """The implementation under test, as chosen with ``--dsh-impl``.

    Contract: the object has ``name``, ``version``, ``capabilities`` and
    ``open_host(start_ms=...)`` returning a fresh :class:`HostDriver`.
    """
    run = request.config.stash.get(_RUN_KEY, None)
    if run is None or run.implementation is None:  # pragma: no cover - guarded at collection
        raise pytest.UsageError("no implementation selected; use --dsh-impl=NAME")
    return run.implementation


@pytest.fixture
def dsh_host_factory(
    dsh_implementation: Implementation,
) -> Iterator[Callable[..., HostDriver]]:
    """Open fresh hosts: ``dsh_host_factory(start_ms=..., withhold={...})``
    (``withhold`` names services the host must not offer). Every host opened here
    is closed after the test."""
    opened: list[HostDriver] = []

    def open_host(
        *, start_ms: int = DEFAULT_START_MS, withhold: frozenset[str] = frozenset()
    ) -> HostDriver:
        host = dsh_implementation.open_host(start_ms=start_ms, withhold=frozenset(withhold))
        opened.append(host)
        return host

    yield open_host
    for host in reversed(opened):
        host.close()


@pytest.fixture
def dsh_host(dsh_host_factory: Callable[..., HostDriver]) -> HostDriver:
    """A fresh host (new plugin manager, empty store, wall clock at
    2026-01-01T00:00:00Z) with the implementation's plugins available but not
    loaded: call ``dsh_host.load_plugin("schedule")``."""
    return dsh_host_factory()

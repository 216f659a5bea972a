"""The pytest plugin (entry point ``pytest11: dsh``).

Options (each with an ini twin where it makes sense):

``--dsh-impl NAME`` / ini ``dsh_impl``
    The implementation under test: an entry-point name of group ``dsh.impl``
    (``reference`` ships with the kit) or ``package.module:attribute``.
``--dsh-list-impls``
    Print the installed implementations and exit.
``--dsh-report PATH``
    Also write a Markdown conformance report to ``PATH``.
``--dsh-dst-table {sample,full}``
    Replay a deterministic sample of the DST regression tables, or all of them.
``--dsh-update-golden``
    Regenerate golden fixture files instead of failing on drift (never in CI).

Fixtures: :func:`dsh_implementation`, :func:`dsh_host`, :func:`dsh_host_factory`.
No fixture is autouse: tests that do not ask for a host get none.
Markers: ``dsh_requires(*capabilities)`` skips, with the reason, a test whose
capability the implementation does not declare.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable, Iterator

import pytest

from pytest_dsh import __version__, fixture_options
from pytest_dsh.driver import HostDriver
from pytest_dsh.errors import ImplementationError
from pytest_dsh.fixture_options import dsh_update_golden  # noqa: F401  (a fixture)
from pytest_dsh.implementations import (
    Implementation,
    available_implementations,
    resolve_implementation,
    suite_test_id,
)
from pytest_dsh.npm import options as npm_options
from pytest_dsh.report import ConformanceReport
from pytest_dsh.tzdb import TZDATA_VERSION, iana_release

__all__ = ["DEFAULT_START_MS"]

pytest_plugins = ["pytest_dsh.budget"]  # the per-test budget: options and hooks

#: Wall clock at which hosts start unless a test asks otherwise:
#: 2026-01-01T00:00:00.000Z.
DEFAULT_START_MS = 1_767_225_600_000

_IMPL_KEY = pytest.StashKey[Implementation | None]()
_HOST_FIXTURES = frozenset({"dsh_implementation", "dsh_host", "dsh_host_factory"})


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dsh", "DSH plugin conformance (pytest-dsh)")
    group.addoption(
        "--dsh-impl",
        dest="dsh_impl",
        default=None,
        metavar="NAME",
        help="implementation under test: a dsh.impl entry-point name or package.module:attr "
        "(ini: dsh_impl)",
    )
    group.addoption(
        "--dsh-list-impls",
        action="store_true",
        dest="dsh_list_impls",
        default=False,
        help="list the installed DSH implementations and exit",
    )
    group.addoption(
        "--dsh-report",
        dest="dsh_report",
        default=None,
        metavar="PATH",
        help="write a Markdown conformance report (per README section) to PATH",
    )
    group.addoption(
        "--dsh-dst-table",
        dest="dsh_dst_table",
        choices=("sample", "full"),
        default="sample",
        help="replay a deterministic sample of the DST regression tables (default) "
        "or the full table",
    )
    fixture_options.pytest_addoption(parser)
    npm_options.pytest_addoption(parser)
    parser.addini("dsh_impl", "default implementation under test (see --dsh-impl)", default="")


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


def _configured_spec(config: pytest.Config) -> str | None:
    option = config.getoption("dsh_impl")
    if option is not None:
        return str(option)
    ini = str(config.getini("dsh_impl") or "").strip()
    return ini or None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "dsh_requires(*capabilities): skip unless the implementation under test declares "
        "every capability",
    )
    config.addinivalue_line(
        "markers", "spec(*sentence_ids): README sentences this test checks (traceability)"
    )
    spec = _configured_spec(config)
    implementation: Implementation | None = None
    if spec is not None:
        try:
            implementation = npm_options.implementation_for(config, spec) or resolve_implementation(
                spec
            )
            npm_options.prepare(config, implementation)
        except ImplementationError as exc:
            raise pytest.UsageError(f"--dsh-impl: {exc}") from exc
    config.stash[_IMPL_KEY] = implementation
    _configure_hypothesis(config)
    report_path = config.getoption("dsh_report")
    if report_path:
        header = pytest_report_header(config)
        config.pluginmanager.register(
            ConformanceReport(pathlib.Path(report_path), header), "dsh-report"
        )


def _configure_hypothesis(config: pytest.Config) -> None:
    from hypothesis import HealthCheck, settings

    # Virtual time makes test speed irrelevant to correctness; a slow CI core
    # must not turn into flaky deadline errors.
    settings.register_profile("dsh", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile(
        "dsh-ci",
        parent=settings.get_profile("dsh"),
        derandomize=True,
        print_blob=True,
    )
    if config.getoption("hypothesis_profile", None) is None:
        settings.load_profile("dsh-ci" if os.environ.get("CI") else "dsh")


def pytest_report_header(config: pytest.Config) -> list[str]:
    from hypothesis import settings

    implementation = config.stash.get(_IMPL_KEY, None)
    impl_text = (
        f"{implementation.name} {implementation.version}" if implementation else "none selected"
    )
    seed = config.getoption("hypothesis_seed", None)
    if seed is not None:
        seed_text = f"seed {seed}"
    elif settings.default is not None and settings.default.derandomize:
        seed_text = "derandomized (seed derived from each test)"
    else:
        seed_text = "random per run (reproduce with --hypothesis-seed)"
    return [
        f"dsh: implementation {impl_text}; pytest-dsh {__version__}",
        f"dsh: tzdata {TZDATA_VERSION} (IANA {iana_release()}); "
        f"hypothesis profile {settings.get_current_profile_name()}, {seed_text}",
    ]


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    needs_impl = [item for item in items if _HOST_FIXTURES & set(getattr(item, "fixturenames", ()))]
    if needs_impl and config.stash.get(_IMPL_KEY, None) is None:
        raise pytest.UsageError(
            f"{len(needs_impl)} collected tests need an implementation under test; "
            f"choose one with --dsh-impl=NAME (installed: "
            f"{', '.join(available_implementations()) or 'none'})"
        )
    implementation = config.stash.get(_IMPL_KEY, None)
    expected = getattr(implementation, "expected_failures", None) or {}
    for item in items:
        reason = expected.get(suite_test_id(item.nodeid))
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))


def pytest_runtest_setup(item: pytest.Item) -> None:
    required: set[str] = set()
    for mark in item.iter_markers("dsh_requires"):
        required.update(mark.args)
    if not required:
        return
    implementation = item.config.stash.get(_IMPL_KEY, None)
    if implementation is None:
        return
    missing = sorted(required - set(implementation.capabilities))
    if missing:
        pytest.skip(f"implementation {implementation.name!r} does not declare {', '.join(missing)}")


@pytest.fixture(scope="session")
def dsh_implementation(request: pytest.FixtureRequest) -> Implementation:
    """The implementation under test, as chosen with ``--dsh-impl``.

    Contract: the object has ``name``, ``version``, ``capabilities`` and
    ``open_host(start_ms=...)`` returning a fresh :class:`HostDriver`.
    """
    implementation = request.config.stash.get(_IMPL_KEY, None)
    if implementation is None:  # pragma: no cover - guarded at collection time
        raise pytest.UsageError("no implementation selected; use --dsh-impl=NAME")
    return implementation


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

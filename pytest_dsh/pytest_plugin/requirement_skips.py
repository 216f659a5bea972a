"""What a test needs, checked: a missing requirement becomes the test's skip.

Two ways lead here. A test's ``dsh_requires`` markers are read when the tests
are collected (a name that is no requirement of
:mod:`pytest_dsh.driving.requirements` is a usage error, as is a seam named by
a test without ``dsh_host``), and a seam the test's ``dsh_host`` lacks skips it
once its fixtures are set up. And the driver API, which cannot import pytest,
raises :class:`~pytest_dsh.driving.requirements.RequirementMissing` from a
helper such as :func:`pytest_dsh.driving.seams.require_seam`: in every phase
of a test that exception becomes ``pytest.skip`` with its message. The test is
not assessed here, never passed and never failed.
(:class:`~pytest_dsh.driving.requirements.RequirementMissing` is a
:class:`unittest.SkipTest`, which pytest also reports as a skip; turning it
here keeps that true with pytest's unittest plugin disabled.)

Capabilities are checked by the plugin before set-up
(:func:`pytest_dsh.pytest_plugin.roles.missing_capabilities`), host behaviours
after a failure (:mod:`pytest_dsh.pytest_plugin.host_limit_symptoms`).
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

from pytest_dsh.driving.requirements import REQUIREMENTS, RequirementMissing
from pytest_dsh.driving.seams import require_seam
from pytest_dsh.pytest_plugin.roles import named_requirements

__all__: list[str] = []

_HOST_FIXTURE = "dsh_host"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        try:
            for kind in ("capability", "host-behaviour"):
                named_requirements(item, kind)
            seams = named_requirements(item, "seam")
        except ValueError as exc:
            raise pytest.UsageError(f"{item.nodeid}: {exc}") from None
        if seams and _HOST_FIXTURE not in getattr(item, "fixturenames", ()):
            raise pytest.UsageError(
                f"{item.nodeid}: needs the seam {sorted(seams)} but not the {_HOST_FIXTURE} "
                "fixture; a test that opens its own hosts calls "
                "pytest_dsh.driving.seams.require_seam(host, seam)"
            )


def _skip_when_missing() -> Generator[None, None, None]:
    try:
        yield
    except RequirementMissing as missing:
        pytest.skip(str(missing))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    yield from _skip_when_missing()
    seams = named_requirements(item, "seam")
    host = getattr(item, "funcargs", {}).get(_HOST_FIXTURE)
    if seams and host is not None:  # set up: the fixture is there
        try:
            for seam in sorted(seams, key=list(REQUIREMENTS).index):
                require_seam(host, seam)
        except RequirementMissing as missing:
            pytest.skip(str(missing))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from _skip_when_missing())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from _skip_when_missing())

"""A requirement found missing while a test runs becomes that test's skip.

The driver API cannot import pytest (:mod:`pytest_dsh.driving`), so a helper
there that finds what a test needs missing, such as
:func:`pytest_dsh.driving.seams.require_seam`, raises
:class:`~pytest_dsh.driving.requirements.RequirementMissing`. Here, in every
phase of a test, that exception becomes ``pytest.skip`` with its message: the
test is not assessed on this host, never passed and never failed.
(:class:`~pytest_dsh.driving.requirements.RequirementMissing` is a
:class:`unittest.SkipTest`, which pytest also reports as a skip; turning it
here keeps that true with pytest's unittest plugin disabled.)
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

from pytest_dsh.driving.requirements import RequirementMissing

__all__: list[str] = []


def _skip_when_missing() -> Generator[None, None, None]:
    try:
        yield
    except RequirementMissing as missing:
        pytest.skip(str(missing))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from _skip_when_missing())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from _skip_when_missing())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from _skip_when_missing())

"""What the kit's fixture-data option does (``dsh_fixtures``; the option itself is
declared in :mod:`pytest_dsh.pytest_plugin.options`).

``--dsh-update-golden``
    Tests that compare committed generated fixture files (golden logs, the
    corrupt-log corpus) with their generator's output rewrite the files from the
    generator instead of failing on a difference. This is for a developer who
    changed a generator on purpose; review the resulting diff before committing.
    Continuous integration never passes it, so any drift fails there.

Fixture: :func:`dsh_update_golden` (a ``bool``). Outside a test, use
:func:`update_golden_requested` with the pytest config; it is ``False`` when the
option is not registered at all.
"""

from __future__ import annotations

import pytest

__all__ = ["dsh_update_golden", "update_golden_requested"]

_OPTION_DEST = "dsh_update_golden"


def update_golden_requested(config: pytest.Config) -> bool:
    """Whether ``--dsh-update-golden`` was given (``False`` if it is not registered)."""
    return bool(config.getoption(_OPTION_DEST, default=False))


@pytest.fixture
def dsh_update_golden(request: pytest.FixtureRequest) -> bool:
    """``True`` when the run asked to regenerate golden files instead of comparing them."""
    return update_golden_requested(request.config)

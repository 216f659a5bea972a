"""Which capabilities a test needs before it may run.

A test needs every capability its ``dsh_requires`` markers name and, in the
conformance suite, the role of the folder it lives in: everything under
``schedule/`` or ``dst/`` drives the schedule plugin, everything under
``time_context/`` the time-context plugin. Deriving the role from the folder
means a new test of a role cannot forget to say so: with an implementation
that does not provide that role it is skipped with the reason, never failed
and never passed. Companions (``*-invariant``) and ``process-zone`` are
declared with the marker, on the tests that use them.
"""

from __future__ import annotations

from collections.abc import Set
from typing import Final

import pytest

from pytest_dsh.implementations import suite_relative_path

__all__ = ["FOLDER_ROLES", "folder_role", "missing_capabilities", "required_capabilities"]

#: Top-level folder of the conformance suite -> the capability its tests need.
FOLDER_ROLES: Final = {"schedule": "schedule", "dst": "schedule", "time_context": "time-context"}


def folder_role(item: pytest.Item) -> str | None:
    """The role of the suite folder ``item`` lives in, if any."""
    relative = suite_relative_path(item.path)
    if relative is None:
        return None
    return FOLDER_ROLES.get(relative.partition("/")[0])


def required_capabilities(item: pytest.Item) -> frozenset[str]:
    """Every capability ``item`` needs: its markers' and its folder's role."""
    required = {str(arg) for mark in item.iter_markers("dsh_requires") for arg in mark.args}
    role = folder_role(item)
    if role is not None:
        required.add(role)
    return frozenset(required)


def missing_capabilities(item: pytest.Item, declared: Set[str]) -> list[str]:
    """The capabilities ``item`` needs that ``declared`` lacks, sorted."""
    return sorted(required_capabilities(item) - set(declared))

"""What a test needs before it may be assessed: its requirements, by kind.

A test names what it needs with ``@pytest.mark.dsh_requires(*names)``; every
name is a requirement of :mod:`pytest_dsh.driving.requirements`, and its kind
says what becomes of the test where it is missing:

* a *capability* the implementation does not declare: skipped with the reason
  (before set-up);
* a *seam* the test's ``dsh_host`` lacks: skipped with the host's reason (after
  set-up; a test that opens its hosts itself calls
  :func:`pytest_dsh.driving.seams.require_seam` instead);
* a *host behaviour* a limit of the DSH host profile takes away: the test runs,
  and a failure the limit explains is that limit's
  (:mod:`pytest_dsh.pytest_plugin.host_limit_symptoms`).

``@pytest.mark.dsh_needs_host(*names)`` names host behaviours only, as it
always has. A name that is no requirement, or not one of a host behaviour for
``dsh_needs_host``, is a usage error when the tests are collected.

In the conformance suite a test also needs the role of the folder it lives in:
everything under ``schedule/`` or ``dst/`` drives the schedule plugin,
everything under ``time_context/`` the time-context plugin. Deriving the role
from the folder means a new test of a role cannot forget to say so: with an
implementation that does not provide that role it is skipped with the reason,
never failed and never passed. Companions (``*-invariant``) and
``process-zone`` are declared with the marker, on the tests that use them.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Final, get_args

import pytest

from pytest_dsh.driving.requirements import Kind, requirement
from pytest_dsh.implementations import suite_relative_path

__all__ = [
    "FOLDER_ROLES",
    "MARKER",
    "NEEDS_HOST_MARKER",
    "folder_role",
    "missing_capabilities",
    "named_requirements",
    "required_capabilities",
]

#: The one marker a test names what it needs with.
MARKER: Final = "dsh_requires"
#: The older marker for host behaviours, kept: the same as naming them in MARKER.
NEEDS_HOST_MARKER: Final = "dsh_needs_host"

#: Top-level folder of the conformance suite -> the capability its tests need.
FOLDER_ROLES: Final = {"schedule": "schedule", "dst": "schedule", "time_context": "time-context"}


def folder_role(item: pytest.Item) -> str | None:
    """The role of the suite folder ``item`` lives in, if any."""
    relative = suite_relative_path(item.path)
    if relative is None:
        return None
    return FOLDER_ROLES.get(relative.partition("/")[0])


#: An item's requirements by kind, read from its markers once (at collection,
#: where a bad name is a usage error) and asked for again in every phase.
_NEEDS_KEY = pytest.StashKey[Mapping[Kind, frozenset[str]]]()


def named_requirements(item: pytest.Item, kind: Kind) -> frozenset[str]:
    """The requirements of ``kind`` that ``item``'s markers name (``ValueError``
    for a name that is no requirement, or a ``dsh_needs_host`` name that is
    not a host behaviour)."""
    needs = item.stash.get(_NEEDS_KEY, None)
    if needs is None:
        needs = item.stash[_NEEDS_KEY] = _read_needs(item)
    return needs[kind]


def _read_needs(item: pytest.Item) -> Mapping[Kind, frozenset[str]]:
    """One pass over ``item``'s markers: every name checked, sorted by kind."""
    names: dict[Kind, set[str]] = {kind: set() for kind in get_args(Kind)}
    for mark in item.iter_markers(MARKER):
        for arg in mark.args:
            names[requirement(str(arg)).kind].add(str(arg))
    for mark in item.iter_markers(NEEDS_HOST_MARKER):
        for arg in mark.args:
            found = requirement(str(arg))
            if found.kind != "host-behaviour":
                raise ValueError(
                    f"{NEEDS_HOST_MARKER}({str(arg)!r}): {found.name!r} is a {found.kind}, not a "
                    f"host behaviour; name it in {MARKER}(...)"
                )
            names["host-behaviour"].add(found.name)
    return {kind: frozenset(found) for kind, found in names.items()}


def required_capabilities(item: pytest.Item) -> frozenset[str]:
    """Every capability ``item`` needs: its markers' and its folder's role."""
    required = set(named_requirements(item, "capability"))
    role = folder_role(item)
    if role is not None:
        required.add(role)
    return frozenset(required)


def missing_capabilities(item: pytest.Item, declared: Set[str]) -> list[str]:
    """The capabilities ``item`` needs that ``declared`` lacks, sorted."""
    return sorted(required_capabilities(item) - set(declared))

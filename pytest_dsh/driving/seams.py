"""Driver seams a host may lack, and how a test that needs one says so.

Most driver calls exist with the same behaviour on every host. A few cannot:
they are the ``seam`` requirements of :mod:`pytest_dsh.driving.requirements`,
which also says which host lacks which and why.
:meth:`~pytest_dsh.driving.api.HostDriver.supports` answers for a seam named
here, and :func:`require_seam` raises :class:`SeamMissing` with the host's
reason, which the pytest plugin reports as a skip, instead of letting a test
pass without the seam (docs/requirements.md).
"""

from __future__ import annotations

from typing import Literal, Protocol

from pytest_dsh.driving.requirements import HOST_GAPS, RequirementMissing

__all__ = ["SEAMS", "Seam", "SeamMissing", "check_seam", "require_seam"]

#: The seam names: the registry's ``seam`` requirements, in its order, spelt
#: as a Literal for type checkers (tests/meta/test_requirements_registry.py
#: keeps the two equal).
Seam = Literal[
    "per-event-durability", "durable-change-observer", "transaction-queue", "export-shape"
]
SEAMS: tuple[Seam, ...] = (
    "per-event-durability",
    "durable-change-observer",
    "transaction-queue",
    "export-shape",
)

#: Why the fake host has no ``export-shape``: shared by its driver and the docs.
NO_MODULE_SHAPE = HOST_GAPS["fake-host"]["export-shape"]


class SeamMissing(RequirementMissing):
    """The host lacks a seam the test needs (:func:`require_seam`)."""


class _Host(Protocol):
    implementation_name: str

    def supports(self, seam: str) -> bool: ...
    def unsupported_reason(self, seam: str) -> str: ...


def check_seam(seam: str) -> Seam:
    """``seam`` when it names a seam of :data:`SEAMS` (``ValueError`` otherwise)."""
    for known in SEAMS:
        if seam == known:
            return known
    raise ValueError(f"unknown seam {seam!r}; expected one of {list(SEAMS)}")


def require_seam(host: _Host, seam: str) -> None:
    """Stop the calling test (:class:`SeamMissing`, a skip) with the host's
    reason when ``host`` lacks ``seam``."""
    if not host.supports(seam):
        raise SeamMissing(
            f"the {host.implementation_name} host cannot provide the {seam!r} seam: "
            f"{host.unsupported_reason(seam)}"
        )

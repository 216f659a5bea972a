"""Driver seams a host may lack, and how a test that needs one says so.

Most driver calls exist with the same behaviour on every host. A few cannot:
:meth:`~pytest_dsh.driving.api.HostDriver.supports` answers for a seam named here,
and :func:`require_seam` skips a test with the host's reason instead of letting
it pass without the seam (docs/fake-host.md, "Seams a host may lack").
"""

from __future__ import annotations

from typing import Literal, Protocol

import pytest

__all__ = ["SEAMS", "Seam", "check_seam", "require_seam"]

#: ``"per-event-durability"``: ``set_durability("per-event")``, each appended
#: event durable at once. ``"durable-change-observer"``: count the calls a
#: schedule plugin's tools make to the observer its owner gave them, or make
#: it throw. ``"transaction-queue"``: occupy a plugin's per-agent transaction
#: queue without a flush. ``"export-shape"``: ``host.export_shape(plugin)``,
#: the plugin module's exports as a Cordis loader reads them.
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
NO_MODULE_SHAPE = (
    "a Python plugin is a PluginFactory the implementation object names, not a module a "
    "Cordis loader imports; the implementation check before the run covers the factories"
)

#: Seams no host offers: each lives inside the plugin under test, which a host
#: only meets through the host contract.
PLUGIN_INTERNAL: dict[str, str] = {
    "durable-change-observer": (
        "the observer is a callback a schedule plugin passes from its owner to its own "
        "tools; no host service sees it"
    ),
    "transaction-queue": (
        "the transaction queue is the plugin's own; the only host call it awaits is the "
        "session flush, so a test occupies it with a hung flush (fail_flushes('hang'))"
    ),
}


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
    """Skip the calling test, with the host's reason, when ``host`` lacks ``seam``."""
    if not host.supports(seam):
        pytest.skip(
            f"the {host.implementation_name} host cannot provide the {seam!r} seam: "
            f"{host.unsupported_reason(seam)}"
        )

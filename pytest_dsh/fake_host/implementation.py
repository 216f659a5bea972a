"""A Python implementation: in-process pluggy plugins the fake host runs.

:class:`PythonImplementation` is what a Python implementation's descriptor
builds from its plugin factories (``pytest_dsh.PythonImplementation``). This
module imports neither pytest nor the fake host's machinery: an implementation
module that imports it stays light, and the fake host is loaded when a test
opens a host.
"""

from __future__ import annotations

import pathlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, final

from pytest_dsh.contract import PluginFactory

if TYPE_CHECKING:
    from pytest_dsh.fake_host.driver import PythonHostDriver

__all__ = ["PythonImplementation"]


@final
@dataclass(frozen=True)
class PythonImplementation:
    """An implementation made of in-process pluggy plugins."""

    name: str
    version: str
    plugins: Mapping[str, PluginFactory]
    capabilities: frozenset[str] = field(default=frozenset())
    #: Known failures: stable test id (relative to ``dsh_conformance``) -> reason.
    #: Each becomes a strict xfail, so a fix shows up as an unexpected pass. Left
    #: out of the repr: Hypothesis prints it with every failing example, and the
    #: official build's list runs to tens of kilobytes.
    expected_failures: Mapping[str, str] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        # The same text in every run (a failing example's message quotes it):
        # capabilities sorted, the plugins by role, not by object address.
        return (f"PythonImplementation(name={self.name!r}, version={self.version!r}, "
                f"plugins={sorted(self.plugins)!r}, capabilities={sorted(self.capabilities)!r})")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # Hypothesis prints a failing example's arguments field by field,
        # ignoring repr=False (and the known failures run to tens of kB).
        printer.text(repr(self))

    def open_host(
        self,
        *,
        start_ms: int,
        withhold: frozenset[str] = frozenset(),
        jsonl_root: str | pathlib.Path | None = None,
    ) -> PythonHostDriver:
        """As :meth:`pytest_dsh.implementations.Implementation.open_host`;
        ``jsonl_root`` keeps durable sessions as session files under that
        folder (docs/reliability.md)."""
        # Imported here: the fake host (and pytest, through time-machine) is only
        # needed when a test opens a host, never by importing an implementation.
        from pytest_dsh.fake_host.driver import PythonHostDriver

        return PythonHostDriver(
            self.name,
            self.version,
            self.plugins,
            start_ms=start_ms,
            withhold=withhold,
            jsonl_root=jsonl_root,
        )

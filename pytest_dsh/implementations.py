"""Implementations under test and how ``--dsh-impl`` finds them.

An implementation is any object satisfying :class:`Implementation`. Python
implementations usually build one with :class:`PythonImplementation` from their
plugin factories; the official npm build is driven through a Node bridge. They
are found by entry-point name in the group ``dsh.impl`` (``reference`` ships with
this kit) or by an import path ``package.module:attribute``.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, final, runtime_checkable

from pytest_dsh.contract import PluginFactory
from pytest_dsh.driver import HostDriver, PythonHostDriver
from pytest_dsh.errors import ImplementationError

__all__ = [
    "ENTRY_POINT_GROUP",
    "Implementation",
    "PythonImplementation",
    "available_implementations",
    "resolve_implementation",
    "suite_test_id",
]

ENTRY_POINT_GROUP = "dsh.impl"

#: Capability names the suite knows. An implementation declares what it has; a
#: test needing something undeclared is skipped with the reason, never passed.
KNOWN_CAPABILITIES = frozenset(
    {
        "schedule",
        "schedule-invariant",
        "time-context",
        "time-context-invariant",
        "process-zone",
    }
)


@runtime_checkable
class Implementation(Protocol):
    name: str
    version: str
    capabilities: frozenset[str]

    def open_host(self, *, start_ms: int, withhold: frozenset[str] = frozenset()) -> HostDriver:
        """A fresh host with this implementation's plugins available (not yet
        loaded) and the wall clock at ``start_ms``. ``withhold`` names host
        services (``sessions``, ``agents``, ``invariants``,
        ``session_persistence``) the host must not offer."""


@final
@dataclass(frozen=True)
class PythonImplementation:
    """An implementation made of in-process pluggy plugins."""

    name: str
    version: str
    plugins: Mapping[str, PluginFactory]
    capabilities: frozenset[str] = field(default=frozenset())
    #: Known failures: stable test id (relative to ``dsh_conformance``) -> reason.
    #: Each becomes a strict xfail, so a fix shows up as an unexpected pass.
    expected_failures: Mapping[str, str] = field(default_factory=dict)

    def open_host(
        self, *, start_ms: int, withhold: frozenset[str] = frozenset()
    ) -> PythonHostDriver:
        return PythonHostDriver(
            self.name, self.version, self.plugins, start_ms=start_ms, withhold=withhold
        )


def suite_test_id(nodeid: str) -> str:
    """A conformance test's id relative to the ``dsh_conformance`` package
    (``schedule/test_x.py::test_y[param]``), the same from a checkout or an
    install; the key of ``expected_failures``. Other node ids are returned as is."""
    marker = "dsh_conformance/"
    return nodeid.split(marker, 1)[1] if marker in nodeid else nodeid


def available_implementations() -> dict[str, str]:
    """Entry-point names in ``dsh.impl`` mapped to their ``module:attr`` values."""
    points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    return {point.name: point.value for point in sorted(points, key=lambda p: p.name)}


def _describe_available() -> str:
    names = sorted(available_implementations())
    listed = ", ".join(names) if names else "none installed"
    return f"available implementations: {listed} (or give package.module:attribute)"


def resolve_implementation(spec: str) -> Implementation:
    """Find the implementation named by ``spec`` (entry-point name or import path)."""
    spec = spec.strip()
    if not spec:
        raise ImplementationError(f"no implementation given; {_describe_available()}")
    points = {p.name: p for p in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
    try:
        if spec in points:
            obj = points[spec].load()
        elif ":" in spec:
            module_name, _, attribute = spec.partition(":")
            obj = importlib.import_module(module_name)
            for part in attribute.split("."):
                obj = getattr(obj, part)
        else:
            raise ImplementationError(f"unknown implementation {spec!r}; {_describe_available()}")
    except ImplementationError:
        raise
    except (ImportError, AttributeError) as exc:
        raise ImplementationError(
            f"cannot load implementation {spec!r}: {exc}; {_describe_available()}"
        ) from exc
    if callable(obj) and not isinstance(obj, Implementation):
        obj = obj()
    if not isinstance(obj, Implementation):
        raise ImplementationError(
            f"{spec!r} is not an implementation (needs name, version, capabilities "
            f"and open_host()); {_describe_available()}"
        )
    unknown = set(obj.capabilities) - KNOWN_CAPABILITIES
    if unknown:
        raise ImplementationError(
            f"implementation {obj.name!r} declares unknown capabilities {sorted(unknown)}; "
            f"known: {sorted(KNOWN_CAPABILITIES)}"
        )
    return obj

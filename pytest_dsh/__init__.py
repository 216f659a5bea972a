"""pytest-dsh: a conformance kit for DSH plugins.

Public API (pinned by a test so nothing leaks or vanishes by accident):

* the host contract: :mod:`pytest_dsh.contract` (hooks, services, values);
* the driver API both hosts implement (:mod:`pytest_dsh.driving`):
  :class:`HostDriver`, :class:`AgentDriver`, :class:`FaultPlan`, :class:`ModelReply`;
* the fake host: :class:`FakeHost`, :class:`PythonHostDriver`; npm builds:
  :class:`NodeImplementation`;
* implementations: :class:`Implementation`, :class:`PythonImplementation`,
  :func:`resolve_implementation`;
* pinned time-zone data: :func:`pinned_zone`, :data:`TZDATA_VERSION`.

Names are imported on first use (module ``__getattr__``): importing
:mod:`pytest_dsh.contract`, which every plugin does, pulls in neither pytest,
Hypothesis nor the fake host.

PYTEST_DONT_REWRITE: ``dsh-conformance`` imports this package before pytest
starts, and this module has no assertion to rewrite; the marker keeps pytest
from warning about it on every run (the plugin's modules are still rewritten).
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "NODE_MAX_TIMER_DELAY_MS": "pytest_dsh.fake_host.clock",
    "VirtualClock": "pytest_dsh.fake_host.clock",
    "AgentDriver": "pytest_dsh.driving.api",
    "HostDriver": "pytest_dsh.driving.api",
    "PreStepWatcher": "pytest_dsh.driving.api",
    "WatcherCall": "pytest_dsh.driving.api",
    "PythonAgentDriver": "pytest_dsh.fake_host.driver",
    "PythonHostDriver": "pytest_dsh.fake_host.driver",
    "AgentVetoedError": "pytest_dsh.errors",
    "DshKitError": "pytest_dsh.errors",
    "HostStuckError": "pytest_dsh.errors",
    "ImplementationError": "pytest_dsh.errors",
    "PluginLoadError": "pytest_dsh.errors",
    "UnknownPluginError": "pytest_dsh.errors",
    "FakeHost": "pytest_dsh.fake_host.host",
    "Implementation": "pytest_dsh.implementations",
    "PythonImplementation": "pytest_dsh.fake_host.implementation",
    "available_implementations": "pytest_dsh.implementations",
    "resolve_implementation": "pytest_dsh.implementations",
    "ModelReply": "pytest_dsh.driving.replies",
    "NodeImplementation": "pytest_dsh.npm",
    "reply_text": "pytest_dsh.driving.replies",
    "reply_tools": "pytest_dsh.driving.replies",
    "FaultPlan": "pytest_dsh.driving.faults",
    "FlushRecord": "pytest_dsh.driving.faults",
    "ToolOutcome": "pytest_dsh.driving.tool_outcomes",
    "TZDATA_VERSION": "pytest_dsh.contract.tzdb",
    "pinned_zone": "pytest_dsh.contract.tzdb",
    "pinned_zone_keys": "pytest_dsh.contract.tzdb",
}

if _typing.TYPE_CHECKING:
    from pytest_dsh.contract.tzdb import TZDATA_VERSION, pinned_zone, pinned_zone_keys
    from pytest_dsh.driving.api import AgentDriver, HostDriver, PreStepWatcher, WatcherCall
    from pytest_dsh.driving.faults import FaultPlan, FlushRecord
    from pytest_dsh.driving.replies import ModelReply, reply_text, reply_tools
    from pytest_dsh.driving.tool_outcomes import ToolOutcome
    from pytest_dsh.errors import (
        AgentVetoedError,
        DshKitError,
        HostStuckError,
        ImplementationError,
        PluginLoadError,
        UnknownPluginError,
    )
    from pytest_dsh.fake_host.clock import NODE_MAX_TIMER_DELAY_MS, VirtualClock
    from pytest_dsh.fake_host.driver import PythonAgentDriver, PythonHostDriver
    from pytest_dsh.fake_host.host import FakeHost
    from pytest_dsh.fake_host.implementation import PythonImplementation
    from pytest_dsh.implementations import (
        Implementation,
        available_implementations,
        resolve_implementation,
    )
    from pytest_dsh.npm import NodeImplementation

__all__ = [
    "NODE_MAX_TIMER_DELAY_MS",
    "TZDATA_VERSION",
    "AgentDriver",
    "AgentVetoedError",
    "DshKitError",
    "FakeHost",
    "FaultPlan",
    "FlushRecord",
    "HostDriver",
    "HostStuckError",
    "Implementation",
    "ImplementationError",
    "ModelReply",
    "NodeImplementation",
    "PluginLoadError",
    "PreStepWatcher",
    "PythonAgentDriver",
    "PythonHostDriver",
    "PythonImplementation",
    "ToolOutcome",
    "UnknownPluginError",
    "VirtualClock",
    "WatcherCall",
    "__version__",
    "available_implementations",
    "pinned_zone",
    "pinned_zone_keys",
    "reply_text",
    "reply_tools",
    "resolve_implementation",
]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_dsh' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

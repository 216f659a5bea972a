"""pytest-dsh: a conformance kit for DSH plugins.

Public API (pinned by a test so nothing leaks or vanishes by accident):

* the host contract: :mod:`pytest_dsh.contract` (hooks, services, values);
* the fake host and its driver: :class:`FakeHost`, :class:`HostDriver`,
  :class:`AgentDriver`, :class:`FaultPlan`, :class:`ModelReply`;
* implementations: :class:`Implementation`, :class:`PythonImplementation`,
  :class:`NodeImplementation` (npm packages), :func:`resolve_implementation`;
* pinned time-zone data: :func:`pinned_zone`, :data:`TZDATA_VERSION`.
"""

from __future__ import annotations

__version__ = "0.1.0"

from pytest_dsh.clock import NODE_MAX_TIMER_DELAY_MS, VirtualClock
from pytest_dsh.driver import (
    AgentDriver,
    HostDriver,
    PreStepProbe,
    ProbeCall,
    PythonAgentDriver,
    PythonHostDriver,
)
from pytest_dsh.errors import (
    AgentVetoedError,
    DshKitError,
    HostStuckError,
    ImplementationError,
    PluginLoadError,
    UnknownPluginError,
)
from pytest_dsh.host import FakeHost
from pytest_dsh.implementations import (
    Implementation,
    PythonImplementation,
    available_implementations,
    resolve_implementation,
)
from pytest_dsh.model import ModelReply, reply_text, reply_tools
from pytest_dsh.npm import NodeImplementation
from pytest_dsh.persistence import FaultPlan, FlushRecord
from pytest_dsh.tools import ToolOutcome
from pytest_dsh.tzdb import TZDATA_VERSION, pinned_zone, pinned_zone_keys

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
    "PreStepProbe",
    "ProbeCall",
    "PythonAgentDriver",
    "PythonHostDriver",
    "PythonImplementation",
    "ToolOutcome",
    "UnknownPluginError",
    "VirtualClock",
    "__version__",
    "available_implementations",
    "pinned_zone",
    "pinned_zone_keys",
    "reply_text",
    "reply_tools",
    "resolve_implementation",
]

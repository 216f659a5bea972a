"""The official npm build of the DSH plugins, driven through a Node bridge.

``--dsh-impl=official`` (or ``pytest_dsh.official:IMPLEMENTATION``) runs the
conformance suite against ``@deepseek-ai/dsh-schedule@0.1.0-rc.8`` and the
two-line ``@deepseek-ai/dsh-time-context@0.0.1-rc.1`` inside the real DSH host
services. The bridge is a Node project (``bridge/`` in a checkout): install it
with ``npm ci --prefix bridge`` or point ``DSH_BRIDGE_DIR`` at it.
"""

from __future__ import annotations

from pytest_dsh.official._domain import OfficialDomain, Thrown, official_domain
from pytest_dsh.official._driver import (
    BridgeAgentDriver,
    BridgeHostDriver,
    BridgeOperationError,
)
from pytest_dsh.official._implementation import (
    OFFICIAL_SCHEDULE_VERSION,
    OFFICIAL_TIME_CONTEXT_VERSION,
    OfficialImplementation,
    load_expectations,
)
from pytest_dsh.official._process import (
    BridgeCrashedError,
    BridgeProcess,
    BridgeUnavailableError,
    acquire_process,
    bridge_timings,
    locate_bridge,
    locate_node,
    release_process,
)

__all__ = [
    "IMPLEMENTATION",
    "OFFICIAL_SCHEDULE_VERSION",
    "OFFICIAL_TIME_CONTEXT_VERSION",
    "BridgeAgentDriver",
    "BridgeCrashedError",
    "BridgeHostDriver",
    "BridgeOperationError",
    "BridgeProcess",
    "BridgeUnavailableError",
    "OfficialDomain",
    "OfficialImplementation",
    "Thrown",
    "acquire_process",
    "bridge_timings",
    "load_expectations",
    "locate_bridge",
    "locate_node",
    "official_domain",
    "release_process",
]

#: The implementation object for ``--dsh-impl=pytest_dsh.official:IMPLEMENTATION``.
IMPLEMENTATION = OfficialImplementation()

"""The Node bridge, seen from Python: the process that runs an npm build in
the real DSH host services, and the driver that speaks to it.

* :mod:`~pytest_dsh.npm.bridge.protocol`: ``protocol.json``, the declaration both halves read;
* :mod:`~pytest_dsh.npm.bridge.channel`: the driver's channel over a replaceable
  transport (the Node process, or :class:`MemoryTransport` with no Node);
* :mod:`~pytest_dsh.npm.bridge.process`: finding Node and the bridge, starting,
  pooling and stopping bridge processes, one JSON request at a time;
* :mod:`~pytest_dsh.npm.bridge.driver`: :class:`BridgeHostDriver` and
  :class:`BridgeAgentDriver`, the driver API (:mod:`pytest_dsh.driving.api`)
  over those requests;
* :mod:`~pytest_dsh.npm.bridge.json_text`: the channel's JSON text at any depth (arguments
  as a model sends them, replies deeper than ``json.loads`` reads).

The JavaScript side is the ``bridge/`` folder of a checkout (``pytest_dsh/_bridge``
in the wheel). Nothing here knows which packages it runs: the official build
is one :class:`~pytest_dsh.npm.NodeImplementation` among others.
"""

from __future__ import annotations

from pytest_dsh.npm.bridge.channel import (
    BridgeChannel,
    BridgeCrashedError,
    MemoryTransport,
    Transport,
)
from pytest_dsh.npm.bridge.driver import (
    BridgeAgentDriver,
    BridgeHostDriver,
    BridgeOperationError,
)
from pytest_dsh.npm.bridge.process import (
    BridgeProcess,
    BridgeUnavailableError,
    acquire_process,
    bridge_timings,
    checked_node,
    locate_bridge,
    locate_node,
    release_process,
)

__all__ = [
    "BridgeAgentDriver",
    "BridgeChannel",
    "BridgeCrashedError",
    "BridgeHostDriver",
    "BridgeOperationError",
    "BridgeProcess",
    "BridgeUnavailableError",
    "MemoryTransport",
    "Transport",
    "acquire_process",
    "bridge_timings",
    "checked_node",
    "locate_bridge",
    "locate_node",
    "release_process",
]

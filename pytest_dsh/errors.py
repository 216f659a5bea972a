"""The kit's errors, shared by both hosts, the npm path and the pytest plugin.

::

    DshKitError
    ├── PluginLoadError        a plugin refused its config while loading
    ├── UnknownPluginError     the implementation has no plugin of that name
    ├── AgentVetoedError       an agent-created hook raised; the agent is gone
    ├── HostStuckError         a driver call cannot finish (e.g. a hung flush)
    └── ImplementationError    --dsh-impl names nothing usable

``CompositionError`` (a missing required service) lives in
:mod:`pytest_dsh.contract` because plugins may reason about it too.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "AgentVetoedError",
    "DshKitError",
    "HostStuckError",
    "ImplementationError",
    "PluginLoadError",
    "UnknownPluginError",
]


class DshKitError(Exception):
    """Base class of the kit's own errors."""


class PluginLoadError(DshKitError):
    """A plugin refused its config. ``message`` is the plugin's own text."""

    def __init__(self, plugin: str, message: str) -> None:
        super().__init__(f"plugin {plugin!r} failed to load: {message}")
        self.plugin = plugin
        self.message = message


class UnknownPluginError(DshKitError, KeyError):
    def __init__(self, plugin: str, available: Sequence[str]) -> None:
        listed = ", ".join(available) or "none"
        super().__init__(f"no plugin named {plugin!r} (available: {listed})")
        self.plugin = plugin

    def __str__(self) -> str:
        return str(self.args[0])


class AgentVetoedError(DshKitError):
    def __init__(self, agent_id: str, cause: BaseException) -> None:
        super().__init__(f"agent {agent_id!r} was vetoed by an agent-created hook: {cause!r}")
        self.agent_id = agent_id


class HostStuckError(DshKitError):
    """The operation waits for something that will never happen by itself."""


class ImplementationError(DshKitError):
    """The implementation chosen with ``--dsh-impl`` cannot be used."""

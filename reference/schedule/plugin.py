"""The dsh-schedule plugin and its invariant companion, as host-contract factories.

``SCHEDULE_PLUGIN`` installs on every *root* agent created after it loads:
registers the three tools on that agent and starts its live owner. Agents that
already existed, and child agents, never receive Schedule. Disposing an agent
or unloading the plugin cancels timers and awaits in-flight work; durable
records are never deleted.

``SCHEDULE_INVARIANT_PLUGIN`` applies the fold policy to every live log when it
loads and to every ``schedule/change`` candidate before it is appended.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, final

from dsh_reference.schedule.core import InvariantChecker, ScheduleProjection
from dsh_reference.schedule.owner import LiveOwner
from dsh_reference.schedule.tools import register_schedule_tools
from dsh_reference.schedule.transactions import AgentQueue
from pytest_dsh.contract import (
    Agent,
    HostServices,
    PluginConfigError,
    SessionEvent,
    hookimpl,
)

__all__ = ["INVARIANT_OWNER", "SCHEDULE_INVARIANT_PLUGIN", "SCHEDULE_PLUGIN"]

#: The name invariant violations are attributed to.
INVARIANT_OWNER: Final = "@deepseek-ai/dsh-schedule"


def _reject_config(plugin: str, config: Mapping[str, Any]) -> None:
    if config:
        raise PluginConfigError(f"{plugin}: takes no configuration, got {sorted(config)}")


@dataclass(slots=True)
class _Installed:
    owner: LiveOwner
    dispose_tools: Callable[[], None]
    stop_status: Callable[[], None]

    async def close(self) -> None:
        self.stop_status()
        self.dispose_tools()
        await self.owner.dispose()


@final
class SchedulePlugin:
    """Loaded dsh-schedule: one owner and tool set per live root agent."""

    def __init__(self, services: HostServices) -> None:
        self._services = services
        self._installed: dict[str, _Installed] = {}
        self._stopping = False

    @hookimpl
    def dsh_agent_created(self, agent: Agent) -> None:
        agents = self._services.agents
        if self._stopping or agent.id in self._installed or agents is None:
            return
        if not agent.is_root or all(root is not agent for root in agents.roots()):
            return
        queue = AgentQueue()
        projection = ScheduleProjection()  # one fold per agent, shared by tools and owner
        owner = LiveOwner(agent, self._services, queue, projection)
        # A registration failure propagates: the host vetoes the agent.
        dispose_tools = register_schedule_tools(
            agent, self._services, queue, owner.request_drive, projection
        )
        stop_status = agent.on_status(owner.on_status)
        self._installed[agent.id] = _Installed(owner, dispose_tools, stop_status)
        owner.start()

    @hookimpl
    async def dsh_agent_disposed(self, agent: Agent) -> None:
        installed = self._installed.pop(agent.id, None)
        if installed is not None:
            await installed.close()

    async def dispose(self) -> None:
        self._stopping = True
        installed, self._installed = list(self._installed.values()), {}
        await asyncio.gather(*(item.close() for item in installed), return_exceptions=True)


@final
class _ScheduleFactory:
    name = "schedule"
    # Flushes need the sessions service *and* a persistence backend behind it:
    # composing without one is an error, not a plugin that is always uncertain.
    requires = frozenset({"clock", "agents", "sessions", "session_persistence", "logger"})

    def load(self, services: HostServices, config: Mapping[str, Any]) -> SchedulePlugin:
        _reject_config(self.name, config)
        return SchedulePlugin(services)


def _checker() -> Callable[[Sequence[SessionEvent], SessionEvent | None, int], None]:
    checker = InvariantChecker()

    def check(events: Sequence[SessionEvent], candidate: SessionEvent | None, seed: int) -> None:
        if candidate is None:
            checker.check_log(events, seed)
        else:
            checker.check_candidate(events, candidate, seed)

    return check


@final
class ScheduleInvariantPlugin:
    def __init__(self, unregister: Callable[[], None]) -> None:
        self._unregister = unregister

    async def dispose(self) -> None:
        self._unregister()


@final
class _ScheduleInvariantFactory:
    name = "schedule-invariant"
    requires = frozenset({"invariants"})

    def load(self, services: HostServices, config: Mapping[str, Any]) -> ScheduleInvariantPlugin:
        _reject_config(self.name, config)
        assert services.invariants is not None
        return ScheduleInvariantPlugin(services.invariants.register(INVARIANT_OWNER, _checker()))


SCHEDULE_PLUGIN: Final = _ScheduleFactory()
SCHEDULE_INVARIANT_PLUGIN: Final = _ScheduleInvariantFactory()

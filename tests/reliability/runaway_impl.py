"""Deliberately runaway implementations, to prove the kit fails them fast.

``IMPLEMENTATION`` is the reference with one realistic bug: its schedule
plugin is told the clock's timer range is unlimited, so it does not split a
long wait; the clock (like Node) fires an out-of-range timer after 1 ms, the
owner finds nothing due and re-arms, forever. ``SPINNER`` is a plugin whose
``spin`` tool re-arms a zero-delay callback forever, ``TICKER`` one whose
``tick`` tool starts a 1 s timer that re-arms itself forever, and ``STUCK`` one
whose ``stuck`` tool never returns to the event loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from pytest_dsh import PythonImplementation
from pytest_dsh.contract import HostServices, ToolDefinition, hookimpl


class _UnboundedClock:
    """The host clock, claiming a timer range it does not have."""

    max_timer_delay_ms = 2**53

    def __init__(self, clock: Any) -> None:
        self._clock = clock

    def now_ms(self) -> int:
        return int(self._clock.now_ms())

    def set_timer(self, delay_ms: int, callback: Callable[[], None]) -> Any:
        return self._clock.set_timer(delay_ms, callback)


class _UnsplitSchedule:
    name = "schedule"

    def __init__(self) -> None:
        self._inner = REFERENCE.plugins["schedule"]
        self.requires = self._inner.requires

    def load(self, services: HostServices, config: Mapping[str, Any]) -> object:
        clock = _UnboundedClock(services.clock)
        return self._inner.load(dataclasses.replace(services, clock=clock), config)


IMPLEMENTATION = PythonImplementation(
    name="runaway-unsplit-wait",
    version="0",
    plugins={**REFERENCE.plugins, "schedule": _UnsplitSchedule()},
    capabilities=REFERENCE.capabilities,
)


def _object_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {}, "additionalProperties": False}


class _ToolPlugin:
    def __init__(self, services: HostServices, name: str, handler: Any) -> None:
        self.services = services
        self._name = name
        self._handler = handler

    @hookimpl
    async def dsh_agent_created(self, agent: Any) -> None:
        agent.tools.register(
            ToolDefinition(
                name=self._name,
                description="misbehave",
                parameters=_object_schema(),
                handler=self._handler(self.services),
            )
        )


class _Factory:
    requires = frozenset({"clock"})

    def __init__(self, name: str, handler: Any) -> None:
        self.name = name
        self._handler = handler

    def load(self, services: HostServices, config: Mapping[str, Any]) -> object:
        return _ToolPlugin(services, self.name, self._handler)


def _spin(services: HostServices) -> Any:
    async def handler(arguments: Any, call: Any) -> Any:
        loop = asyncio.get_running_loop()

        def again() -> None:
            loop.call_soon(again)

        loop.call_soon(again)
        return {"ok": True}

    return handler


def _tick(services: HostServices) -> Any:
    async def handler(arguments: Any, call: Any) -> Any:
        def again() -> None:
            services.clock.set_timer(1000, again)

        services.clock.set_timer(1000, again)
        return {"ok": True}

    return handler


def _stuck(services: HostServices) -> Any:
    async def handler(arguments: Any, call: Any) -> Any:
        count = 0
        while count >= 0:
            count += 1
        return {"ok": True}

    return handler


def _grow_log(services: HostServices) -> Any:
    async def handler(arguments: Any, call: Any) -> Any:
        while True:  # never returns to the event loop
            call.agent.session.append("custom/note", {"again": True})

    return handler


def _grow_followups(services: HostServices) -> Any:
    async def handler(arguments: Any, call: Any) -> Any:
        message = {"content": [{"type": "text", "text": "again"}], "source": {"kind": "user"}}
        while True:
            call.agent.followup(message)

    return handler


SPINNER = PythonImplementation("spinner", "0", {"spin": _Factory("spin", _spin)})
TICKER = PythonImplementation("ticker", "0", {"tick": _Factory("tick", _tick)})
STUCK = PythonImplementation("stuck", "0", {"stuck": _Factory("stuck", _stuck)})
GROWER = PythonImplementation(
    "grower",
    "0",
    {"grow-log": _Factory("grow_log", _grow_log),
     "grow-followups": _Factory("grow_followups", _grow_followups)},
)

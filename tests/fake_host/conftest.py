"""Fixtures and small plugins that exercise the fake host (not part of any implementation)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from pytest_dsh import FakeHost
from pytest_dsh.contract import HostServices, PluginConfigError, ToolDefinition, hookimpl


class RecordingPlugin:
    """Records hook calls and registers an ``echo`` tool on every agent."""

    def __init__(self, services: HostServices, config: Mapping[str, Any]) -> None:
        self.services = services
        self.label = config.get("label", "recording")
        self.calls: list[tuple[Any, ...]] = []
        self.disposed = False

    @hookimpl
    async def dsh_agent_created(self, agent):
        self.calls.append(("created", agent.id, agent.is_root))

        async def echo(args, call):
            return {"echo": args["x"], "agent": call.agent.id}

        agent.tools.register(
            ToolDefinition(
                name="echo",
                description="Echo x back.",
                parameters={
                    "type": "object",
                    "properties": {"x": {"type": "integer"}},
                    "required": ["x"],
                    "additionalProperties": False,
                },
                handler=echo,
                output_schema={"type": "object", "required": ["echo"]},
            )
        )

    @hookimpl
    async def dsh_pre_step(self, agent, turn, step, signal):
        self.calls.append(("pre-step", self.label, turn, step, len(agent.session.events)))

    @hookimpl
    def dsh_agent_disposed(self, agent):
        self.calls.append(("disposed", agent.id))

    async def dispose(self) -> None:
        self.disposed = True


class RecordingFactory:
    def __init__(self, name: str = "recording", requires: frozenset[str] = frozenset()) -> None:
        self.name = name
        self.requires = requires
        self.instances: list[RecordingPlugin] = []

    def load(self, services: HostServices, config: Mapping[str, Any]) -> RecordingPlugin:
        if "bad" in config:
            raise PluginConfigError(f"{self.name}: bad config {config['bad']!r}")
        plugin = RecordingPlugin(services, config)
        self.instances.append(plugin)
        return plugin


class FirstPlugin:
    """A ``tryfirst`` pre-step listener that injects a marker message."""

    @hookimpl(tryfirst=True)
    async def dsh_pre_step(self, agent, turn, step, signal):
        agent.inject(
            {
                "content": [{"type": "text", "text": f"first {turn}.{step}"}],
                "source": {"kind": "plugin", "plugin": "first"},
            }
        )


class FirstFactory:
    name = "first"
    requires: frozenset[str] = frozenset()

    def load(self, services: HostServices, config: Mapping[str, Any]) -> FirstPlugin:
        return FirstPlugin()


START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z


@pytest.fixture
def recording() -> RecordingFactory:
    return RecordingFactory()


@pytest.fixture
def host(recording: RecordingFactory) -> Iterator[FakeHost]:
    fake = FakeHost(
        {
            "recording": recording,
            "first": FirstFactory(),
            "needs-invariants": RecordingFactory("needs-invariants", frozenset({"invariants"})),
            "needs-gpu": RecordingFactory("needs-gpu", frozenset({"gpu"})),
        },
        start_ms=START_MS,
    )
    yield fake
    fake.close()

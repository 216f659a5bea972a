"""Tool registration and validation; plugin loading and composition."""

from __future__ import annotations

import pytest

from pytest_dsh import AgentVetoedError, FakeHost, PluginLoadError, UnknownPluginError
from pytest_dsh.contract import CompositionError, ToolDefinition, hookimpl
from pytest_dsh.fake_host.tools import AbortSignal


def _call(host: FakeHost, agent, name: str, args):
    return host.run_to_completion(agent.execute_tool(name, args, "t-1", AbortSignal()))


def test_arguments_are_validated_before_the_handler(host: FakeHost) -> None:
    host.load_plugin("recording")
    agent = host.create_agent()
    outcome = _call(host, agent, "echo", {"x": "seven"})
    assert outcome.is_error
    assert outcome.error == "invalid arguments: x: 'seven' is not of type 'integer'"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "invalid arguments: (root): 'x' is a required property"),
        (
            {"x": 1, "y": 2},
            "invalid arguments: (root): Additional properties are not allowed ('y' was unexpected)",
        ),
        ({"x": True}, "invalid arguments: x: True is not of type 'integer'"),
    ],
)
def test_argument_errors_are_host_errors_with_stable_messages(host: FakeHost, args, message):
    host.load_plugin("recording")
    agent = host.create_agent()
    outcome = _call(host, agent, "echo", args)
    assert (outcome.is_error, outcome.value, outcome.error) == (True, None, message)


def test_valid_call_renders_compact_json(host: FakeHost) -> None:
    host.load_plugin("recording")
    agent = host.create_agent()
    outcome = _call(host, agent, "echo", {"x": 3})
    assert outcome.is_error is False
    assert outcome.value == {"echo": 3, "agent": agent.id}
    assert outcome.text == f'{{"echo":3,"agent":"{agent.id}"}}'


def test_unknown_tool_is_a_host_error(host: FakeHost) -> None:
    agent = host.create_agent()
    outcome = _call(host, agent, "nope", {})
    assert outcome.is_error and outcome.error == "unknown tool 'nope' (registered: none)"


def test_a_raising_handler_and_a_bad_output_are_reported_not_leaked(host: FakeHost) -> None:
    agent = host.create_agent()

    async def boom(args, call):
        raise KeyError("secret")

    async def shapeless(args, call):
        return {"unexpected": 1}

    agent.tools.register(ToolDefinition("boom", "d", {"type": "object"}, boom))
    agent.tools.register(
        ToolDefinition(
            "shapeless",
            "d",
            {"type": "object"},
            shapeless,
            output_schema={"type": "object", "required": ["code"]},
        )
    )
    assert _call(host, agent, "boom", {}).error == "tool 'boom' raised KeyError: 'secret'"
    assert _call(host, agent, "shapeless", {}).error == (
        "tool 'shapeless' returned a value outside its output schema: "
        "(root): 'code' is a required property"
    )


def test_duplicate_tool_names_are_refused(host: FakeHost) -> None:
    host.load_plugin("recording")
    agent = host.create_agent()

    async def handler(args, call):
        return None

    with pytest.raises(ValueError, match="already registered"):
        agent.tools.register(ToolDefinition("echo", "again", {"type": "object"}, handler))


def test_invalid_config_is_a_load_time_error(host: FakeHost) -> None:
    with pytest.raises(PluginLoadError) as caught:
        host.load_plugin("recording", {"bad": 5})
    assert caught.value.message == "recording: bad config 5"
    assert "recording" not in host.process.plugins


def test_missing_required_service_is_a_composition_error(host: FakeHost) -> None:
    host.load_plugin("needs-invariants")
    with pytest.raises(CompositionError, match="'needs-gpu' requires gpu"):
        host.load_plugin("needs-gpu")


def test_loading_twice_is_a_composition_error(host: FakeHost) -> None:
    host.load_plugin("recording")
    with pytest.raises(CompositionError, match="already loaded"):
        host.load_plugin("recording")


def test_unknown_plugin_lists_the_available_ones(host: FakeHost) -> None:
    with pytest.raises(UnknownPluginError, match=r"available: first, needs-gpu"):
        host.load_plugin("nope")


def test_agents_created_before_load_are_not_announced(host: FakeHost, recording) -> None:
    early = host.create_agent()
    host.load_plugin("recording")
    late = host.create_agent()
    created = [c for c in recording.instances[0].calls if c[0] == "created"]
    assert created == [("created", late.id, True)]
    assert early.tools.names() == []


def test_child_agents_are_announced_as_non_roots(host: FakeHost, recording) -> None:
    host.load_plugin("recording")
    root = host.create_agent()
    child = host.create_agent(parent=root)
    created = [c for c in recording.instances[0].calls if c[0] == "created"]
    assert created == [("created", root.id, True), ("created", child.id, False)]
    assert [a.id for a in host.process.roots()] == [root.id]


def test_a_raising_agent_created_hook_vetoes_the_agent(host: FakeHost) -> None:
    class Veto:
        @hookimpl
        def dsh_agent_created(self, agent):
            raise RuntimeError("no")

    host.process.pm.register(Veto())
    with pytest.raises(AgentVetoedError, match="RuntimeError"):
        host.create_agent()
    assert host.process.roots() == []


def test_unload_awaits_dispose_and_stops_hooks(host: FakeHost, recording) -> None:
    host.load_plugin("recording")
    host.unload_plugin("recording")
    assert recording.instances[0].disposed
    host.create_agent()
    assert [c[0] for c in recording.instances[0].calls] == []


def test_disposing_an_agent_runs_the_hook_then_it_is_not_live(host: FakeHost, recording) -> None:
    host.load_plugin("recording")
    agent = host.create_agent()
    host.dispose_agent(agent)
    assert recording.instances[0].calls[-1] == ("disposed", agent.id)
    assert not agent.is_live and agent.tools.names() == []
    assert host.process.get(agent.id) is None


def test_a_host_can_withhold_persistence() -> None:
    factory_requires = frozenset({"session_persistence"})

    class Needs:
        name = "needs"
        requires = factory_requires

        def load(self, services, config):
            return object()

    fake = FakeHost({"needs": Needs()}, withhold=frozenset({"session_persistence"}))
    try:
        with pytest.raises(CompositionError, match="requires session_persistence"):
            fake.load_plugin("needs")
        assert fake.process.services.session_persistence is None
    finally:
        fake.close()


def test_withholding_an_unknown_service_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot withhold"):
        FakeHost({}, withhold=frozenset({"clock"}))

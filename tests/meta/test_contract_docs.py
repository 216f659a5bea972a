"""docs/host-contract.md must mirror pytest_dsh.contract exactly."""

from __future__ import annotations

import inspect
import pathlib
import re

import pytest

from pytest_dsh import contract

DOC = (pathlib.Path(__file__).parents[2] / "docs" / "host-contract.md").read_text("utf-8")

SERVICES = [
    contract.Clock,
    contract.TimerHandle,
    contract.Signal,
    contract.Session,
    contract.SessionsService,
    contract.ToolCall,
    contract.ToolRegistry,
    contract.Agent,
    contract.AgentsService,
    contract.InvariantsService,
    contract.Logger,
    contract.PluginFactory,
]


def _signature(function) -> str:
    signature = inspect.signature(function)
    params = [p for p in signature.parameters.values() if p.name != "self"]
    text = ", ".join(str(p).replace("'", "") for p in params)
    return f"({text}) -> {signature.return_annotation}".replace("'", "")


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("hook", ["dsh_agent_created", "dsh_pre_step", "dsh_agent_disposed"])
def test_every_hook_is_documented_with_its_exact_signature(hook: str) -> None:
    line = f"def {hook}{_signature(getattr(contract.HookSpecs, hook))}"
    assert line in DOC


def test_the_documented_hooks_are_exactly_the_hookspecs() -> None:
    specs = {name for name in vars(contract.HookSpecs) if name.startswith("dsh_")}
    documented = set(re.findall(r"^def (dsh_\w+)\(", DOC, flags=re.MULTILINE))
    assert documented == specs


def _members(protocol: type) -> list[tuple[str, str]]:
    members = []
    for name, value in vars(protocol).items():
        if name.startswith("_"):
            continue
        if isinstance(value, property):
            members.append((name, f"{name}: "))
        elif callable(value):
            prefix = "async def " if inspect.iscoroutinefunction(value) else "def "
            members.append((name, f"{prefix}{name}{_signature(value)}"))
    for name in getattr(protocol, "__annotations__", {}):
        members.append((name, f"{name}: "))
    return members


@pytest.mark.parametrize("protocol", SERVICES, ids=lambda p: p.__name__)
def test_every_service_member_is_documented(protocol: type) -> None:
    doc = _normalise(DOC)
    assert f"class {protocol.__name__}(Protocol):" in doc
    missing = [text for _, text in _members(protocol) if _normalise(text) not in doc]
    assert missing == []


def test_every_exported_contract_name_is_mentioned() -> None:
    missing = [name for name in contract.__all__ if name not in DOC]
    assert missing == []

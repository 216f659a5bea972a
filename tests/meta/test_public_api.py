"""Pin the public API so nothing leaks or vanishes by accident."""

from __future__ import annotations

import pytest_dsh
import pytest_dsh.strategies

EXPECTED = {
    "NODE_MAX_TIMER_DELAY_MS", "TZDATA_VERSION", "AgentDriver", "AgentVetoedError",
    "DshKitError", "FakeHost", "FaultPlan", "FlushRecord", "HostDriver", "HostStuckError",
    "Implementation", "ImplementationError", "ModelReply", "NodeImplementation",
    "PluginLoadError", "PreStepWatcher",
    "WatcherCall", "PythonAgentDriver", "PythonHostDriver", "PythonImplementation",
    "ToolOutcome", "UnknownPluginError", "VirtualClock", "__version__",
    "available_implementations", "pinned_zone", "pinned_zone_keys", "reply_text",
    "reply_tools", "resolve_implementation",
}


def test_the_top_level_exports_are_exactly_the_documented_ones() -> None:
    assert set(pytest_dsh.__all__) == EXPECTED
    assert all(hasattr(pytest_dsh, name) for name in pytest_dsh.__all__)


def test_no_public_name_leaks_outside_all() -> None:
    # "@..." names are pytest's assertion-rewriting helpers (the kit is a plugin).
    public = {name for name in vars(pytest_dsh) if not name.startswith(("_", "@"))}
    # The rooms and top-level modules (docs/package-map.md), which become
    # attributes once imported.
    rooms = {"contract", "driving", "fake_host", "npm", "official", "pytest_plugin", "strategies",
             "errors", "expectations", "implementations"}
    assert public - set(pytest_dsh.__all__) - rooms == {"annotations"}


def test_strategy_modules_are_exported() -> None:
    assert pytest_dsh.strategies.__all__ == ["schedule", "time_context"]
    assert "create_arguments" in pytest_dsh.strategies.schedule.__all__
    assert "time_context_configs" in pytest_dsh.strategies.time_context.__all__

"""The host's plugin manager registers exactly what pluggy's own registration would.

Each case registers the same plugins on a manager that takes pluggy's path
every time and on the host's (which plans a class once and reuses the plan),
twice, and compares every hook's implementations: their plugin, function,
options, argument names and order.
"""

from __future__ import annotations

from typing import Any

import pluggy
import pytest

from dsh_reference.schedule.plugin import SchedulePlugin
from dsh_reference.time_context.plugin import TimeContextPlugin
from pytest_dsh.contract import PROJECT_NAME, HookSpecs, hookimpl, hookspec
from pytest_dsh.fake_host.driver import _LastWatchersPlugin, _OrdinaryWatcherPlugin
from pytest_dsh.fake_host.registration import PluginManager


class _PluggyPath(pluggy.PluginManager):
    """pluggy's registration, with the host's only rule: dunders are never hooks."""

    def parse_hookimpl_opts(self, plugin: object, name: str) -> Any:
        return None if name.startswith("__") else super().parse_hookimpl_opts(plugin, name)


def _manager(cls: type[pluggy.PluginManager]) -> pluggy.PluginManager:
    manager = cls(PROJECT_NAME)
    manager.add_hookspecs(HookSpecs)
    return manager


def _state(manager: pluggy.PluginManager) -> dict[str, list[tuple[Any, ...]]]:
    return {
        name: [
            (impl.plugin, impl.plugin_name, getattr(impl.function, "__func__", impl.function),
             getattr(impl.function, "__self__", None), impl.opts, impl.argnames,
             impl.kwargnames)
            for impl in caller.get_hookimpls()
        ]
        for name, caller in vars(manager.hook).items()
    }


def _specs(manager: pluggy.PluginManager) -> dict[str, tuple[Any, ...]]:
    return {
        name: (caller.spec.namespace, caller.spec.argnames, caller.spec.kwargnames,
               caller.spec.opts, caller.is_historic())
        for name, caller in vars(manager.hook).items()
        if caller.spec is not None
    }


class _Ordered:
    @hookimpl(tryfirst=True)
    def dsh_pre_step(self, agent: Any, turn: int, step: int, signal: Any) -> None:
        pass

    @hookimpl(trylast=True, specname="dsh_agent_created")
    def created_late(self, agent: Any) -> None:
        pass

    @hookimpl(wrapper=True)
    def dsh_agent_disposed(self, agent: Any) -> Any:
        return (yield)

    @hookimpl
    def dsh_not_specified(self, value: int, extra: int = 0) -> None:
        pass

    def dsh_unmarked(self, agent: Any) -> None:
        pass

    @property
    def dsh_property(self) -> None:
        raise AssertionError("discovery must not run descriptors")


class _Child(_Ordered):
    @hookimpl
    def dsh_pre_step(self, agent: Any, turn: int, step: int, signal: Any) -> None:
        pass


class _Static:
    @hookimpl
    @staticmethod
    def dsh_agent_created(agent: Any) -> None:
        pass


class _Slotted:
    __slots__ = ("dsh_agent_created",)

    def __init__(self) -> None:
        self.dsh_agent_created = hookimpl(lambda agent: None)


def _instance_hook() -> object:
    plugin = _Ordered()
    plugin.__dict__["dsh_agent_disposed"] = 7  # shadows the class's hook
    return plugin


def _instance_function() -> object:
    plugin = _Ordered()

    @hookimpl
    def dsh_agent_created(agent: Any) -> None:
        pass

    plugin.__dict__["dsh_agent_created"] = dsh_agent_created
    return plugin


_PLUGINS = {
    "schedule": lambda: SchedulePlugin(None),  # type: ignore[arg-type]
    "time-context": lambda: TimeContextPlugin(None, None),  # type: ignore[arg-type]
    "last-watchers": lambda: _LastWatchersPlugin([]),
    "ordinary-watcher": lambda: _OrdinaryWatcherPlugin(None),  # type: ignore[arg-type]
    "ordered": _Ordered,
    "child": _Child,
    "static": _Static,
    "slotted": _Slotted,
    "instance-shadows": _instance_hook,
    "instance-function": _instance_function,
}


#: The kinds whose class is registered from a plan (the others take pluggy's path).
_PLANNED = {"schedule", "time-context", "last-watchers", "ordinary-watcher", "ordered", "child"}


@pytest.mark.parametrize("kind", list(_PLUGINS))
def test_registration_matches_pluggy(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    planned: list[object] = []
    register_planned = PluginManager._register_planned

    def counted(self: PluginManager, plugin: object, *args: Any) -> Any:
        planned.append(plugin)
        return register_planned(self, plugin, *args)

    monkeypatch.setattr(PluginManager, "_register_planned", counted)
    for _ in range(3):  # the first registration plans, the next ones reuse the plan
        plugins = [_PLUGINS[kind](), _PLUGINS[kind]()]
        expected, actual = _manager(_PluggyPath), _manager(PluginManager)
        for number, plugin in enumerate(plugins):
            assert expected.register(plugin, name=f"p{number}") == f"p{number}"
            assert actual.register(plugin, name=f"p{number}") == f"p{number}"
        assert _state(actual) == _state(expected)
        assert _specs(actual) == _specs(expected)
    # Every registration after the first used the plan, or none did.
    assert len(planned) >= 5 if kind in _PLANNED else planned == []


def test_a_module_and_a_class_take_pluggys_path() -> None:
    expected, actual = _manager(_PluggyPath), _manager(PluginManager)
    for plugin in (_Ordered, pytest):
        assert expected.register(plugin) == actual.register(plugin)
    assert _state(actual) == _state(expected)


def test_refusals_are_pluggys() -> None:
    for manager in (_manager(_PluggyPath), _manager(PluginManager)):
        plugin = _Ordered()
        manager.register(plugin, name="one")
        with pytest.raises(ValueError, match="already registered under a different name"):
            manager.register(plugin, name="two")
        with pytest.raises(ValueError, match="Plugin name already registered"):
            manager.register(_Ordered(), name="one")
        manager.set_blocked("blocked")
        assert manager.register(_Ordered(), name="blocked") is None


def test_a_class_changed_after_its_plan_is_read_again() -> None:
    class Plugin:
        @hookimpl
        def dsh_agent_created(self, agent: Any) -> None:
            pass

        def helper(self) -> None:
            pass

    def states() -> tuple[Any, Any]:
        expected, actual = _manager(_PluggyPath), _manager(PluginManager)
        plugin = Plugin()
        expected.register(plugin, name="p")
        actual.register(plugin, name="p")
        return _state(actual), _state(expected)

    actual, expected = states()
    assert actual == expected

    @hookimpl(tryfirst=True)
    def dsh_pre_step(self: Any, agent: Any, turn: int, step: int, signal: Any) -> None:
        pass

    Plugin.dsh_pre_step = dsh_pre_step  # type: ignore[attr-defined]
    actual, expected = states()
    assert actual == expected and actual["dsh_pre_step"]
    del Plugin.dsh_agent_created  # type: ignore[attr-defined]
    actual, expected = states()
    assert actual == expected and not actual["dsh_agent_created"]
    hookimpl(specname="dsh_agent_disposed")(Plugin.helper)  # marked in place
    actual, expected = states()
    assert actual == expected and actual["dsh_agent_disposed"]


def test_hook_specifications_match_pluggy() -> None:
    for _ in range(2):
        assert _specs(_manager(PluginManager)) == _specs(_manager(_PluggyPath))

    class Historic:
        @hookspec(historic=True)
        def dsh_history(self, value: int) -> None:
            pass

    for _ in range(2):
        managers = [_PluggyPath(PROJECT_NAME), PluginManager(PROJECT_NAME)]
        for manager in managers:
            manager.add_hookspecs(Historic)
        assert _specs(managers[1]) == _specs(managers[0])
        assert managers[1].hook.dsh_history.is_historic()

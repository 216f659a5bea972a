"""pluggy's plugin registration, with what it finds on a class computed once.

A host process registers the same few plugin classes over and over (a host is
opened per test, a crash starts a new process): pluggy's own ``register``
walks ``dir(plugin)`` and looks every name up with ``inspect.getattr_static``
each time, about two thirds of opening a host. :class:`PluginManager` keeps,
per class, the hook implementations that walk finds on the class, and reuses
them while the class is provably unchanged; any other case (a module or a
class registered as a plugin, hooks in the instance's own attributes, slots,
a custom ``__dir__``, a hook that is not a plain function) takes pluggy's own
path. Either way the manager ends in the same state: the same
implementations, bound the same way, with the same options, in the same order.

The hook specifications are read once per specification class too: a
:class:`pluggy.HookSpec` is a read-only description of the specification
function, shared by every manager's caller.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any, Final, final

import pluggy
from pluggy._hooks import HookSpec, normalize_hookimpl_opts

__all__ = ["PluginManager"]

_ABSENT: Final = object()
#: Bounded: a handful of plugin classes in a run, never a growing cache.
_MAX_PLANS: Final = 256


@final
@dataclass(frozen=True, slots=True)
class _ClassHooks:
    """The hook implementations pluggy finds on ``cls``, and what they depend on."""

    cls: type
    order: tuple[type, ...]
    #: Every class of the MRO but ``object``, with its own attributes when planned.
    attributes: tuple[tuple[type, tuple[tuple[str, object], ...]], ...]
    #: Every plain function among the non-dunder names, with its marker then.
    markers: tuple[tuple[types.FunctionType, object], ...]
    #: ``(attribute name, function, marker options)`` in pluggy's (``dir``) order.
    hooks: tuple[tuple[str, types.FunctionType, pluggy.HookimplOpts], ...]

    def unchanged(self) -> bool:
        """No attribute of any class in the MRO was set, replaced or deleted,
        and no function's marker changed, since the plan was made."""
        if self.cls.__mro__ != self.order:
            return False
        for klass, attributes in self.attributes:
            own = klass.__dict__
            if len(own) != len(attributes):
                return False
            for name, value in attributes:
                if own.get(name, _ABSENT) is not value:
                    return False
        return all(_marker_of(function, _MARKER) is marker for function, marker in self.markers)


_MARKER: Final = "dsh_impl"
#: Per (manager class, plugin class): the plan, or None for pluggy's own path.
_PLANS: dict[tuple[type, type], _ClassHooks | None] = {}
#: Per specification namespace: each hook's name and specification, or None
#: when pluggy's own path must read them (a historic hook keeps a history).
_SPECS: dict[object, tuple[tuple[str, HookSpec], ...] | None] = {}


def _marker_of(holder: object, attribute: str) -> object:
    return getattr(holder, attribute, None)


def _plan(manager: pluggy.PluginManager, plugin: object) -> _ClassHooks | object | None:
    """What pluggy's discovery finds on ``type(plugin)``: None when the class
    is not plannable, ``_ABSENT`` when this instance cannot tell (its own
    attributes shadow the class's: a later one may).

    Made with pluggy's own ``parse_hookimpl_opts`` (the manager's override
    included), on an instance whose own attributes hide nothing."""
    cls = type(plugin)
    if cls.__dir__ is not object.__dir__ or not hasattr(plugin, "__dict__"):
        return None
    marker = manager.project_name + "_impl"
    if marker != _MARKER:
        return None
    own = object.__getattribute__(plugin, "__dict__")
    markers: list[tuple[types.FunctionType, object]] = []
    hooks: list[tuple[str, types.FunctionType, pluggy.HookimplOpts]] = []
    for name in dir(cls):
        if name in own:
            return _ABSENT
        raw = _class_attribute(cls, name)
        if isinstance(raw, types.MemberDescriptorType | staticmethod | classmethod):
            return None  # slots and wrapped functions: pluggy's own path
        if isinstance(raw, types.FunctionType) and not name.startswith("__"):
            markers.append((raw, _marker_of(raw, marker)))
        opts = manager.parse_hookimpl_opts(plugin, name)
        if opts is None:
            continue
        if not isinstance(raw, types.FunctionType):
            return None
        hooks.append((name, raw, opts))
    attributes = tuple(
        (klass, tuple(klass.__dict__.items())) for klass in cls.__mro__ if klass is not object
    )
    return _ClassHooks(cls, cls.__mro__, attributes, tuple(markers), tuple(hooks))


def _class_attribute(cls: type, name: str) -> object:
    """``name`` as the first class of the MRO holding it has it (no descriptor run)."""
    for klass in cls.__mro__:
        value = klass.__dict__.get(name, _ABSENT)
        if value is not _ABSENT:
            return value
    return _ABSENT


def _instance_hooks_possible(plugin: object, plan: _ClassHooks) -> bool:
    """Whether the instance's own attributes could add or shadow a hook."""
    own = object.__getattribute__(plugin, "__dict__")
    if not own:
        return False
    for name, value in own.items():
        if isinstance(value, types.FunctionType | types.MethodType):
            return True
        for hook_name, _, _ in plan.hooks:
            if name == hook_name:
                return True
    return False


class PluginManager(pluggy.PluginManager):
    """pluggy's manager, with the plans above; dunder names are never hooks."""

    def parse_hookimpl_opts(self, plugin: object, name: str) -> pluggy.HookimplOpts | None:
        if name.startswith("__"):
            return None
        return super().parse_hookimpl_opts(plugin, name)

    def parse_hookspec_opts(
        self, module_or_class: types.ModuleType | type, name: str
    ) -> pluggy.HookspecOpts | None:
        if name.startswith("__"):
            return None
        return super().parse_hookspec_opts(module_or_class, name)

    def add_hookspecs(self, module_or_class: types.ModuleType | type) -> None:
        specs = _SPECS.get(module_or_class, _ABSENT)
        if not isinstance(specs, tuple) or any(hasattr(self.hook, name) for name, _ in specs):
            fresh = not vars(self.hook)
            super().add_hookspecs(module_or_class)
            if specs is _ABSENT and fresh and len(_SPECS) < _MAX_PLANS:
                callers = list(vars(self.hook).items())
                historic = any(caller.is_historic() for _, caller in callers)
                _SPECS[module_or_class] = None if historic else tuple(
                    (name, caller.spec) for name, caller in callers
                )
            return
        for name, spec in specs:
            caller = pluggy.HookCaller(name, self._hookexec)
            caller.spec = spec  # what set_specification builds, read once
            setattr(self.hook, name, caller)

    def register(self, plugin: object, name: str | None = None) -> str | None:
        if plugin is None or isinstance(plugin, type | types.ModuleType):
            return super().register(plugin, name)
        key = (type(self), type(plugin))
        plan = _PLANS.get(key, _ABSENT)
        if plan is _ABSENT or (isinstance(plan, _ClassHooks) and not plan.unchanged()):
            plan = _plan(self, plugin)
            if plan is _ABSENT:
                _PLANS.pop(key, None)
            elif len(_PLANS) < _MAX_PLANS or key in _PLANS:
                _PLANS[key] = plan  # type: ignore[assignment]
        if not isinstance(plan, _ClassHooks):
            return super().register(plugin, name)
        if _instance_hooks_possible(plugin, plan):
            return super().register(plugin, name)
        return self._register_planned(plugin, name, plan)

    def _register_planned(self, plugin: object, name: str | None, plan: _ClassHooks) -> str | None:
        """pluggy's ``register`` (1.7) after its discovery, on the planned hooks."""
        plugin_name = name or self.get_canonical_name(plugin)
        if plugin_name in self._name2plugin:
            if self._name2plugin.get(plugin_name, -1) is None:
                return None  # blocked plugin, return None to indicate no registration
            raise ValueError(
                "Plugin name already registered: "
                f"{plugin_name}={plugin}\n{self._name2plugin}"
            )
        if plugin in self._name2plugin.values():
            raise ValueError(
                "Plugin already registered under a different name: "
                f"{plugin_name}={plugin}\n{self._name2plugin}"
            )
        hookimpls: list[tuple[str, pluggy.HookImpl, bool]] = []
        for attr_name, function, opts in plan.hooks:
            normalize_hookimpl_opts(opts)
            method: Any = function.__get__(plugin, type(plugin))
            hookimpl = pluggy.HookImpl(plugin, plugin_name, method, opts)
            hook_name = opts.get("specname") or attr_name
            hook: pluggy.HookCaller | None = getattr(self.hook, hook_name, None)
            verified = False
            if hook is not None and hook.has_spec():
                self._verify_hook(hook, hookimpl)
                verified = True
            hookimpls.append((hook_name, hookimpl, verified))
        self._name2plugin[plugin_name] = plugin
        for hook_name, hookimpl, verified in hookimpls:
            hook = getattr(self.hook, hook_name, None)
            if hook is None:
                hook = pluggy.HookCaller(hook_name, self._hookexec)
                setattr(self.hook, hook_name, hook)
            elif not verified and hook.has_spec():
                self._verify_hook(hook, hookimpl)
            hook._maybe_apply_history(hookimpl)
            hook._add_hookimpl(hookimpl)
        return plugin_name

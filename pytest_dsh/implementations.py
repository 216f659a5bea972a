"""Implementations under test and how ``--dsh-impl`` finds them.

An implementation is any object satisfying :class:`Implementation`. Python
implementations build one with
:class:`~pytest_dsh.fake_host.implementation.PythonImplementation` from their
plugin factories (the fake host runs them); npm builds are a
:class:`~pytest_dsh.npm.NodeImplementation` (the Node bridge runs them). They
are found by entry-point name in the group ``dsh.impl`` (``reference`` ships with
this kit) or by an import path ``package.module:attribute``.

:func:`resolve_implementation` checks the object before any test runs
(:func:`check_implementation`), so a broken implementation is one usage error
saying what to fix, not hundreds of identical test failures.

This module imports neither pytest nor the fake host's machinery.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.metadata
import importlib.util
import pathlib
import traceback
from collections.abc import Mapping, Set
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pytest_dsh.contract import HostServices
from pytest_dsh.driving import requirements as _requirements
from pytest_dsh.errors import ImplementationError
from pytest_dsh.fake_host.implementation import PythonImplementation

if TYPE_CHECKING:
    from pytest_dsh.driving.api import HostDriver

__all__ = [
    "CAPABILITY_PLUGINS",
    "ENTRY_POINT_GROUP",
    "KNOWN_CAPABILITIES",
    "KNOWN_PLUGINS",
    "Implementation",
    "available_implementations",
    "check_implementation",
    "conformance_root",
    "resolve_implementation",
    "stable_test_id",
    "suite_relative_path",
    "suite_test_id",
]

ENTRY_POINT_GROUP = "dsh.impl"

#: Plugin names the suite loads, and the capability each one backs.
KNOWN_PLUGINS = frozenset(
    {"schedule", "schedule-invariant", "time-context", "time-context-invariant"}
)

#: Capability -> the plugin an implementation needs to declare it: the
#: ``capability`` requirements of :mod:`pytest_dsh.driving.requirements`. A test
#: that needs an undeclared capability is skipped with the reason, never passed.
CAPABILITY_PLUGINS: Mapping[str, str] = _requirements.CAPABILITY_PLUGINS
KNOWN_CAPABILITIES = frozenset(CAPABILITY_PLUGINS)

_SERVICES = frozenset(f.name for f in dataclasses.fields(HostServices))


@runtime_checkable
class Implementation(Protocol):
    """What the suite needs from an implementation under test.

    Optional: ``expected_failures`` (stable test id -> reason), known failures
    that become strict xfails."""

    name: str
    version: str
    capabilities: frozenset[str]

    def open_host(self, *, start_ms: int, withhold: frozenset[str] = frozenset()) -> HostDriver:
        """A fresh host with this implementation's plugins available (not yet
        loaded) and the wall clock at ``start_ms``. ``withhold`` names host
        services (``sessions``, ``agents``, ``invariants``,
        ``session_persistence``) the host must not offer."""


# --------------------------------------------------------------------- test ids


@functools.cache
def conformance_root() -> pathlib.Path | None:
    """The folder of the installed ``dsh_conformance`` package, if any.

    Looked up once per process: the hooks ask for every collected module and
    test, and an installed package does not move while pytest runs."""
    spec = importlib.util.find_spec("dsh_conformance")
    if spec is None or not spec.submodule_search_locations:
        return None
    return pathlib.Path(next(iter(spec.submodule_search_locations))).resolve()


def suite_test_id(nodeid: str) -> str:
    """A node id made relative to the ``dsh_conformance`` package when it
    contains the package folder (``.../dsh_conformance/schedule/test_x.py::t``
    -> ``schedule/test_x.py::t``); other node ids are returned as is. Prefer
    :func:`stable_test_id`, which does not depend on pytest's rootdir."""
    marker = "dsh_conformance/"
    return nodeid.split(marker, 1)[1] if marker in nodeid else nodeid


def stable_test_id(path: pathlib.Path, nodeid: str) -> str:
    """The id of a conformance test relative to the ``dsh_conformance``
    package (``schedule/test_x.py::test_y[param]``): the same whether the
    whole suite or one section was run, from a checkout or an install. This is
    the key of ``expected_failures``. Tests outside the suite keep their node id."""
    relative = suite_relative_path(path)
    if relative is not None:
        _, sep, name = nodeid.partition("::")
        return relative + (sep + name if sep else "")
    return suite_test_id(nodeid)


def suite_relative_path(path: pathlib.Path) -> str | None:
    """``path`` relative to the ``dsh_conformance`` folder (POSIX form), or
    ``None`` for a file outside the suite."""
    return _suite_relative(str(path))


@functools.lru_cache(maxsize=1024)
def _suite_relative(path: str) -> str | None:
    # One resolve (a system call per path component) per file, not per test.
    root = conformance_root()
    if root is None:
        return None
    try:
        return pathlib.Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return None


# ------------------------------------------------------------------ resolving


def available_implementations() -> dict[str, str]:
    """Entry-point names in ``dsh.impl`` mapped to their ``module:attr`` values."""
    points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    return {point.name: point.value for point in sorted(points, key=lambda p: p.name)}


def _describe_available() -> str:
    names = sorted(available_implementations())
    listed = ", ".join(names) if names else "none installed"
    return f"available implementations: {listed} (or give package.module:attribute)"


def _where(exc: BaseException) -> str:
    """``file:line`` of the innermost frame outside the import machinery."""
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if "importlib" not in frame.filename and frame.filename != __file__
    ]
    return f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""


def _load(spec: str) -> object:
    points = {p.name: p for p in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
    if spec in points:
        return points[spec].load()
    if ":" not in spec:
        raise ImplementationError(f"unknown implementation {spec!r}; {_describe_available()}")
    module_name, _, attribute = spec.partition(":")
    obj: object = importlib.import_module(module_name)
    for part in attribute.split("."):
        obj = getattr(obj, part)
    return obj


def resolve_implementation(spec: str) -> Implementation:
    """Find the implementation named by ``spec`` (entry-point name or import
    path) and check it (:func:`check_implementation`). Every problem, an
    exception raised while importing it included, is one
    :class:`ImplementationError` saying what to fix."""
    spec = spec.strip()
    if not spec:
        raise ImplementationError(f"no implementation given; {_describe_available()}")
    try:
        obj = _load(spec)
    except ImplementationError:
        raise
    except (ImportError, AttributeError) as exc:
        raise ImplementationError(
            f"cannot load implementation {spec!r}: {exc}{_where(exc)}; {_describe_available()}"
        ) from exc
    except Exception as exc:
        raise ImplementationError(
            f"importing implementation {spec!r} raised {type(exc).__name__}: {exc}"
            f"{_where(exc)}; fix the error in that module"
        ) from exc
    if callable(obj) and not isinstance(obj, Implementation):
        try:
            obj = obj()
        except Exception as exc:
            raise ImplementationError(
                f"calling {spec!r} to build the implementation raised "
                f"{type(exc).__name__}: {exc}{_where(exc)}"
            ) from exc
    if not isinstance(obj, Implementation):
        raise ImplementationError(
            f"{spec!r} is not an implementation (needs name, version, capabilities "
            f"and open_host()); {_describe_available()}"
        )
    problems = check_implementation(obj)
    if problems:
        raise ImplementationError(
            f"implementation {spec!r} is not usable:\n"
            + "\n".join(f"  - {problem}" for problem in problems)
        )
    return obj


# ------------------------------------------------------------------- checking


def _names(value: object) -> str:
    return ", ".join(sorted(str(v) for v in value)) if isinstance(value, Set) else repr(value)


def _check_factory(key: str, factory: object) -> list[str]:
    where = f"plugins[{key!r}]"
    problems: list[str] = []
    name = getattr(factory, "name", None)
    if not isinstance(name, str):
        problems.append(f"{where} has no string 'name' (got {factory!r}); a factory needs "
                        "name, requires and load(services, config)")
    elif name != key:
        problems.append(f"{where}.name is {name!r}; it must equal its key {key!r}")
    requires = getattr(factory, "requires", None)
    if not isinstance(requires, Set) or not all(isinstance(r, str) for r in requires):
        problems.append(f"{where}.requires must be a frozenset of service names, got {requires!r}")
    elif not set(requires) <= _SERVICES:
        problems.append(
            f"{where}.requires names unknown services {sorted(set(requires) - _SERVICES)}; "
            f"known: {', '.join(sorted(_SERVICES))}"
        )
    if not callable(getattr(factory, "load", None)):
        problems.append(f"{where} has no load(services, config) method")
    return problems


def check_implementation(obj: Implementation) -> list[str]:
    """What is wrong with an implementation object, in words (empty: nothing).

    Checks the declared fields, that every capability is known and, for an
    implementation that lists its ``plugins``, that they are a mapping of known
    plugin names (to factories with ``name``, ``requires`` and ``load`` for a
    :class:`~pytest_dsh.fake_host.implementation.PythonImplementation`) and
    that every declared capability is backed by a plugin."""
    problems: list[str] = []
    if not isinstance(obj.name, str) or not obj.name.strip():
        problems.append(f"name must be a non-empty string, got {obj.name!r}")
    if not isinstance(obj.version, str):
        problems.append(f"version must be a string, got {obj.version!r}")
    capabilities = obj.capabilities
    if not isinstance(capabilities, Set) or not all(isinstance(c, str) for c in capabilities):
        problems.append(
            f"capabilities must be a frozenset of names, got {type(capabilities).__name__} "
            f"{capabilities!r}"
        )
        capabilities = frozenset()
    unknown = set(capabilities) - KNOWN_CAPABILITIES
    if unknown:
        problems.append(
            f"unknown capabilities {sorted(unknown)}; "
            f"known: {', '.join(sorted(KNOWN_CAPABILITIES))}"
        )
    expected = getattr(obj, "expected_failures", None)
    if expected is not None and not (
        isinstance(expected, Mapping)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in expected.items())
    ):
        problems.append("expected_failures must map test ids to reasons (str -> str)")
    if not hasattr(obj, "plugins"):
        return problems  # not in-process (e.g. the Node bridge): nothing more to see
    plugins = obj.plugins
    if not isinstance(plugins, Mapping):
        problems.append(
            f"plugins must be a mapping of plugin name -> factory, got {type(plugins).__name__}; "
            f"e.g. plugins={{'schedule': SCHEDULE_FACTORY}}"
        )
        return problems
    for key, factory in plugins.items():
        if key not in KNOWN_PLUGINS:
            problems.append(
                f"unknown plugin name {key!r}; the suite loads {', '.join(sorted(KNOWN_PLUGINS))}"
            )
            continue
        if isinstance(obj, PythonImplementation):  # others may map names to e.g. npm specs
            problems.extend(_check_factory(key, factory))
    for capability in sorted(set(capabilities) & KNOWN_CAPABILITIES):
        plugin = CAPABILITY_PLUGINS[capability]
        if plugin not in plugins:
            problems.append(
                f"capability {capability!r} needs plugin {plugin!r}, which is not in plugins "
                f"({_names(set(plugins))}); add the plugin or drop the capability"
            )
    return problems

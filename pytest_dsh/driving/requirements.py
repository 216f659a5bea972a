"""What a test may need that an implementation or a host may not have: one registry.

A conformance test that cannot be assessed here must say so instead of
passing or failing for a reason that is not the plugin's. Each thing a test
can need is a :class:`Requirement` of one of three kinds, told apart by who
decides whether it is there:

``capability``
    decided by the *implementation*: it declares the capability (and brings
    the plugin that backs it). A test needing an undeclared one is skipped
    with the reason. A test says so with ``@pytest.mark.dsh_requires(name)``,
    the one marker for every kind (the suite's folders add their role).
``seam``
    decided by the *host* the implementation opens: the fake host or the Node
    bridge offers a driver call or lacks it (:data:`HOST_GAPS`). A test calls
    :func:`pytest_dsh.driving.seams.require_seam` with its host and is skipped
    with the host's reason when it is missing; a test on the ``dsh_host``
    fixture may name the seam in ``dsh_requires`` instead.
``host-behaviour``
    decided by the *DSH host profile* an npm implementation runs on: a limit
    of ``pytest_dsh/npm/host_limits.json`` names the behaviour it takes away.
    The test still runs; a failure after the limit's symptom (when a test
    declares ``@pytest.mark.dsh_requires(name)``) or of a test the limit
    lists is reported as that host limit, never against the plugin.

The existing vocabularies are views of this one: the capabilities
(:data:`CAPABILITY_PLUGINS`), the seams (:data:`pytest_dsh.driving.seams.SEAMS`)
and the behaviours a host limit may take (:func:`host_behaviours`).
docs/requirements.md lists every requirement. Importing this module loads
neither pytest nor a host.
"""

from __future__ import annotations

import unittest
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal

__all__ = [
    "CAPABILITY_PLUGINS",
    "HOSTS",
    "HOST_GAPS",
    "REQUIREMENTS",
    "DecidedBy",
    "HostKind",
    "Kind",
    "Requirement",
    "RequirementMissing",
    "host_behaviours",
    "host_gap",
    "of_kind",
    "requirement",
]

Kind = Literal["capability", "seam", "host-behaviour"]
DecidedBy = Literal["implementation", "host", "host profile"]

#: The two hosts a driver runs on: the Python fake host and the Node bridge.
HostKind = Literal["fake-host", "bridge"]
HOSTS: Final[tuple[HostKind, ...]] = ("fake-host", "bridge")

_DECIDED_BY: Final[Mapping[Kind, DecidedBy]] = {
    "capability": "implementation",
    "seam": "host",
    "host-behaviour": "host profile",
}


@dataclass(frozen=True, slots=True)
class Requirement:
    """One thing a test may need. ``provides`` says what a test relies on
    when it needs it (what is lost without it); ``plugin`` is the plugin that
    backs a capability."""

    name: str
    kind: Kind
    provides: str
    plugin: str | None = None

    @property
    def decided_by(self) -> DecidedBy:
        """Who says whether the requirement is met."""
        return _DECIDED_BY[self.kind]


class RequirementMissing(unittest.SkipTest):
    """A test cannot be assessed here: what it needs is missing.

    Raised by the helpers of :mod:`pytest_dsh.driving` (no pytest there);
    the pytest plugin turns it into a skip with this message. It is a
    :class:`unittest.SkipTest`, so Hypothesis lets it through as a skip too."""


def _capability(name: str, plugin: str, provides: str) -> Requirement:
    return Requirement(name, "capability", provides, plugin=plugin)


def _seam(name: str, provides: str) -> Requirement:
    return Requirement(name, "seam", provides)


def _behaviour(name: str, provides: str) -> Requirement:
    return Requirement(name, "host-behaviour", provides)


_ALL: Final = (
    _capability("schedule", "schedule", "the dsh-schedule plugin: its tools and owner"),
    _capability(
        "schedule-invariant",
        "schedule-invariant",
        "the dsh-schedule ./invariant companion, which checks a session's schedule log",
    ),
    _capability("time-context", "time-context", "the dsh-time-context plugin"),
    _capability(
        "time-context-invariant",
        "time-context-invariant",
        "the dsh-time-context ./invariant companion, which checks a session's readings",
    ),
    _capability(
        "process-zone",
        "time-context",
        "with timeZone omitted, the time-context plugin resolves the process zone "
        "(TZ, else the host's) once at load",
    ),
    _seam(
        "per-event-durability",
        'host.set_durability("per-event"): each appended event durable at once, so a '
        "crash can fall between any two events",
    ),
    _seam(
        "durable-change-observer",
        "counting the calls a schedule plugin's tools make to the observer its owner gave "
        "them, or making it throw",
    ),
    _seam(
        "transaction-queue",
        "occupying a plugin's per-agent transaction queue without a flush",
    ),
    _seam(
        "export-shape",
        "host.export_shape(plugin): the plugin module's exports as a Cordis loader reads them",
    ),
    _behaviour(
        "inject-into-the-step",
        "a message agent.inject() gets during an agent/pre-step dispatch is part of that "
        "step's request, logged before its step/start",
    ),
    _behaviour(
        "seed-header-as-given",
        "a seeded session's log is the seed the test gave, header included, with no event "
        "the host appends after it",
    ),
    _behaviour(
        "prompt-logged-before-step-start",
        "the prompt that opened a turn is in the log before step 1's step/start, so an "
        "attempt failing before step/start leaves it there",
    ),
)

#: Every requirement, by name.
REQUIREMENTS: Final[Mapping[str, Requirement]] = MappingProxyType({r.name: r for r in _ALL})

#: Capability -> the plugin an implementation needs to declare it. A test that
#: needs an undeclared capability is skipped with the reason, never passed.
CAPABILITY_PLUGINS: Final[Mapping[str, str]] = MappingProxyType(
    {r.name: r.plugin for r in _ALL if r.kind == "capability" and r.plugin is not None}
)

_PLUGIN_INTERNAL: Final = {
    "durable-change-observer": (
        "the observer is a callback a schedule plugin passes from its owner to its own "
        "tools; no host service sees it"
    ),
    "transaction-queue": (
        "the transaction queue is the plugin's own; the only host call it awaits is the "
        "session flush, so a test occupies it with a hung flush (fail_flushes('hang'))"
    ),
}

#: Host -> the seams it lacks, each with why. A seam not named for a host is one
#: it provides; both drivers answer ``supports``/``unsupported_reason`` from here.
HOST_GAPS: Final[Mapping[HostKind, Mapping[str, str]]] = MappingProxyType(
    {
        "fake-host": MappingProxyType(
            {
                "export-shape": (
                    "a Python plugin is a PluginFactory the implementation object names, not "
                    "a module a Cordis loader imports; the implementation check before the "
                    "run covers the factories"
                ),
                **_PLUGIN_INTERNAL,
            }
        ),
        "bridge": MappingProxyType(
            {
                "per-event-durability": (
                    "DSH's persistence writes what a flush hands it; making each append "
                    "durable at once would change the host, not configure it"
                ),
                **_PLUGIN_INTERNAL,
            }
        ),
    }
)


def requirement(name: str) -> Requirement:
    """The requirement ``name`` (``ValueError`` naming the known ones otherwise)."""
    try:
        return REQUIREMENTS[name]
    except KeyError:
        raise ValueError(
            f"unknown requirement {name!r}; expected one of {sorted(REQUIREMENTS)}"
        ) from None


def of_kind(kind: Kind) -> tuple[Requirement, ...]:
    """The requirements of ``kind``, in the registry's order."""
    return tuple(r for r in _ALL if r.kind == kind)


def host_behaviours() -> frozenset[str]:
    """The names a host limit may take away (its ``takes``)."""
    return frozenset(r.name for r in of_kind("host-behaviour"))


def host_gap(host: HostKind, seam: str) -> str:
    """Why ``host`` lacks ``seam``; empty when it provides it. ``seam`` must
    be a seam of the registry (``ValueError`` otherwise)."""
    known = REQUIREMENTS.get(seam)
    if known is None or known.kind != "seam":
        seams = [r.name for r in of_kind("seam")]
        raise ValueError(f"unknown seam {seam!r}; expected one of {seams}")
    return HOST_GAPS[host].get(seam, "")


"""Host limits: README requirements no plugin can meet on a DSH host profile.

Some README sentences ask for something the DSH host packages themselves do
not allow: on the 0.1.0-rc.8 host, ``agent.inject()`` queues a message for
the next step, so no plugin can append its reading before ``step/start``.
Such a test failing says nothing about the plugin under test, so it is not
counted against it: the kit owns one table, ``host_limits.json`` beside this
module, of the tests each host profile decides, with the requirement, the
host's behaviour and the witness plugin that shows it (docs/host-limits.md).
Each limit takes away one host behaviour, a ``host-behaviour`` requirement of
:mod:`pytest_dsh.driving.requirements` (the kit's one list of what a test may
need and not have here); the table is checked against it.

The tests still run (as non-strict expected failures): one that fails is
reported as ``host limit``, one that passes as ``host limit lifted``, so a
stale entry shows up. Unlike an implementation's known failures, the table
is applied to every npm implementation on that host, with no option.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from pytest_dsh.driving.requirements import host_behaviours

__all__ = [
    "FORMAT",
    "HostLimit",
    "host_limits",
    "limit_for",
    "limit_shown",
    "limits_table",
]

FORMAT: Final = "dsh-host-limits/1"


@dataclass(frozen=True, slots=True)
class HostLimit:
    """One limit: ``requirement`` is what the README asks, ``host_behaviour``
    what the host does instead; ``tests`` are test ids or patterns
    (relative to the ``dsh_conformance`` package; ``*`` matches any text); ``witness`` is the plugin
    folder that shows the behaviour, when there is one."""

    id: str
    sentences: tuple[str, ...]
    requirement: str
    host_behaviour: str
    tests: tuple[str, ...]
    witness: str | None
    #: What a host notes when the limit strikes (pytest_dsh.driving.host_symptoms).
    symptom: str | None = None
    #: The host behaviour the limit takes away (a ``host-behaviour`` requirement of
    #: pytest_dsh.driving.requirements): a test that declares it needs it
    #: (``@pytest.mark.dsh_requires(...)``) and fails after the symptom is the limit's.
    takes: str | None = None

    def matches(self, test_id: str) -> bool:
        return any(_pattern(pattern).fullmatch(test_id) for pattern in self.tests)

    def reason(self, host: str) -> str:
        """One line for reports: which host, what it does, what it prevents."""
        return (
            f"host limit of DSH host {host} ({self.id}): {self.host_behaviour} "
            f"README: {self.requirement}"
        )


@functools.cache
def limits_table() -> Mapping[str, Any]:
    """``host_limits.json`` as data, its format checked."""
    text = importlib.resources.files("pytest_dsh.npm").joinpath("host_limits.json").read_text(
        "utf-8"
    )
    table: dict[str, Any] = json.loads(text)
    if table.get("format") != FORMAT:
        raise ValueError(f"host_limits.json: format is not {FORMAT!r}")
    unknown = {
        name for names in table["hosts"].values() for name in names
    } - set(table["limits"])
    if unknown:
        raise ValueError(f"host_limits.json: hosts name unknown limits {sorted(unknown)}")
    known = host_behaviours()
    untaken = {
        name: entry.get("takes")
        for name, entry in table["limits"].items()
        if entry.get("takes") not in known
    }
    if untaken:
        raise ValueError(
            f"host_limits.json: limits take no known host behaviour {untaken}; "
            f"expected one of {sorted(known)} (pytest_dsh/driving/requirements.py)"
        )
    return table


@functools.cache
def _pattern(pattern: str) -> re.Pattern[str]:
    # Only "*" is special: test ids carry brackets ("[param]") literally.
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")))


def _limit(limit_id: str, entry: Mapping[str, Any]) -> HostLimit:
    witness = entry.get("witness")
    return HostLimit(
        id=limit_id,
        sentences=tuple(str(s) for s in entry["sentences"]),
        requirement=str(entry["requirement"]),
        host_behaviour=str(entry["host_behaviour"]),
        tests=tuple(str(t) for t in entry["tests"]),
        witness=str(witness) if witness else None,
        symptom=str(entry["symptom"]) if entry.get("symptom") else None,
        takes=str(entry["takes"]) if entry.get("takes") else None,
    )


@functools.cache
def host_limits(host: str) -> tuple[HostLimit, ...]:
    """The limits of DSH host profile ``host`` (none for a profile the table
    does not list). Built once per host: the collection asks for them once
    per test (:func:`limit_for`), and the table never changes in a run."""
    table = limits_table()
    return tuple(_limit(name, table["limits"][name]) for name in table["hosts"].get(host, ()))


def limit_for(host: str, test_id: str) -> HostLimit | None:
    """The limit of ``host`` that decides ``test_id``, if any."""
    return next((limit for limit in host_limits(host) if limit.matches(test_id)), None)


def limit_shown(
    host: str, symptoms: frozenset[str], needs: frozenset[str] = frozenset()
) -> HostLimit | None:
    """The limit of ``host`` that a test failing after ``symptoms`` were seen
    met: one whose symptom was seen and which takes a behaviour of ``needs``
    (what the test declares it needs). With ``needs`` left out, any limit
    whose symptom was seen (a runaway the host traced to the symptom)."""
    for limit in host_limits(host):
        if limit.symptom is None or limit.symptom not in symptoms:
            continue
        if not needs or (limit.takes is not None and limit.takes in needs):
            return limit
    return None

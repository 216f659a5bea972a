"""Small views of a JSON report document's members (its header, verdicts and
stop), made once into the report document (:mod:`.views`)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_dsh.pytest_plugin.reporting.readmes import readme_line
from pytest_dsh.pytest_plugin.reporting.verdicts import COUNTED, OUTCOMES, describe_counts, word

__all__ = [
    "TestGroup",
    "claim_clause",
    "count_columns",
    "group_tests",
    "header_lines",
    "overall_line",
    "stop_line",
    "verdict_lines",
]

_PARAMS = re.compile(r"\[.*\]$")


@dataclass
class TestGroup:
    """The runs of one test function (its parametrizations folded together)."""

    __test__ = False

    function: str
    counts: Counter[str] = field(default_factory=Counter)
    level: str = "readme"
    notable: list[Mapping[str, Any]] = field(default_factory=list)

    @property
    def status(self) -> str:
        return describe_counts(self.counts, COUNTED)

    @property
    def worst(self) -> str:
        for outcome in (
            "failed", "error", "xpassed", "xfailed", "host limit", "host limit lifted", "passed",
            "skipped",
        ):
            if self.counts.get(outcome):
                return outcome
        return "not run"


def group_tests(ids: Iterable[str], tests: Mapping[str, Mapping[str, Any]]) -> list[TestGroup]:
    """Group test ids by function; keep the failing and known-failing runs."""
    groups: dict[str, TestGroup] = {}
    for test_id in ids:
        test = tests.get(test_id)
        if test is None:
            continue
        function = _PARAMS.sub("", test_id)
        group = groups.setdefault(function, TestGroup(function, level=str(test["level"])))
        group.counts[str(test["outcome"])] += 1
        if test["outcome"] in ("failed", "error", "xpassed", "xfailed"):
            group.notable.append(test)
    return list(groups.values())


def header_lines(document: Mapping[str, Any]) -> list[str]:
    impl = document["implementation"]
    kit = document["kit"]
    expectations = document["expectations"]
    known = (
        f"{expectations['count']} known failures"
        + (f" (from {expectations['source']})" if expectations["source"] else "")
    )
    readmes = readme_line(document.get("readmes") or [])
    return [
        f"implementation: {impl['name']} {impl['version']} (--dsh-impl={impl['spec']}); "
        f"capabilities: {', '.join(impl['capabilities']) or 'none'}",
        *_host_lines(impl.get("host")),
        *([readmes] if readmes else []),
        f"levels: {', '.join(document['levels'])}; {known}",
        f"pytest-dsh {kit['version']}; tzdata {kit['tzdata']}; {document['hypothesis']['text']}",
    ]


def _host_lines(host: Mapping[str, Any] | None) -> list[str]:
    """An npm implementation's DSH host, and each peer range it was run past."""
    if not host:
        return []
    return [f"on {host['text']}", *(str(note) for note in host.get("notes", ()))]


def verdict_lines(document: Mapping[str, Any]) -> list[str]:
    """One line per level and plugin that had tests selected:
    ``readme  schedule      conforms (12 passed)``."""
    lines = []
    for level, entry in document["verdict"]["levels"].items():
        for plugin, one in entry["plugins"].items():
            if not any(one["counts"].values()):
                continue  # nothing of this level and plugin was selected
            note = f"; {one['note']}" if one["note"] else ""
            lines.append(
                f"{level:<7} {plugin:<13} {one['verdict']} ({describe_counts(one['counts'])}{note})"
            )
    return lines


def overall_line(document: Mapping[str, Any]) -> str:
    """``does not conform (exit status 1)``; a word given instead of a
    verdict says so: ``interrupted (exit status 2); no conformance claimed:
    the run was stopped before it finished``."""
    verdict = document["verdict"]
    return (
        f"{verdict['overall']} (exit status {verdict['exit_status']})"
        f"{claim_clause(str(verdict['overall']))}"
    )


def claim_clause(overall: str) -> str:
    """``; no conformance claimed: <meaning>`` after a word given instead of
    a verdict; nothing after a verdict."""
    one = word(overall)
    if one.claims:
        return ""
    return "; no conformance claimed" + (f": {one.meaning}" if one.meaning else "")


def count_columns(document: Mapping[str, Any]) -> tuple[str, ...]:
    """The count columns: "not run" only when some selected test never ran."""
    return COUNTED if document["counts"].get("not run") else OUTCOMES


def stop_line(document: Mapping[str, Any]) -> str | None:
    """Why the run stopped before every test ran, or ``None``: ``stopped after
    3 runaways (--dsh-max-runaways 3): a, b, c; 4 tests not run``."""
    stopped = document.get("stopped")  # absent from documents that predate it
    if not stopped:
        return None
    tests = stopped["tests"]
    not_run = int(stopped["not_run"])
    return (
        f"stopped after {len(tests)} runaways (--dsh-max-runaways {stopped['limit']}): "
        f"{', '.join(tests)}; {not_run} test{'s' if not_run != 1 else ''} not run, never passed"
    )


def sentence_count(sections: Sequence[Mapping[str, Any]]) -> int:
    return sum(len(section["sentences"]) for section in sections)

"""Small views of a report document that every rendering shares."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_dsh.reporting.verdicts import OUTCOMES, describe_counts

__all__ = ["TestGroup", "group_tests", "header_lines", "verdict_lines"]

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
        return describe_counts(self.counts, (*OUTCOMES, "not run"))

    @property
    def worst(self) -> str:
        for outcome in ("failed", "error", "xpassed", "xfailed", "passed", "skipped"):
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
    return [
        f"implementation: {impl['name']} {impl['version']} (--dsh-impl={impl['spec']}); "
        f"capabilities: {', '.join(impl['capabilities']) or 'none'}",
        f"levels: {', '.join(document['levels'])}; {known}",
        f"pytest-dsh {kit['version']}; tzdata {kit['tzdata']}; {document['hypothesis']['text']}",
    ]


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


def sentence_count(sections: Sequence[Mapping[str, Any]]) -> int:
    return sum(len(section["sentences"]) for section in sections)

"""The conformance report as one JSON document (format ``dsh-conformance-report/1``).

:func:`build_document` groups the failures by cause and finds the broken
behaviours, once, into the JSON document, and returns it as a
:class:`~pytest_dsh.pytest_plugin.reporting.views.ReportDocument`: every
rendering (HTML, Markdown, JSON, the terminal summary) is made from that.
Its JSON Schema is ``pytest_dsh/schemas/dsh-conformance-report-1.schema.json``
and docs/validate-your-plugin.md explains the fields.
"""

from __future__ import annotations

import importlib.resources
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from dsh_spec.pins import load_pins
from dsh_spec.sentences import SPEC_FILES, spec_sentences
from pytest_dsh.pytest_plugin.reporting.behaviours import broken_behaviours, sentence_places
from pytest_dsh.pytest_plugin.reporting.causes import group_causes
from pytest_dsh.pytest_plugin.reporting.readmes import readme_versions
from pytest_dsh.pytest_plugin.reporting.results import TestResult
from pytest_dsh.pytest_plugin.reporting.verdicts import (
    COUNTED,
    DOES_NOT_CONFORM,
    INTERRUPTED,
    NO_VERDICT,
    NOT_ASSESSED,
    combine,
    exit_status,
    group_verdict,
)
from pytest_dsh.pytest_plugin.reporting.views import ReportDocument

__all__ = [
    "FORMAT",
    "PLUGINS",
    "EarlyStop",
    "RunInfo",
    "build_document",
    "pinned_details",
    "report_schema",
]

FORMAT: Final = "dsh-conformance-report/1"
#: The plugins a verdict is given for; tests that belong to neither are "general".
PLUGINS: Final = ("schedule", "time-context")
LEVELS: Final = ("readme", "compat")


@dataclass(frozen=True)
class EarlyStop:
    """The run stopped itself after ``limit`` tests ran away
    (``--dsh-max-runaways``): those tests, in the order they ran away."""

    limit: int
    tests: tuple[str, ...]


@dataclass(frozen=True)
class RunInfo:
    """What the header and the verdict need besides the results."""

    implementation: str
    version: str
    spec: str
    capabilities: tuple[str, ...]
    kit_version: str
    tzdata: str
    hypothesis: str
    #: The seed the suite's property tests used (``None``: derandomized).
    seed: int | str | None
    levels: tuple[str, ...]
    expectations: str | None
    known_failures: int
    command: str
    #: Set when --dsh-max-runaways stopped the run before every test ran.
    stopped: EarlyStop | None = None
    #: An npm implementation's DSH host (as the header names it), and what
    #: the run was forced past on it (peer ranges that exclude the host).
    host: str | None = None
    host_version: str | None = None
    host_notes: tuple[str, ...] = ()
    #: How the seed was chosen (kit, given, explore, derandomized), the
    #: Hypothesis release that drew the examples, and the example count
    #: every property test ran (``None``: each test's own).
    seed_chosen: str | None = None
    hypothesis_version: str | None = None
    examples: int | None = None


def report_schema() -> dict[str, Any]:
    """The JSON Schema of the report document."""
    path = importlib.resources.files("pytest_dsh").joinpath(
        "schemas", "dsh-conformance-report-1.schema.json"
    )
    schema: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return schema


def pinned_details() -> dict[str, dict[str, str]]:
    """The spec's pinned details (``dsh_spec.pins``): detail id -> title, value
    (and a reference to the official notes), as text."""
    return {str(k): {str(f): str(v) for f, v in dict(d).items()} for k, d in load_pins().items()}


def _counts(results: Iterable[TestResult]) -> dict[str, int]:
    counted = Counter(result.outcome for result in results)
    return {outcome: counted.get(outcome, 0) for outcome in COUNTED}


def _verdicts(
    info: RunInfo, results: Sequence[TestResult], exitstatus: int, collection_errors: int
) -> dict[str, Any]:
    declared = {plugin for plugin in PLUGINS if plugin in info.capabilities}
    by_group: dict[tuple[str, str], list[TestResult]] = defaultdict(list)
    for result in results:
        by_group[result.level, result.plugin].append(result)
    plugins_in_run = sorted({r.plugin for r in results} | set(PLUGINS), key=_plugin_order)
    levels: dict[str, Any] = {}
    counted_by_plugin: dict[str, list[str]] = defaultdict(list)
    counted_all: list[str] = []
    for level in info.levels:
        entries: dict[str, Any] = {}
        counted: list[str] = []
        for plugin in plugins_in_run:
            group = by_group.get((level, plugin), [])
            counts = _counts(group)
            is_declared = plugin in declared or plugin not in PLUGINS
            verdict = group_verdict(counts)
            if not group:
                note = "no test of this level selected"
            elif not is_declared:
                note = f"the implementation does not declare {plugin!r}"
            else:
                note = None
            if is_declared and group:
                counted.append(verdict)
                counted_by_plugin[plugin].append(verdict)
            elif verdict != DOES_NOT_CONFORM:
                verdict = NOT_ASSESSED
            entries[plugin] = {
                "verdict": verdict,
                "counts": counts,
                "declared": is_declared,
                "counted": bool(is_declared and group),
                "note": note,
            }
        levels[level] = {"verdict": combine(counted), "plugins": entries}
        counted_all.extend(counted)
    overall = combine(counted_all)
    # A part of the suite that could not be collected was never assessed: the
    # run errs, as a test erring in setup does.
    failures_anywhere = collection_errors > 0 or any(
        r.outcome in ("failed", "error", "xpassed") for r in results
    )
    if failures_anywhere:
        overall = DOES_NOT_CONFORM
    plugins: dict[str, str | None] = {
        plugin: combine(counted_by_plugin[plugin]) if counted_by_plugin[plugin] else None
        for plugin in plugins_in_run
    }
    instead = NO_VERDICT.get(int(exitstatus))
    if instead == INTERRUPTED and collection_errors:
        # pytest stopped on the collection errors, not on a user's interruption:
        # part of the suite never ran, and the run does not conform.
        instead = None
    if instead is not None:
        # pytest ended the run early: what ran is counted, but no level,
        # plugin or run claims to conform or not.
        overall = instead
        for entry in levels.values():
            entry["verdict"] = instead
            for one in entry["plugins"].values():
                one["verdict"] = instead
        plugins = {plugin: instead if v is not None else None for plugin, v in plugins.items()}
    return {
        "overall": overall,
        "exit_status": exit_status(overall, exitstatus, failures_anywhere=failures_anywhere),
        "pytest_exit_status": int(exitstatus),
        "levels": levels,
        "plugins": plugins,
    }


def _stopped(info: RunInfo, results: Sequence[TestResult]) -> dict[str, Any] | None:
    if info.stopped is None:
        return None
    return {
        "cause": "runaways",
        "limit": info.stopped.limit,
        "tests": list(info.stopped.tests),
        "not_run": sum(1 for result in results if result.outcome == "not run"),
    }


def _plugin_order(plugin: str) -> tuple[int, str]:
    return (PLUGINS.index(plugin) if plugin in PLUGINS else len(PLUGINS), plugin)


def _sections(results: Sequence[TestResult]) -> list[dict[str, Any]]:
    tests_of: dict[str, list[str]] = defaultdict(list)
    for result in results:
        for sentence_id in result.sentences:
            tests_of[sentence_id].append(result.id)
    sections: list[dict[str, Any]] = []
    for prefix in SPEC_FILES:
        readme = spec_sentences(prefix)
        # A title used under several groups ("What the model sees") is qualified.
        groups_of: dict[str, set[str]] = defaultdict(set)
        for sentence in readme:
            groups_of[sentence.section].add(sentence.group)
        for sentence in readme:
            title = sentence.section_english or sentence.section
            if len(groups_of[sentence.section]) > 1 and sentence.group:
                title = f"{sentence.group}: {title}"
            if not sections or sections[-1]["title"] != title or (
                sections[-1]["plugin"] != sentence.plugin
            ):
                sections.append(
                    {
                        "plugin": sentence.plugin,
                        "title": title,
                        "original_title": sentence.section,
                        "sentences": [],
                    }
                )
            english = sentence.english or sentence.text
            sections[-1]["sentences"].append(
                {
                    "id": sentence.id,
                    "text": english,
                    "original": sentence.text if sentence.text != english else None,
                    "tests": sorted(tests_of.get(sentence.id, [])),
                }
            )
    return sections


def _pinned(results: Sequence[TestResult]) -> list[dict[str, Any]]:
    known = pinned_details()
    tests_of: dict[str, list[str]] = defaultdict(list)
    for result in results:
        for pin in result.pinned_details:
            tests_of[pin].append(result.id)
    return [
        {
            "id": pin,
            "title": known.get(pin, {}).get("title"),
            "value": known.get(pin, {}).get("value"),
            "tests": sorted(tests_of[pin]),
        }
        for pin in sorted(tests_of)
    ]


def build_document(
    info: RunInfo,
    results: Sequence[TestResult],
    exitstatus: int,
    collection_errors: Mapping[str, str] | None = None,
) -> ReportDocument:
    """The whole report: its JSON document and what the renderings show of
    it. ``collection_errors`` maps the node id of each collector that failed
    (a suite module that did not import, say) to its message."""
    ordered = sorted(results, key=lambda r: r.id)
    not_collected = dict(sorted((collection_errors or {}).items()))
    sections = _sections(ordered)
    tests = [result.as_json() for result in ordered]
    texts = {s["id"]: s["text"] for section in sections for s in section["sentences"]}
    titles = {pin: detail.get("title") for pin, detail in pinned_details().items()}
    grouped = group_causes(tests, texts, titles)
    behaviours = broken_behaviours(tests, grouped, sentence_places(sections))
    return ReportDocument.of({
        "format": FORMAT,
        "implementation": {
            "name": info.implementation,
            "version": info.version,
            "spec": info.spec,
            "capabilities": sorted(info.capabilities),
            **_host(info),
        },
        "kit": {"version": info.kit_version, "tzdata": info.tzdata},
        "readmes": readme_versions(),
        "hypothesis": _hypothesis(info),
        "levels": list(info.levels),
        "expectations": {"source": info.expectations, "count": info.known_failures},
        "command": info.command,
        "verdict": _verdicts(info, ordered, exitstatus, len(not_collected)),
        "stopped": _stopped(info, ordered),
        "counts": _counts(ordered),
        "collection_errors": not_collected,
        "behaviours": behaviours,
        "causes": grouped,
        "sections": sections,
        "pinned_details": _pinned(ordered),
        "tests": tests,
    })


def _hypothesis(info: RunInfo) -> dict[str, Any]:
    """The ``hypothesis`` member: the seed actually used and how it was chosen."""
    member: dict[str, Any] = {"text": info.hypothesis, "seed": info.seed}
    if info.seed_chosen is not None:
        member["chosen"] = info.seed_chosen
    if info.hypothesis_version is not None:
        member["version"] = info.hypothesis_version
    member["examples"] = info.examples
    return member


def _host(info: RunInfo) -> dict[str, Any]:
    """The ``host`` member of an npm implementation (none for others)."""
    if info.host is None:
        return {}
    return {
        "host": {"version": info.host_version, "text": info.host, "notes": list(info.host_notes)}
    }

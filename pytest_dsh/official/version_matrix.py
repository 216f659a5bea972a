"""The version matrix: the conformance suite over every published version of
the official plugins, on every DSH host profile, as one table.

``python -m pytest_dsh.official.version_matrix --out DIR`` asks the npm registry for the
published versions of ``@deepseek-ai/dsh-schedule`` and
``@deepseek-ai/dsh-time-context``, runs the suite once per *cell* (one package
version on one host profile, ``--dsh-impl=npm``, its role alone) and writes
``DIR/version-matrix.json``, ``.html`` and ``.md``: README sections x
requirement levels x cells, with pass / fail / known / host-limit counts, and
the tests that flip between neighbouring versions and neighbouring hosts.

A cell is a whole suite run (about a minute), so each is kept in the cell
cache (``--cells DIR``, default ``DIR/cells``) as soon as it ends: a later
call runs only the cells that are missing (``--rerun`` runs them all again).
A package version whose peer dependencies exclude a host cannot be installed
there; that cell says so instead of counting anything. docs/version-matrix.md
shows a real run and what it says.

The cell cache is the operator's folder: a cached ``cell.json`` or
``report.json`` that is truncated, edited into another shape, not a regular
file or larger than the kit reads is a missing cell, run again (never a
traceback, never a table built on it); ``cell.json`` is written by
write-then-rename, after the report. Each cell's pytest runs in a process
group of its own, which the matrix ends (the bridge's Node processes with
it) when it is stopped by SIGTERM, SIGINT or SIGHUP (one it was started
with ignored, as under ``nohup``, stays ignored), or leaves by an error.
"""

from __future__ import annotations

import argparse
import contextlib
import html
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Final

from pytest_dsh.npm._files import UnreadableFileError, read_json
from pytest_dsh.npm.hosts import HOST_PROFILES
from pytest_dsh.official import OFFICIAL_PACKAGE_NAMES, load_expectations

__all__ = [
    "CATEGORIES",
    "FORMAT",
    "PACKAGES",
    "Cell",
    "CellResult",
    "build_table",
    "categorise",
    "main",
    "published_versions",
    "render_html",
    "render_markdown",
    "run_cells",
    "run_child",
    "version_key",
]

FORMAT: Final = "dsh-version-matrix/1"
#: The official plugins, by the role they fill.
#: The official package of each role (the matrix runs their published versions).
PACKAGES: Final[Mapping[str, str]] = OFFICIAL_PACKAGE_NAMES
#: What a cell counts per README section and level, in table order:
#: ``known`` is a failure the official build's expectations list
#: (docs/deviations.md); ``host limit`` a test the host decides
#: (docs/host-limits.md), ``lifted`` one of those that passed anyway.
CATEGORIES: Final = ("pass", "fail", "known", "host limit", "lifted", "skipped")
#: The status of a cell that could not be installed on its host.
CANNOT_INSTALL: Final = "cannot install"
#: Budgets of one cell's run: a version that never settles costs seconds, not minutes.
_CELL_OPTIONS: Final = ("--dsh-wall-budget=20", "--dsh-max-runaways=5")
_PEER_PROBLEM = re.compile(r"incompatible peer version|ERESOLVE")
#: The statuses a cell may have.
_STATUSES: Final = frozenset({"ran", CANNOT_INSTALL, "no report"})
#: The largest cached file read: a cell record is ~300 bytes, a report ~2 MB.
_CELL_LIMIT: Final = 1 << 20
_REPORT_LIMIT: Final = 256 << 20
#: How long a cell's process group gets to end after SIGTERM before SIGKILL.
_GRACE_S: Final = 10.0


def version_key(version: str) -> tuple[Any, ...]:
    """Semantic-version order: ``0.0.1-rc.3 < 0.1.0-rc.1 < 0.1.0-rc.8 < 0.1.0``."""
    core, _, pre = version.partition("-")
    numbers = tuple(int(part) if part.isdigit() else 0 for part in core.split("."))
    if not pre:
        return (numbers, 1, ())
    ids = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    return (numbers, 0, ids)


@dataclass(frozen=True, slots=True)
class Cell:
    """One package version of one role on one DSH host profile."""

    role: str
    version: str
    host: str

    @property
    def key(self) -> str:
        return f"{self.role}@{self.version} on {self.host}"

    @property
    def folder_name(self) -> str:
        return f"{self.role}-{self.version}-host-{self.host}"

    @property
    def package(self) -> str:
        return f"{PACKAGES[self.role]}@{self.version}"


@dataclass(frozen=True, slots=True)
class CellResult:
    """How a cell ended: ``ran`` with its report document, or
    ``cannot install`` / ``no report`` with the reason."""

    cell: Cell
    status: str
    message: str
    exit_status: int | None
    seconds: float
    document: Mapping[str, Any] | None


def published_versions(package: str, npm: str = "npm") -> list[str]:
    """Every version of ``package`` the registry lists, oldest first."""
    done = subprocess.run(
        [npm, "view", package, "versions", "--json"],
        capture_output=True, text=True, check=True, timeout=300,
    )
    found = json.loads(done.stdout)
    versions = [found] if isinstance(found, str) else [str(v) for v in found]
    return sorted(versions, key=version_key)


# -- running cells ---------------------------------------------------------

#: Runs one cell: (cell, report path) -> (exit status, output).
Runner = Callable[[Cell, Path], tuple[int, str]]


def _end_group(process: subprocess.Popen[str]) -> None:
    """End ``process`` and everything in its process group: SIGTERM (pytest
    closes its bridges), then SIGKILL for what is left after the grace."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=_GRACE_S)
        except subprocess.TimeoutExpired:
            continue
        if sig == signal.SIGTERM:
            # The leader is gone; what it started may linger in its group.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        return


def run_child(command: Sequence[str], *, timeout: float = 3600.0) -> tuple[int, str]:
    """Run ``command`` in a process group of its own and return its exit
    status and output; the group is ended if the caller is interrupted
    (KeyboardInterrupt, or a signal :func:`main` turns into an exception) or the command
    overruns ``timeout``, so no cell's pytest outlives the matrix."""
    process = subprocess.Popen(
        list(command), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _end_group(process)
        output, _ = process.communicate()
        return process.returncode, (output or "") + f"\n(stopped after {timeout:.0f} s)"
    except BaseException:
        _end_group(process)
        raise
    finally:
        if process.poll() is None:  # pragma: no cover - defensive
            _end_group(process)
    return process.returncode, output


def suite_runner(extra: Sequence[str] = ()) -> Runner:
    """A runner that starts ``python -m pytest`` on the installed suite."""

    def run(cell: Cell, report: Path) -> tuple[int, str]:
        command = [
            sys.executable, "-m", "pytest", "--pyargs", "dsh_conformance", "-q",
            "-p", "no:cacheprovider", "-p", "no:randomly",
            "--dsh-impl=npm", f"--dsh-npm={cell.role}={cell.package}",
            f"--dsh-host={cell.host}", f"--dsh-report={report}", *_CELL_OPTIONS, *extra,
        ]
        return run_child(command)

    return run


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _document_problem(document: object) -> str | None:
    """Why ``document`` is not a report the table can be built from (None:
    it is): the fields :func:`build_table` reads, of the types it reads."""
    if not isinstance(document, dict):
        return "is not a JSON object"
    tests = document.get("tests")
    if not isinstance(tests, list):
        return "has no list of tests"
    for test in tests:
        if not isinstance(test, dict) or not all(
            isinstance(test.get(field), str) for field in ("id", "outcome", "level", "plugin")
        ):
            return "has a test without its id, outcome, level and plugin"
    verdict = document.get("verdict")
    if not isinstance(verdict, dict) or not isinstance(verdict.get("overall"), str):
        return "has no overall verdict"
    sections = document.get("sections", [])
    if not isinstance(sections, list):
        return "has sections that are not a list"
    for section in sections:
        if not isinstance(section, dict) or not all(
            isinstance(section.get(field), str) for field in ("plugin", "title")
        ) or not isinstance(section.get("sentences"), list):
            return "has a section without its plugin, title and sentences"
        for sentence in section["sentences"]:
            if not isinstance(sentence, dict) or not _strings(sentence.get("tests")):
                return "has a sentence without its list of tests"
    return None


def _cached_report(report: Path) -> tuple[Mapping[str, Any] | None, str | None]:
    """The report document at ``report``, or None and why it cannot be used."""
    try:
        document = read_json(report, _REPORT_LIMIT)
    except UnreadableFileError as exc:
        return None, str(exc)
    problem = _document_problem(document)
    if problem is not None:
        return None, f"{report}: {problem}"
    assert isinstance(document, dict)
    return document, None


def _result_of(cell: Cell, folder: Path) -> CellResult | None:
    """The cached result of ``cell``, or None when there is none or it cannot
    be used (then the cell runs again)."""
    try:
        data = read_json(folder / "cell.json", _CELL_LIMIT)
    except UnreadableFileError:
        return None
    if not isinstance(data, dict) or data.get("cell") != cell.key:
        return None
    status, message = data.get("status"), data.get("message")
    exit_status, seconds = data.get("exit_status"), data.get("seconds", 0.0)
    if status not in _STATUSES or not isinstance(message, str):
        return None
    if not (exit_status is None or type(exit_status) is int) or not (
        isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
    ):
        return None
    document = None
    if status == "ran":
        document, _ = _cached_report(folder / "report.json")
        if document is None:
            return None
    return CellResult(cell, status, message, exit_status, float(seconds), document)


def _write_atomically(path: Path, text: str) -> None:
    partial = path.with_name(f".{path.name}.partial")
    partial.unlink(missing_ok=True)
    with open(partial, "x", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, path)


def run_cell(
    cell: Cell, cells_dir: Path, runner: Runner, *,
    rerun: bool = False, clock: Callable[[], float] = time.monotonic,
) -> CellResult:
    """The cell's result from the cache, or from a run stored there first."""
    folder = cells_dir / cell.folder_name
    if not rerun:
        cached = _result_of(cell, folder)
        if cached is not None:
            return cached
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cell.json").unlink(missing_ok=True)
    report = folder / "report.json"
    report.unlink(missing_ok=True)
    started = clock()
    status, output = runner(cell, report)
    seconds = clock() - started
    document, unusable = _cached_report(report) if os.path.lexists(report) else (None, None)
    if document is not None:
        state, message = "ran", f"exit status {status}"
    elif unusable is not None:
        state, message = "no report", f"exit status {status}; {unusable}"
    elif _PEER_PROBLEM.search(output):
        # The refusal and the lines of npm's that follow it (which peer, which range).
        lines = [line.strip() for line in output.splitlines() if line.strip()]
        first = next(i for i, line in enumerate(lines) if _PEER_PROBLEM.search(line))
        state, message = CANNOT_INSTALL, " / ".join(lines[first:first + 4])
    else:
        tail = [line for line in output.splitlines() if line.strip()][-3:]
        state, message = "no report", " / ".join(tail) or f"exit status {status}"
    # Written last: a cell killed mid-run has no cell.json and runs again.
    record = {"cell": cell.key, "status": state, "message": message[:500],
              "exit_status": status, "seconds": round(seconds, 1)}
    _write_atomically(folder / "cell.json", json.dumps(record, indent=1) + "\n")
    return CellResult(cell, state, message[:500], status, round(seconds, 1), document)


def run_cells(
    cells: Iterable[Cell], cells_dir: Path, runner: Runner, *,
    rerun: bool = False, progress: Callable[[str], None] = print,
) -> list[CellResult]:
    results = []
    for cell in cells:
        result = run_cell(cell, cells_dir, runner, rerun=rerun)
        progress(f"{cell.key}: {result.status} ({result.message}, {result.seconds:.0f} s)")
        results.append(result)
    return results


# -- the table -------------------------------------------------------------


def categorise(test: Mapping[str, Any], known: Iterable[str] | Mapping[str, Any]) -> str | None:
    """A report row's table category; ``None`` for rows the table leaves out
    (tests of the role not under test are skipped in every cell)."""
    outcome = test["outcome"]
    if outcome == "passed":
        return "pass"
    if outcome == "host limit":
        return "host limit"
    if outcome == "host limit lifted":
        return "lifted"
    if outcome == "skipped":
        return "skipped"
    if outcome in ("failed", "error", "xpassed", "xfailed", "not run"):
        return "known" if test["id"] in known else "fail"
    return None


def _sections_of(document: Mapping[str, Any], role: str) -> dict[str, list[str]]:
    """README section title -> the test ids that check one of its sentences,
    for the role's plugin, in README order."""
    sections: dict[str, list[str]] = {}
    for section in document.get("sections", []):
        if section["plugin"] != role:
            continue
        ids = sections.setdefault(section["title"], [])
        for sentence in section["sentences"]:
            ids.extend(t for t in sentence["tests"] if t not in ids)
    return sections


def _cell_entry(result: CellResult, known: Mapping[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "role": result.cell.role,
        "version": result.cell.version,
        "host": result.cell.host,
        "status": result.status,
        "message": result.message,
        "seconds": round(result.seconds),
    }
    document = result.document
    if document is None:
        return entry
    tests = {t["id"]: t for t in document["tests"]}
    mine = {i: t for i, t in tests.items() if t["plugin"] in (result.cell.role, "general")}
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    for test in mine.values():
        category = categorise(test, known)
        if category is not None:
            totals[test["level"]][category] += 1
    sections: dict[str, dict[str, dict[str, int]]] = {}
    for title, ids in _sections_of(document, result.cell.role).items():
        by_level: dict[str, Counter[str]] = defaultdict(Counter)
        for test_id in ids:
            test = tests.get(test_id)
            if test is None:
                continue
            category = categorise(test, known)
            if category is not None and category != "skipped":
                by_level[test["level"]][category] += 1
        sections[title] = {level: dict(c) for level, c in sorted(by_level.items())}
    entry["verdict"] = document["verdict"]["overall"]
    entry["totals"] = {level: dict(c) for level, c in sorted(totals.items())}
    entry["sections"] = sections
    entry["outcomes"] = {i: categorise(t, known) for i, t in sorted(mine.items())}
    return entry


def _state(category: str | None) -> str | None:
    if category in ("pass", "lifted"):
        return "pass"
    if category in ("fail", "known", "host limit"):
        return "fail"
    return category


def _flips(before: Mapping[str, Any], after: Mapping[str, Any], axis: str) -> dict[str, Any]:
    old, new = before["outcomes"], after["outcomes"]
    # A flip changes whether the test passes (or runs): a known failure that
    # became a host limit is the same behaviour, classified anew.
    changed = {
        test_id: [old.get(test_id), new.get(test_id)]
        for test_id in sorted(set(old) | set(new))
        if _state(old.get(test_id)) != _state(new.get(test_id))
    }
    return {
        "axis": axis,
        "role": after["role"],
        "from": {"version": before["version"], "host": before["host"]},
        "to": {"version": after["version"], "host": after["host"]},
        "count": len(changed),
        "tests": changed,
    }


def _ran_only(entries: Iterable[Mapping[str, Any] | None]) -> list[Mapping[str, Any]]:
    return [entry for entry in entries if entry is not None and "outcomes" in entry]


def build_table(
    results: Sequence[CellResult],
    known: Mapping[str, Any],
    hosts: Sequence[str],
    *, keep_outcomes: bool = False,
) -> dict[str, Any]:
    """The matrix document from cell results: cells with counts per README
    section and level, and the tests that flip between each pair of
    neighbouring versions (same role and host) and neighbouring hosts (same
    version). ``known`` maps test ids to the official build's expectations."""
    entries = {r.cell.key: _cell_entry(r, known) for r in results}
    roles: dict[str, list[str]] = defaultdict(list)
    for result in results:
        if result.cell.version not in roles[result.cell.role]:
            roles[result.cell.role].append(result.cell.version)
    for versions in roles.values():
        versions.sort(key=version_key)
    flips: list[dict[str, Any]] = []
    for role, versions in roles.items():
        # Neighbours are the nearest cells that ran: one that could not
        # install is stepped over.
        for host in hosts:
            row = _ran_only(entries.get(Cell(role, v, host).key) for v in versions)
            flips += [_flips(a, b, "version") for a, b in itertools.pairwise(row)]
        for version in versions:
            column = _ran_only(entries.get(Cell(role, version, h).key) for h in hosts)
            flips += [_flips(a, b, "host") for a, b in itertools.pairwise(column)]
    if not keep_outcomes:
        for entry in entries.values():
            entry.pop("outcomes", None)
    return {
        "format": FORMAT,
        "categories": list(CATEGORIES),
        "hosts": list(hosts),
        "packages": {role: {"name": PACKAGES.get(role, role), "versions": v}
                     for role, v in roles.items()},
        "cells": entries,
        "flips": flips,
    }


# -- renderings ------------------------------------------------------------


def _short(counts: Mapping[str, int] | None) -> str:
    if not counts:
        return "-"
    marks = {"pass": "", "fail": "F", "known": "K", "host limit": "H", "lifted": "L"}
    total = sum(counts.get(c, 0) for c in marks)
    parts = [f"{counts.get('pass', 0)}/{total}"]
    parts += [f"{counts[c]}{m}" for c, m in marks.items() if m and counts.get(c)]
    return " ".join(parts)


def _columns(table: Mapping[str, Any], role: str) -> list[Mapping[str, Any]]:
    versions = table["packages"][role]["versions"]
    return [
        table["cells"][key]
        for version in versions for host in table["hosts"]
        if (key := Cell(role, version, host).key) in table["cells"]
    ]


def _rows(columns: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for column in columns:
        for title, levels in column.get("sections", {}).items():
            for level in levels:
                if (title, level) not in rows:
                    rows.append((title, level))
    order = {"readme": 0, "compat": 1}
    titles = list(dict.fromkeys(title for title, _ in rows))
    return sorted(rows, key=lambda r: (titles.index(r[0]), order.get(r[1], 2)))


def render_markdown(table: Mapping[str, Any]) -> str:
    """One table per role: README section and level x cells; cell text is
    ``passed/total`` then ``nF`` failed, ``nK`` known, ``nH`` host limit,
    ``nL`` host limit lifted."""
    lines: list[str] = []
    for role in table["packages"]:
        columns = _columns(table, role)
        if not columns:
            continue
        lines += ["", f"### {table['packages'][role]['name']}", ""]
        head = [f"{c['version']} on {c['host']}" for c in columns]
        lines += ["| README section | level | " + " | ".join(head) + " |",
                  "|---|---|" + "---|" * len(columns)]
        status = [
            c.get("verdict", c["status"]) if c["status"] == "ran" else f"**{c['status']}**"
            for c in columns
        ]
        lines.append("| **verdict** | | " + " | ".join(status) + " |")
        for level in ("readme", "compat"):
            cells = [_short(c.get("totals", {}).get(level)) for c in columns]
            lines.append(f"| **all tests** | {level} | " + " | ".join(cells) + " |")
        for title, level in _rows(columns):
            cells = [_short(c.get("sections", {}).get(title, {}).get(level)) for c in columns]
            lines.append(f"| {title} | {level} | " + " | ".join(cells) + " |")
    flips = [f for f in table["flips"] if f["count"]]
    lines += ["", "### Tests that flip between neighbours", ""]
    if not flips:
        lines.append("None.")
    for flip in flips:
        a, b = flip["from"], flip["to"]
        lines.append(
            f"- {flip['role']} {a['version']} on {a['host']} → {b['version']} on {b['host']}: "
            f"{flip['count']} tests"
        )
    return "\n".join(lines).lstrip("\n") + "\n"


_HTML_CSS = """
body{font-family:system-ui,sans-serif;margin:1rem auto;max-width:90rem;padding:0 1rem;color:#1b1f24}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #d0d7de;padding:.25rem .5rem}
th{background:#f6f8fa;font-size:.85rem}td.c{text-align:center;font-family:monospace;white-space:nowrap}
.all{background:#dafbe1}.some{background:#fff8c5}.none{background:#ffebe9}.na{background:#eaeef2}
code{font-size:.8rem}details{margin:.4rem 0}
"""


def _tone(counts: Mapping[str, int] | None) -> str:
    if not counts:
        return "na"
    if counts.get("fail"):
        return "none" if not counts.get("pass") else "some"
    return "all" if not counts.get("known") else "some"


def render_html(table: Mapping[str, Any]) -> str:
    """The matrix as one self-contained page, in the manner of wpt.fyi."""
    esc = html.escape
    out = ["<!doctype html><html lang=en><meta charset=utf-8>",
           "<title>DSH plugin version matrix</title>", f"<style>{_HTML_CSS}</style>",
           "<h1>DSH plugin version matrix</h1>",
           "<p>Cells: passed/total, then F failed, K known (the official build's listed "
           "failures), H host limit, L host limit lifted. Hosts are DSH host profiles.</p>"]
    for role in table["packages"]:
        columns = _columns(table, role)
        if not columns:
            continue
        out.append(f"<h2>{esc(table['packages'][role]['name'])}</h2><table><tr>"
                   "<th>README section</th><th>level</th>")
        out += [f"<th>{esc(c['version'])}<br>on {esc(c['host'])}</th>" for c in columns]
        out.append("</tr><tr><th>verdict</th><th></th>")
        for c in columns:
            # A cell that did not run names why on hover: npm's lines are long.
            text = c.get("verdict", "") if c["status"] == "ran" else c["status"]
            out.append(f"<td class=c title='{esc(c['message'])}'>{esc(text)}</td>")
        out.append("</tr>")
        rows = [("all tests", level, [c.get("totals", {}).get(level) for c in columns])
                for level in ("readme", "compat")]
        rows += [(title, level, [c.get("sections", {}).get(title, {}).get(level) for c in columns])
                 for title, level in _rows(columns)]
        for title, level, counts in rows:
            out.append(f"<tr><td>{esc(title)}</td><td>{esc(level)}</td>")
            out += [f"<td class='c {_tone(n)}'>{esc(_short(n))}</td>" for n in counts]
            out.append("</tr>")
        out.append("</table>")
        out += [
            f"<p><b>{esc(c['version'])} on {esc(c['host'])}: {esc(c['status'])}</b>: "
            f"{esc(c['message'])}</p>"
            for c in columns if c["status"] != "ran"
        ]
    out.append("<h2>Tests that flip between neighbours</h2>")
    for flip in table["flips"]:
        a, b = flip["from"], flip["to"]
        out.append(f"<details><summary>{esc(flip['role'])} {esc(a['version'])} on "
                   f"{esc(a['host'])} → {esc(b['version'])} on {esc(b['host'])}: "
                   f"{flip['count']} tests</summary><table><tr><th>test</th><th>before</th>"
                   "<th>after</th></tr>")
        out += [
            f"<tr><td><code>{esc(t)}</code></td><td>{esc(str(o))}</td><td>{esc(str(n))}</td></tr>"
            for t, (o, n) in flip["tests"].items()
        ]
        out.append("</table></details>")
    return "\n".join(out) + "\n"


# -- command ---------------------------------------------------------------


def _official_known() -> dict[str, Any]:
    return dict(load_expectations())


class _Stopped(Exception):
    """The matrix received a signal that asks it to stop."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[None]:
    """SIGTERM, SIGHUP and SIGINT raise :class:`_Stopped`, so the running
    cell's process group is ended on the way out instead of being left running.

    Only the first one raises: a second signal (Ctrl-C pressed again) would
    otherwise cut the ending of the cell short and leave what it started
    running; that ending is bounded by its grace, then SIGKILL. A signal the
    matrix was started with ignored stays ignored, as Python leaves an ignored
    SIGINT: ``nohup`` ignores SIGHUP so that a long matrix outlives its
    terminal, and a shell without job control starts a background command
    with SIGINT ignored. SIGINT is taken only from Python's default handler."""
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        if not stopping:
            stopping = True
            raise _Stopped(signum)

    previous = {}
    for name in ("SIGTERM", "SIGHUP", "SIGINT"):
        sig = getattr(signal, name, None)
        if sig is None:
            continue
        current = signal.getsignal(sig)
        taken = current is signal.default_int_handler if name == "SIGINT" \
            else current is not signal.SIG_IGN
        if taken:
            previous[sig] = signal.signal(sig, stop)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_dsh.official.version_matrix",
        description="Run the conformance suite over every published version of the official "
        "DSH plugins on every DSH host profile, and write the table.",
    )
    parser.add_argument("--out", type=Path, default=Path("version-matrix"),
                        help="folder for version-matrix.json, .html and .md")
    parser.add_argument("--cells", type=Path, default=None,
                        help="the cell cache (default OUT/cells): finished cells are reused")
    parser.add_argument("--host", action="append", dest="hosts", metavar="VERSION",
                        help="a DSH host profile (repeatable; default every profile)")
    parser.add_argument("--role", action="append", dest="roles", choices=sorted(PACKAGES),
                        help="a plugin role (repeatable; default both)")
    parser.add_argument("--version", action="append", dest="versions", metavar="VERSION",
                        help="only these package versions (default every published one)")
    parser.add_argument("--rerun", action="store_true", help="run cached cells again")
    parser.add_argument("--npm", default="npm", help="the npm command (default npm)")
    args = parser.parse_args(argv)
    hosts = sorted(args.hosts or HOST_PROFILES, key=version_key)
    unknown = [h for h in hosts if h not in HOST_PROFILES]
    if unknown:
        parser.error(f"no DSH host profile {', '.join(unknown)}; known: {', '.join(HOST_PROFILES)}")
    cells = []
    for role in args.roles or list(PACKAGES):
        try:
            versions = published_versions(PACKAGES[role], args.npm)
        except (OSError, subprocess.SubprocessError, ValueError, TypeError) as exc:
            parser.error(f"cannot list the published versions of {PACKAGES[role]} "
                         f"with {args.npm}: {exc}")
        cells += [Cell(role, version, host) for version in versions
                  if not args.versions or version in args.versions for host in hosts]
    cells_dir = args.cells or args.out / "cells"
    try:
        with _stop_on_signals():
            results = run_cells(cells, cells_dir, suite_runner(), rerun=args.rerun)
    except (_Stopped, KeyboardInterrupt) as exc:
        signum = exc.signum if isinstance(exc, _Stopped) else signal.SIGINT
        print(f"version matrix stopped by {signal.Signals(signum).name}: the running cell was "
              f"ended; finished cells are kept in {cells_dir}", file=sys.stderr)
        return 128 + signum
    except OSError as exc:
        parser.error(f"the cell cache {cells_dir} cannot be used: {exc}")
    table = build_table(results, _official_known(), hosts)
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        _write_atomically(args.out / "version-matrix.json", json.dumps(table, indent=1) + "\n")
        _write_atomically(args.out / "version-matrix.html", render_html(table))
        _write_atomically(args.out / "version-matrix.md", render_markdown(table))
    except OSError as exc:
        parser.error(f"cannot write the table into {args.out}: {exc}")
    print(f"wrote {args.out / 'version-matrix.json'}, .html, .md ({len(results)} cells)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

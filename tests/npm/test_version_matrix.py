"""The version matrix's table builder and cell cache, on crafted reports:
counts per README section and level, known failures and host limits kept
apart, cells that cannot install, flips between neighbours, and cells that
are reused instead of run again. The real run (docs/version-matrix.md) is
not part of these tests: it needs the registry and about a minute a cell."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_dsh.official.version_matrix import (
    Cell,
    CellResult,
    build_table,
    categorise,
    render_html,
    render_markdown,
    run_cell,
    run_cells,
    version_key,
)

HOSTS = ["0.1.0-rc.8", "0.1.1-rc.2"]


def _test(test_id: str, outcome: str, *, level: str = "readme", plugin: str = "schedule",
          sentences: tuple[str, ...] = ("SCH-1",)) -> dict[str, Any]:
    return {"id": test_id, "outcome": outcome, "level": level, "plugin": plugin,
            "sentences": list(sentences)}


def _document(tests: list[dict[str, Any]], overall: str = "does not conform") -> dict[str, Any]:
    sections = [
        {"plugin": "schedule", "title": "Tools", "sentences": [
            {"id": "SCH-1", "tests": [t["id"] for t in tests if "SCH-1" in t["sentences"]]}]},
        {"plugin": "schedule", "title": "Replay", "sentences": [
            {"id": "SCH-2", "tests": [t["id"] for t in tests if "SCH-2" in t["sentences"]]}]},
        {"plugin": "time-context", "title": "Timing", "sentences": [
            {"id": "TC-1", "tests": [t["id"] for t in tests if "TC-1" in t["sentences"]]}]},
    ]
    return {"tests": tests, "sections": sections, "verdict": {"overall": overall}}


def _ran(version: str, host: str, tests: list[dict[str, Any]]) -> CellResult:
    return CellResult(Cell("schedule", version, host), "ran", "exit status 1", 1, 60.0,
                      _document(tests))


def test_versions_sort_as_semantic_versions_with_pre_releases():
    found = sorted(["0.1.0-rc.8", "0.1.0", "0.0.1-rc.3", "0.1.0-rc.10", "0.1.1-rc.2"],
                   key=version_key)
    assert found == ["0.0.1-rc.3", "0.1.0-rc.8", "0.1.0-rc.10", "0.1.0", "0.1.1-rc.2"]


def test_outcomes_fall_into_the_tables_categories():
    known = {"a": {}}
    assert categorise({"id": "b", "outcome": "passed"}, known) == "pass"
    assert categorise({"id": "a", "outcome": "failed"}, known) == "known"
    assert categorise({"id": "b", "outcome": "failed"}, known) == "fail"
    assert categorise({"id": "b", "outcome": "error"}, known) == "fail"
    assert categorise({"id": "b", "outcome": "not run"}, known) == "fail"
    assert categorise({"id": "a", "outcome": "host limit"}, known) == "host limit"
    assert categorise({"id": "a", "outcome": "host limit lifted"}, known) == "lifted"


def test_a_cell_counts_each_section_and_level_and_leaves_the_other_role_out():
    tests = [
        _test("t/a", "passed"),
        _test("t/b", "failed"),
        _test("t/c", "failed", sentences=("SCH-1", "SCH-2")),
        _test("t/d", "host limit", level="compat", sentences=("SCH-2",)),
        _test("t/e", "skipped", plugin="time-context", sentences=("TC-1",)),
    ]
    table = build_table([_ran("0.1.0-rc.8", HOSTS[0], tests)], {"t/c": {}}, HOSTS[:1])
    cell = table["cells"]["schedule@0.1.0-rc.8 on 0.1.0-rc.8"]
    assert cell["sections"] == {
        "Tools": {"readme": {"pass": 1, "fail": 1, "known": 1}},
        "Replay": {"compat": {"host limit": 1}, "readme": {"known": 1}},
    }
    assert cell["totals"] == {"compat": {"host limit": 1},
                              "readme": {"pass": 1, "fail": 1, "known": 1}}
    assert "outcomes" not in cell  # the committed table stays small
    assert table["packages"]["schedule"]["versions"] == ["0.1.0-rc.8"]


def test_a_cell_that_cannot_install_says_so_and_counts_nothing():
    refused = CellResult(Cell("schedule", "0.0.1-rc.3", HOSTS[0]), "cannot install",
                         "incompatible peer version: @deepseek-ai/dsh-agent@^0.0.1-rc.3", 4,
                         5.0, None)
    table = build_table([refused, _ran("0.1.0-rc.8", HOSTS[0], [_test("t/a", "passed")])],
                        {}, HOSTS[:1])
    cell = table["cells"]["schedule@0.0.1-rc.3 on 0.1.0-rc.8"]
    assert cell["status"] == "cannot install" and "sections" not in cell
    assert table["flips"] == []  # nothing to compare with a cell that did not run
    markdown = render_markdown(table)
    assert "**cannot install**" in markdown
    page = render_html(table)
    assert "<td class=c title='incompatible peer version" in page
    assert "0.0.1-rc.3 on 0.1.0-rc.8: cannot install</b>: incompatible peer version" in page


def test_flips_name_the_tests_that_change_between_neighbouring_versions_and_hosts():
    old = _ran("0.0.1-rc.3", HOSTS[0], [_test("t/a", "failed"), _test("t/b", "passed")])
    new = _ran("0.1.0-rc.8", HOSTS[0], [_test("t/a", "passed"), _test("t/b", "passed")])
    other_host = _ran("0.1.0-rc.8", HOSTS[1], [_test("t/a", "passed"), _test("t/b", "failed")])
    table = build_table([new, other_host, old], {}, HOSTS)
    by_axis = {(f["axis"], f["from"]["version"], f["to"]["host"]): f for f in table["flips"]}
    version_flip = by_axis["version", "0.0.1-rc.3", HOSTS[0]]
    assert version_flip["tests"] == {"t/a": ["fail", "pass"]}
    host_flip = by_axis["host", "0.1.0-rc.8", HOSTS[1]]
    assert host_flip["tests"] == {"t/b": ["pass", "fail"]}
    assert set(by_axis) == {("version", "0.0.1-rc.3", HOSTS[0]), ("host", "0.1.0-rc.8", HOSTS[1])}
    assert "0.0.1-rc.3 on 0.1.0-rc.8 → 0.1.0-rc.8 on 0.1.0-rc.8: 1 tests" in render_markdown(table)


def test_the_markdown_table_has_one_column_per_cell_in_version_then_host_order():
    cells = [_ran(v, h, [_test("t/a", "passed")]) for v in ("0.1.0-rc.8", "0.0.1-rc.3")
             for h in reversed(HOSTS)]
    markdown = render_markdown(build_table(cells, {}, HOSTS))
    header = next(line for line in markdown.splitlines() if line.startswith("| README section"))
    assert header.split(" | ")[2:] == [
        "0.0.1-rc.3 on 0.1.0-rc.8", "0.0.1-rc.3 on 0.1.1-rc.2",
        "0.1.0-rc.8 on 0.1.0-rc.8", "0.1.0-rc.8 on 0.1.1-rc.2 |",
    ]
    assert "| Tools | readme | 1/1 | 1/1 | 1/1 | 1/1 |" in markdown


def _writing_runner(calls: list[Cell], document: dict[str, Any] | None, output: str = ""):
    def run(cell: Cell, report: Path) -> tuple[int, str]:
        calls.append(cell)
        if document is not None:
            report.write_text(json.dumps(document), "utf-8")
        return (1 if document is not None else 4), output
    return run


def test_a_finished_cell_is_reused_and_rerun_runs_it_again(tmp_path):
    calls: list[Cell] = []
    runner = _writing_runner(calls, _document([_test("t/a", "passed")], "conforms"))
    cell = Cell("schedule", "0.1.0-rc.8", HOSTS[0])
    ticks = iter([10.0, 70.0])
    first = run_cell(cell, tmp_path, runner, clock=lambda: next(ticks))
    again = run_cells([cell], tmp_path, runner, progress=lambda _: None)[0]
    assert calls == [cell]
    assert first.status == again.status == "ran" and again.seconds == 60.0
    assert again.document is not None and again.document["verdict"]["overall"] == "conforms"
    run_cell(cell, tmp_path, runner, rerun=True, clock=lambda: 0.0)
    assert calls == [cell, cell]


def test_a_cell_interrupted_before_its_record_runs_again(tmp_path):
    calls: list[Cell] = []
    cell = Cell("schedule", "0.1.0-rc.8", HOSTS[0])
    folder = tmp_path / cell.folder_name
    folder.mkdir()
    (folder / "report.json").write_text("{}", "utf-8")  # left by a killed run
    run_cell(cell, tmp_path, _writing_runner(calls, _document([])), clock=lambda: 0.0)
    assert calls == [cell]


def test_a_peer_refusal_is_a_cannot_install_cell_and_other_failures_say_no_report(tmp_path):
    calls: list[Cell] = []
    refusing = _writing_runner(
        calls, None, "ERROR: dsh: incompatible peer version: needs @deepseek-ai/dsh-agent@^0.0.1\n")
    cell = Cell("time-context", "0.0.1-rc.1", HOSTS[0])
    result = run_cell(cell, tmp_path, refusing, clock=lambda: 0.0)
    assert result.status == "cannot install"
    assert "incompatible peer version" in result.message
    broken = run_cell(Cell("time-context", "0.0.1-rc.1", HOSTS[1]), tmp_path,
                      _writing_runner(calls, None, "Traceback\nRuntimeError: boom\n"),
                      clock=lambda: 0.0)
    assert broken.status == "no report" and "RuntimeError: boom" in broken.message


def test_neighbours_step_over_a_cell_that_could_not_install_and_reclassification_is_no_flip():
    hosts = ["0.1.0-rc.7", *HOSTS]
    first = CellResult(Cell("schedule", "0.0.1-rc.3", hosts[0]), "ran", "", 1, 1.0,
                       _document([_test("t/a", "failed"), _test("t/b", "failed")]))
    refused = CellResult(Cell("schedule", "0.0.1-rc.3", hosts[1]), "cannot install", "peer", 4,
                         1.0, None)
    last = CellResult(Cell("schedule", "0.0.1-rc.3", hosts[2]), "ran", "", 1, 1.0,
                      _document([_test("t/a", "host limit"), _test("t/b", "passed")]))
    table = build_table([first, refused, last], {"t/a": {}}, hosts)
    assert [(f["from"]["host"], f["to"]["host"], f["tests"]) for f in table["flips"]] == [
        (hosts[0], hosts[2], {"t/b": ["fail", "pass"]}),
    ]

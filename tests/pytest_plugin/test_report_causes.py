"""A first run against a plugin with five bugs reads as five causes: in the
terminal summary, at the top of report.md, in report.html and in the JSON
``causes``; each cause names its requirement with the sentence (or pinned
detail) text, one failure with its rerun command, the others folded. Readme
causes come first, the compat cause below them; the terminal ends with them,
after pytest's own short summary. Failures that are not assertions name their
requirement too, and what the failing expression read."""

from __future__ import annotations

import json
import re
import textwrap

import jsonschema
import pytest

from pytest_dsh.pytest_plugin.reporting import report_schema

# Five bugs: 40 DST-like rows of one wrong answer, a KeyError and a bad unpack
# in test code, an exception on the host side, a pinned detail spelled wrong.
FIVE_BUGS = textwrap.dedent(
    """
    import pytest
    from dsh_conformance.expect import pinned, readme
    import faulty_host

    @pytest.mark.spec("SCH-026")
    @pytest.mark.parametrize("zone", [f"Zone/Number{i}" for i in range(40)])
    def test_dst_rows(zone, dsh_host):
        at = f"2026-03-29T02:{len(zone) % 60:02d}:00+01:00[{zone}]"
        observed = {"id": f"schedule-{len(zone)}", "fired_ms": 1767225600000 + len(zone)}
        assert False, readme("SCH-026", f"the reminder to fire at {at}", observed)

    @pytest.mark.spec("TC-016")
    @pytest.mark.parametrize("turn", range(6))
    def test_reads_an_id(turn, dsh_host):
        value = {"code": "invalid"}
        assert value["id"] == f"schedule-{turn}"

    @pytest.mark.spec("SCH-034")
    @pytest.mark.parametrize("n", range(3))
    def test_unpacks(n, dsh_host):
        first, second = [n, n, n]

    @pytest.mark.spec("SCH-035")
    @pytest.mark.parametrize("n", range(2))
    def test_host_side(n, dsh_host):
        faulty_host.list_records(n)

    @pytest.mark.compat("TC-DURATION-TEXT")
    @pytest.mark.parametrize("seconds", [60, 61, 3600, 86400])
    def test_durations(seconds, dsh_host):
        assert False, pinned("TC-DURATION-TEXT", f"{seconds}s in units", f"{seconds}s")

    @pytest.mark.spec("SCH-001")
    def test_passes(dsh_host):
        pass
    """
)

FAULTY_HOST = textwrap.dedent(
    """
    def list_records(n):
        raise RuntimeError(f"host lost session session-{n}")
    """
)

_SUMMARIES = [
    ("[40x] readme SCH-026 (", "AssertionError: README SCH-026 requires the reminder to fire"),
    ("[6x] readme TC-016 (When an injection is due",
     "the test could not observe what it checks: value is an object without the key 'id'; "
     "observed value = {'code': 'invalid'} (KeyError 'id' at test_five_bugs.py:16)"),
    ("[3x] readme SCH-034 (schedule_create requires exactly one of",
     "the test could not observe what it checks: ValueError too many values to unpack"),
    ("[2x] readme SCH-035 (schedule_list returns",
     "RuntimeError: host lost session session-0 (raised at faulty_host.py:2)"),
]


@pytest.fixture
def five_bugs(impls: pytest.Pytester) -> pytest.Pytester:
    impls.makepyfile(test_five_bugs=FIVE_BUGS, faulty_host=FAULTY_HOST)
    return impls


@pytest.fixture
def five_bugs_run(five_bugs: pytest.Pytester) -> tuple[pytest.Pytester, pytest.RunResult]:
    result = five_bugs.runpytest("--dsh-impl=impls:FULL", "--dsh-report=out", "-p", "no:randomly")
    return five_bugs, result


def test_the_terminal_summary_lists_readme_causes_largest_first_then_compat(five_bugs_run):
    _, result = five_bugs_run
    lines = result.stdout.lines
    start = lines.index(
        "55 failing tests: 0 basic behaviours broken, 4 other README causes, 1 compat cause:"
    )
    items = [line for line in lines[start + 1:] if re.match(r"^ ?\d+\. ", line)]
    assert len(items) == 4
    for number, (item, (label, failure)) in enumerate(zip(items, _SUMMARIES, strict=True), 1):
        assert item.startswith(f"{number:>2}. {label}"), item
        described = lines[lines.index(item) + 1]
        assert described.strip().startswith(failure), described
    assert "    first: test_five_bugs.py::test_dst_rows[Zone/Number0] (and 39 more)" in lines
    assert sum(1 for line in lines if line.startswith("    rerun: pytest ")) == 4
    # The compat cause: one line below every readme item.
    heading = next(i for i, line in enumerate(lines) if line.startswith("compat failures ("))
    assert heading > lines.index(items[-1])
    assert lines[heading].endswith(": 4 failing tests")
    assert lines[heading + 1].startswith("    [4x] compat TC-DURATION-TEXT (Durations spell")


def test_the_terminal_ends_with_the_causes_after_pytest_s_short_summary(five_bugs_run):
    _, result = five_bugs_run
    lines = result.stdout.lines
    failed = [n for n, line in enumerate(lines) if line.startswith("FAILED test_five_bugs.py")]
    assert len(failed) == 55
    causes = lines.index(
        "55 failing tests: 0 basic behaviours broken, 4 other README causes, 1 compat cause:"
    )
    assert max(failed) < causes
    # After the causes: report paths, the verdict and pytest's one count line.
    tail = lines[causes:]
    assert tail[-2].startswith("verdict: does not conform")
    assert re.match(r"^=+ 55 failed, 1 passed in .* =+$", tail[-1]), tail[-1]


def test_the_top_of_report_md_lists_the_five_causes(five_bugs_run):
    pytester, _ = five_bugs_run
    markdown = (pytester.path / "out" / "report.md").read_text("utf-8")
    first_screen = "\n".join(markdown.splitlines()[:30])
    assert "## Failures: 55 from 5 causes" in first_screen
    rows = re.findall(r'^\| <a href="#cause-(\d)">\d</a> \| (\d+) \| (.*?) \|', first_screen, re.M)
    assert [(int(n), int(count)) for n, count, _ in rows] == [
        (1, 40), (2, 6), (3, 3), (4, 2), (5, 4)
    ]
    assert rows[1][2].startswith("readme TC-016 (When an injection is due it appends one")
    # One failure shown per cause, the others folded.
    assert markdown.count("Rerun:") == 5
    assert "<details><summary>39 more with this cause</summary>" in markdown
    assert "- `test_five_bugs.py::test_dst_rows[Zone/Number9]`: AssertionError" in markdown


def test_the_json_report_has_the_causes_and_still_every_row(five_bugs_run):
    pytester, _ = five_bugs_run
    document = json.loads((pytester.path / "out" / "report.json").read_text("utf-8"))
    jsonschema.validate(document, report_schema())
    causes = document["causes"]
    assert [c["count"] for c in causes] == [40, 6, 3, 2, 4]
    assert [c["requirement"]["level"] for c in causes] == ["readme"] * 4 + ["compat"]
    failing = sorted(t["id"] for t in document["tests"] if t["outcome"] == "failed")
    assert sorted(i for c in causes for i in c["tests"]) == failing
    assert len(document["tests"]) == 56  # the per-test rows stay
    dst = causes[0]
    assert dst["requirement"]["level"] == "readme"
    assert dst["requirement"]["sentences"][0]["id"] == "SCH-026"
    assert dst["requirement"]["sentences"][0]["text"].startswith("Missing time_zone")
    # Cut before what was observed, the quoted sentence text dropped.
    assert dst["summary"] == (
        "AssertionError: README SCH-026 requires the reminder to fire at <time>"
    )
    assert dst["representative"]["rerun"].startswith(
        "pytest 'test_five_bugs.py::test_dst_rows[Zone/Number0]' --dsh-impl=impls:FULL"
    )


def test_the_html_report_folds_all_but_one_failure_per_cause(five_bugs_run):
    pytester, _ = five_bugs_run
    html = (pytester.path / "out" / "report.html").read_text("utf-8")
    assert "<h2>Failures (55) from 5 causes</h2>" in html
    assert html.count('<article class="failure cause"') == 5
    assert '<h3><span class="count">40</span>1. readme SCH-026 (' in html
    assert "<details><summary>39 more with this cause</summary>" in html
    # Every failing test keeps its anchor (README sections link to it).
    assert 'id="test_five_bugs.py::test_dst_rows[zone/number39]"' in html


def test_the_pytest_summary_line_names_the_requirement_of_a_keyerror(five_bugs: pytest.Pytester):
    result = five_bugs.runpytest("--dsh-impl=impls:FULL", "-k", "test_reads_an_id and 0",
                                 "-rf", "-p", "no:randomly")
    result.stdout.fnmatch_lines([
        # The traceback is still there, and the rewritten message beside it.
        "E       KeyError: 'id'",
        "*dsh requirement*",
        "readme TC-016 (*): the test could not observe what it checks: value is an object "
        "without the key 'id'; observed value = {'code': 'invalid'} (KeyError 'id' at "
        "test_five_bugs.py:16)",
        "FAILED test_five_bugs.py::test_reads_an_id[[]0[]] - readme TC-016 (When*",
    ])


def test_an_assertion_without_expect_keeps_its_own_message(impls, failing_test):
    impls.makepyfile(test_failing=failing_test)
    impls.runpytest("--dsh-impl=impls:FULL", "--dsh-report=out.json")
    document = json.loads((impls.path / "out.json").read_text("utf-8"))
    (test,) = (t for t in document["tests"] if t["outcome"] == "failed")
    assert test["message"].startswith("AssertionError: refreshIntervalMs -1 was accepted")


def test_the_header_and_reports_name_the_readme_versions(five_bugs_run):
    pytester, result = five_bugs_run
    readmes = re.compile(
        r"READMEs checked: schedule @deepseek-ai/dsh-schedule 0\.1\.0-rc\.8 "
        r"\(sha256 [0-9a-f]{12}\); "
        r"time-context @deepseek-ai/dsh-time-context .+ \(sha256 [0-9a-f]{12}\)"
    )
    assert any(readmes.search(line) for line in result.stdout.lines if line.startswith("dsh: "))
    document = json.loads((pytester.path / "out" / "report.json").read_text("utf-8"))
    assert [(r["plugin"], r["file"]) for r in document["readmes"]] == [
        ("schedule", "dsh-schedule.README.txt"),
        ("time-context", "dsh-time-context.README.zh.txt"),
    ]
    html = (pytester.path / "out" / "report.html").read_text("utf-8")
    markdown = (pytester.path / "out" / "report.md").read_text("utf-8")
    assert readmes.search(html)
    assert readmes.search(markdown.replace("\\", ""))


SHAPES = textwrap.dedent(
    """
    import pytest

    @pytest.mark.spec("SCH-035")
    def test_reads_the_first_record(dsh_host):
        listed = {"records": [{"id": "schedule-1"}]}
        assert listed[0]["id"] == "schedule-1"

    @pytest.mark.spec("SCH-035")
    def test_reads_an_id_of_a_list(dsh_host):
        value = [{"id": "x"}]
        assert value.get("id") == "x"
    """
)


def test_a_crash_on_a_value_of_another_shape_says_what_was_read_and_why(impls):
    impls.makepyfile(test_shapes=SHAPES)
    impls.runpytest("--dsh-impl=impls:FULL", "--dsh-report=out.json", "-p", "no:randomly")
    document = json.loads((impls.path / "out.json").read_text("utf-8"))
    messages = {t["id"]: t["message"].splitlines()[0] for t in document["tests"]}
    wrapped = messages["test_shapes.py::test_reads_the_first_record"]
    assert wrapped.startswith("readme SCH-035 (")
    assert wrapped.endswith(
        ": the test could not observe what it checks, but the list value is not an array of "
        "records: an object holding one under 'records'; observed listed = {'records': "
        "[{'id': 'schedule-1'}]} (KeyError 0 at test_shapes.py:6)"
    )
    listed = messages["test_shapes.py::test_reads_an_id_of_a_list"]
    assert listed.endswith(
        ": the test could not observe what it checks: value is an array, not an object; "
        "observed value = [{'id': 'x'}] (AttributeError 'list' object has no attribute 'get' "
        "at test_shapes.py:11)"
    )
    # The shape is a cause of its own; the other crash stays under its requirement.
    shapes = [c["shape"] for c in document["causes"]]
    assert sorted(shapes, key=str) == [
        None, "the list value is not an array of records: an object holding one under 'records'",
    ]


def test_packages_inside_the_standard_library_folder_are_not_library(monkeypatch):
    from pytest_dsh.pytest_plugin.reporting import raised

    # A python:3.11 image or pyenv: site-packages lies inside the stdlib folder.
    monkeypatch.setattr(raised, "_LIBRARY_DIRS", ("/opt/py/lib/python3.11",))
    monkeypatch.setattr(raised, "_PACKAGE_DIRS", ("/opt/py/lib/python3.11/site-packages",))
    assert raised._is_library("/opt/py/lib/python3.11/json/decoder.py")
    assert not raised._is_library("/opt/py/lib/python3.11/site-packages/dsh_conformance/a.py")
    assert raised._is_library("/opt/py/lib/python3.11/site-packages/_pytest/python.py")

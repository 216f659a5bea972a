"""The first screen names the real bugs, on report rows: readme causes before
compat causes, a value's shape one cause whatever sentence it broke, and a
failure folded under a failing probe only when it shows the probe's symptom
(every sentence it says it breaks is one the probe breaks), never for a
marker, a section or a shape it merely shares."""

from __future__ import annotations

import re
from typing import Any

from dsh_conformance.expect import pinned, readme
from pytest_dsh.driving.value_shapes import records_wrapped
from pytest_dsh.pytest_plugin.reporting.behaviours import broken_behaviours
from pytest_dsh.pytest_plugin.reporting.causes import cause_label, diagnosis, group_causes
from pytest_dsh.pytest_plugin.reporting.first_screen import first_screen_lines

TEXTS = {"SCH-035": "schedule_list returns active records.", "SCH-013": "A barrier confirms."}
PLACES = {"SCH-013": (0, "schedule: Persistence"), "SCH-035": (1, "schedule: Management tools"),
          "SCH-021": (2, "schedule: Management tools")}
PIN = "SCH-CODE-MAPPING"
SHAPE = "the list value is not an array of records: an object holding one under 'records'"


def _row(
    test_id: str, message: str, *, sentences: tuple[str, ...] = ("SCH-035",),
    pins: tuple[str, ...] = (), probe: str | None = None,
) -> dict[str, Any]:
    return {
        "id": test_id, "nodeid": test_id, "plugin": "schedule",
        "level": "compat" if pins else "readme", "sentences": list(sentences),
        "pinned_details": list(pins), "outcome": "failed", "message": message,
        "known_failure": None, "rerun": f"pytest {test_id}", "duration": 0.0,
        "probe": {"id": probe, "behaviour": f"{probe} works"} if probe else None,
    }


def _document(rows: list[dict[str, Any]]) -> dict[str, Any]:
    causes = group_causes(rows, TEXTS, {})
    behaviours = broken_behaviours(rows, causes, PLACES)
    return {"tests": rows, "causes": causes, "behaviours": behaviours}


def test_readme_causes_come_before_larger_compat_causes():
    rows = [_row(f"c.py::t[{n}]", f"pinned detail {PIN} requires {n}", pins=(PIN,))
            for n in range(30)]
    rows += [_row("r.py::t", "README SCH-035 requires the record listed; observed []")]
    assert [c["requirement"]["level"] for c in group_causes(rows, TEXTS, {})] == [
        "readme", "compat",
    ]


def test_a_readme_and_a_compat_run_of_one_check_are_two_causes():
    message = "README SCH-035 requires the record listed; observed []"
    rows = [_row("t.py::t[readme]", message), _row("t.py::t[compat]", message, pins=(PIN,))]
    assert [(c["requirement"]["level"], c["tests"]) for c in group_causes(rows, TEXTS, {})] == [
        ("readme", ["t.py::t[readme]"]), ("compat", ["t.py::t[compat]"]),
    ]


def test_one_value_shape_is_one_cause_whatever_sentence_each_failure_broke():
    rows = [
        _row("a.py::t", f"README SCH-035 requires three records, but {SHAPE}; observed {{}}"),
        _row("b.py::t", f"README SCH-021 requires no record, but {SHAPE}; observed {{}}",
             sentences=("SCH-021",)),
        _row("c.py::t", "README SCH-013 (\"x, but y\") requires the create kept; observed []",
             sentences=("SCH-013",)),
    ]
    causes = group_causes(rows, TEXTS, {})
    shape = next(c for c in causes if c["shape"])
    assert shape["tests"] == ["a.py::t", "b.py::t"] and shape["summary"] == SHAPE
    assert [s["id"] for s in shape["requirement"]["sentences"]] == ["SCH-035", "SCH-021"]
    assert cause_label(shape) == f"readme value shape: {SHAPE} (SCH-035, SCH-021)"
    # ", but" inside a quoted sentence text is no diagnosis.
    assert diagnosis(rows[2]["message"]) is None


def test_a_probe_failing_by_a_value_s_shape_is_no_broken_behaviour():
    rows = [
        _row("p.py::probe", f"README SCH-035 requires three records, but {SHAPE}; observed {{}}",
             probe="list-in-creation-order"),
        _row("q.py::other", "README SCH-013 requires the create kept; observed []",
             sentences=("SCH-013", "SCH-035")),
    ]
    document = _document(rows)
    assert document["behaviours"] == []
    assert all(cause["follows"] is None for cause in document["causes"])


def test_only_failures_breaking_the_probe_s_own_sentences_are_folded_under_it():
    rows = [
        _row("p.py::probe", "README SCH-035 requires creation order; observed [2, 1]",
             probe="list-in-creation-order"),
        # Breaks the probe's sentence: folded.
        _row("f.py::same", "README SCH-035 requires the records in creation order; observed x"),
        # Shares the probe's marker and section but breaks another sentence: a bug of its own.
        _row("f.py::marker", "README SCH-021 requires a fork to list nothing; observed [1]",
             sentences=("SCH-035", "SCH-021")),
        # Breaks the probe's sentence and another one: not shown to follow from it.
        _row("f.py::more", "README SCH-035, SCH-013 requires the create kept; observed []",
             sentences=("SCH-035", "SCH-013")),
        # A crash cites no broken sentence: no symptom.
        _row("f.py::crash", "readme SCH-035: the test could not observe what it checks: "
             "listed is an array of 0 items; observed listed = []"),
        # A compat failure is never folded.
        _row("f.py::pin", f"pinned detail {PIN} requires the exact order; observed x", pins=(PIN,)),
    ]
    document = _document(rows)
    (behaviour,) = document["behaviours"]
    assert behaviour["folded"] == ["f.py::same"]
    follows = {c["tests"][0]: c["follows"] for c in document["causes"]}
    assert follows == {"p.py::probe": "list-in-creation-order",
                       "f.py::same": "list-in-creation-order", "f.py::marker": None,
                       "f.py::more": None, "f.py::crash": None, "f.py::pin": None}


def test_the_first_screen_lists_behaviours_then_readme_causes_then_compat_one_line_each():
    rows = [
        _row("p.py::probe", "README SCH-035 requires creation order; observed [2, 1]",
             probe="list-in-creation-order"),
        _row("f.py::other", "README SCH-013 requires the create kept; observed []",
             sentences=("SCH-013",)),
    ]
    rows += [_row(f"c.py::t[{n}]", f"pinned detail {PIN} requires corrupt_schedule_log, but "
                  "the closed code is under 'failure', not 'code'; observed {}", pins=(PIN,))
             for n in range(40)]
    lines = first_screen_lines(_document(rows))
    assert lines[0] == (
        "42 failing tests: 1 basic behaviour broken, 1 other README cause, 1 compat cause:"
    )
    numbered = [line for line in lines if re.match(r"^ ?\d+\. ", line)]
    assert [line.split()[1] for line in numbered] == ["basic", "[1x]"]
    heading = next(n for n, line in enumerate(lines) if line.startswith("compat failures ("))
    assert lines[heading].endswith(": 40 failing tests")
    assert lines[heading + 1] == (
        "    [40x] compat value shape: the closed code is under 'failure', not 'code' "
        f"({PIN}): pinned detail {PIN} requires corrupt_schedule_log, but the closed code is "
        "under 'failure', not 'code'; observed {}"
    )


def test_a_readme_message_says_when_the_list_value_is_not_an_array_of_records():
    message = readme("SCH-035", "the deleted record gone from the list", {"records": []})
    assert records_wrapped({"items": [{"id": "schedule-1", "state": "scheduled"}], "n": 1}) == (
        SHAPE.replace("'records'", "'items'"))
    assert f"requires the deleted record gone from the list, but {SHAPE}; observed " in message
    assert diagnosis(message) == SHAPE
    # A record, an error value or a plain list is no wrapped list.
    for value in ({"id": "r-1", "items": []}, {"code": "x", "list": []}, [], {"a": [1, 2]},
                  {"content": [{"type": "text", "text": "a"}]}, {"content": [], "role": "user"},
                  {"events": [], "n": 2}):
        assert ", but " not in readme("SCH-035", "the list", value)


def test_a_pinned_message_names_the_key_a_code_is_under_a_readme_message_does_not():
    value = {"failure": "corrupt_schedule_log", "message": "The log is corrupt."}
    message = pinned("SCH-CODE-MAPPING", "corrupt_schedule_log for the corrupt log", value)
    assert diagnosis(message) == "the closed code is under 'failure', not 'code'"
    # A readme check finds the code wherever it is: the key is never its reason.
    assert diagnosis(readme("SCH-036", "a code, not persistence_uncertain", {
        "failure": "persistence_uncertain"})) is None
    # Several codes named, or a 'code' present: the difference is not the key.
    assert diagnosis(pinned("SCH-CODE-MAPPING", "invalid_rule, not invalid_selector", {
        "failure": "invalid_rule"})) is None
    assert diagnosis(pinned("SCH-CODE-MAPPING", "invalid_rule", {
        "code": "invalid_selector", "detail": "invalid_rule"})) is None
    # Values of any shape are described, never a crash of the message itself.
    assert "observed {'x': [1], 'y': {}}" in pinned("SCH-CODE-MAPPING", "invalid_rule", {
        "x": [1], "y": {}})

"""Grouping failures by cause (pytest_dsh.pytest_plugin.reporting.causes), on report rows:
rows that differ only in values are one cause, a different requirement or a
different failure is another, and causes come largest first."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_dsh.pytest_plugin.reporting.causes import (
    failure_line,
    group_causes,
    normalise,
    representative_line,
    requirement_label,
    short_text,
)

TEXTS = {"SCH-026": "An at selector names one instant.", "TC-016": "A reading is injected."}
TITLES = {"TC-DURATION-TEXT": "Durations spell d, h, m, then s"}


def _row(
    test_id: str, message: str | None, *, sentences: tuple[str, ...] = ("SCH-026",),
    pins: tuple[str, ...] = (), outcome: str = "failed",
) -> dict[str, Any]:
    return {
        "id": test_id, "nodeid": test_id, "plugin": "schedule",
        "level": "compat" if pins else "readme", "sentences": list(sentences),
        "pinned_details": list(pins), "outcome": outcome, "message": message,
        "known_failure": None, "rerun": f"pytest {test_id}", "duration": 0.0,
    }


def _dst_row(zone: str, minute: int) -> dict[str, Any]:
    return _row(
        f"dst/test_table.py::test_row[{zone}-{minute}]",
        f"AssertionError: README SCH-026 requires the reminder at "
        f"2026-03-29T02:{minute:02d}:00+01:00[{zone}]; observed {{'id': 'schedule-{minute}', "
        f"'fired_ms': {1_767_225_600_000 + minute}, 'tz': \"{zone}\", 'ref': 0x{minute:x}}}"
        f"\nassert False",
    )


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("KeyError: 'id'", "KeyError: 'code'"),
        ("observed 2026-03-29T02:30:00Z", "observed 1999-12-31T23:59:59.999-05:00[America/Bogota]"),
        ("at /a/b/test_x.py:12", "at schedule/test_y.py:340"),
        ("observed schedule-1 after 3.5 s", "observed schedule-22 after 60 s"),
        ("hash 0xdeadbeef", "hash 0x1"),
        ("digest 3f9a1c0e77", "digest 0b1e2d3c4f"),
        ('observed "a \\" b"', 'observed "c"'),
        ("line one\nassert 1 == 2", "line one\nassert 3 == 4"),
    ],
)
def test_values_are_normalised_away(first, second):
    assert normalise(first) == normalise(second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("KeyError: 'id'", "IndexError: list index out of range"),
        ("observed {'id': 1}", "observed {'code': 1}"),  # a dict key names what differs
        ("README SCH-026 requires a", "README SCH-027 requires a"),  # README ids are kept
        ("requires the reminder to fire", "requires the reminder not to fire"),
    ],
)
def test_different_failures_stay_apart(first, second):
    assert normalise(first) != normalise(second)


def test_an_apostrophe_inside_a_word_opens_no_quoted_value():
    assert normalise("the golden's topics differ: 'a'") == "the golden's topics differ: '…'"


def test_385_dst_rows_of_one_bug_are_one_cause_and_it_comes_first():
    rows = [_dst_row(f"Zone/N{i}", i % 60) for i in range(385)]
    rows += [_row(f"schedule/test_x.py::test_y[{i}]", "KeyError: 'id'", sentences=("TC-016",))
             for i in range(3)]
    rows.append(_row("schedule/test_ok.py::test_ok", None, outcome="passed"))
    causes = group_causes(sorted(rows, key=lambda r: r["id"]), TEXTS, TITLES)
    assert [c["count"] for c in causes] == [385, 3]
    first = causes[0]
    assert first["representative"]["id"] == first["tests"][0]
    assert first["representative"]["rerun"] == f"pytest {first['tests'][0]}"
    assert first["requirement"]["sentences"] == [
        {"id": "SCH-026", "text": "An at selector names one instant."}
    ]
    assert sum(c["count"] for c in causes) == 388  # every failing row, once; no passed row


def test_the_same_message_under_another_requirement_is_another_cause():
    rows = [
        _row("a.py::t1", "KeyError: 'id'", sentences=("SCH-026",)),
        _row("a.py::t2", "KeyError: 'id'", sentences=("TC-016",)),
        _row("a.py::t3", "KeyError: 'id'", sentences=("SCH-026",)),
    ]
    causes = group_causes(rows, TEXTS, TITLES)
    assert sorted(c["tests"] for c in causes) == [["a.py::t1", "a.py::t3"], ["a.py::t2"]]


def test_a_compat_test_is_grouped_by_its_pin_and_labelled_with_its_title():
    rows = [_row(f"t.py::d[{n}]", f"pinned detail TC-DURATION-TEXT requires {n}s", sentences=(
        "TC-016",), pins=("TC-DURATION-TEXT",)) for n in (1, 60, 3600)]
    (cause,) = group_causes(rows, TEXTS, TITLES)
    assert cause["count"] == 3
    assert requirement_label(cause["requirement"]) == (
        "compat TC-DURATION-TEXT (Durations spell d, h, m, then s)"
    )


def test_errors_and_stale_known_failures_are_causes_too_skips_and_xfails_not():
    rows = [
        _row("a.py::e", "in setup: OSError: disk", outcome="error"),
        _row("a.py::x", "passed, but it is listed as a known failure", outcome="xpassed"),
        _row("a.py::s", "no capability", outcome="skipped"),
        _row("a.py::k", "KeyError: 'id'", outcome="xfailed"),
    ]
    assert sorted(c["representative"]["id"] for c in group_causes(rows, TEXTS, TITLES)) == [
        "a.py::e", "a.py::x",
    ]


def test_ties_are_ordered_readme_before_compat_then_by_test_id():
    rows = [
        _row("b.py::t", "x", pins=("TC-DURATION-TEXT",)),
        _row("c.py::t", "y"),
        _row("a.py::t", "z", sentences=("TC-016",)),
    ]
    assert [c["tests"][0] for c in group_causes(rows, TEXTS, TITLES)] == [
        "a.py::t", "c.py::t", "b.py::t",
    ]


def test_an_unknown_sentence_keeps_its_id_without_text():
    (cause,) = group_causes([_row("a.py::t", "x", sentences=("SCH-999",))], TEXTS, TITLES)
    assert requirement_label(cause["requirement"]) == "readme SCH-999"


def test_the_representative_line_drops_what_the_label_already_says():
    requirement = {
        "level": "readme", "plugin": "time-context", "pinned_details": [],
        "sentences": [{"id": "TC-016", "text": "A reading is injected."}],
    }
    label = requirement_label(requirement)
    assert failure_line(
        f"{label}: the test could not observe what it checks: KeyError 'id' at t.py:3",
        "failed", requirement,
    ) == "the test could not observe what it checks: KeyError 'id' at t.py:3"
    cause = {"requirement": requirement, "representative": {
        "message": 'AssertionError: README TC-016 ("A reading is injected.") requires x\nassert 0',
        "outcome": "failed"}}
    assert representative_line(cause) == "AssertionError: README TC-016 requires x"


def test_short_text_cuts_at_a_word():
    assert short_text("word " * 40, 20) == "word word word word …"
    assert short_text("short", 20) == "short"

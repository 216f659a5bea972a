"""Every compat detail is listed with its exact value and tests in
docs/pinned-details.md, and every compat marker names a known PIN-ID."""

from __future__ import annotations

import pathlib
import sys

import kit_child_processes as children

from dsh_conformance.pinned_details import problems, render_page
from dsh_spec.pins import load_pins

PAGE = pathlib.Path(__file__).parents[2] / "docs" / "pinned-details.md"


def test_the_page_is_current_and_every_pin_has_a_test():
    done = children.run(
        [sys.executable, "-m", "dsh_conformance.pinned_details", "--check", str(PAGE)],
        capture_output=True, text=True, check=False, cwd=PAGE.parent,
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_unknown_and_untested_pins_are_reported():
    pins = {"PIN-A": {"title": "a", "value": "x", "official_notes_ref": "§1",
                      "sentences": ["SCH-001"]},
            "PIN-B": {"title": "b", "value": "y", "official_notes_ref": "§2",
                      "sentences": ["SCH-999"]}}
    found = problems(pins, {"PIN-A": ["t::a"], "PIN-C": ["t::c"]})
    assert found == [
        "compat marker names unknown PIN-ID PIN-C: t::c",
        "PIN-ID PIN-B has no test",
        "PIN-ID PIN-B names no or unknown README sentences ['SCH-999']",
    ]


def test_the_page_shows_each_exact_value_and_its_tests():
    page = render_page(load_pins(), {"PIN-X": ["schedule/test_x.py::test_y"]})
    for pin_id, pin in load_pins().items():
        assert f"## {pin_id}" in page
        assert pin["value"] in page
    assert "- **none**" in page


SUITE = pathlib.Path(__file__).parents[2] / "conformance"


def _test_functions():
    import ast

    for path in sorted(SUITE.rglob("test_*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in tree.body:
            methods = node.body if isinstance(node, ast.ClassDef) else [node]
            for function in methods:
                if isinstance(function, ast.FunctionDef) and (
                    function.name.startswith("test_") or isinstance(node, ast.ClassDef)
                ):
                    yield path.relative_to(SUITE), function


def test_every_conformance_assertion_says_its_level_and_requirement():
    import ast

    missing, crossed = [], []
    for path, function in _test_functions():
        compat = any("mark.compat" in ast.unparse(d) for d in function.decorator_list)
        body = "\n".join(ast.unparse(statement) for statement in function.body)
        if not compat and "pinned(" in body:
            crossed.append(f"{path}::{function.name} is readme-level but asserts a pinned detail")
        if compat and "pinned(" not in body:
            crossed.append(f"{path}::{function.name} is compat but pins nothing")
        missing += [f"{path}:{node.lineno}" for node in ast.walk(function)
                    if isinstance(node, ast.Assert) and node.msg is None]
    assert missing == [], "assertions without a message: " + ", ".join(missing)
    assert crossed == [], "\n".join(crossed)


def test_readme_level_readings_accept_any_compact_spelling_but_not_other_facts():
    from dsh_conformance.expect import reading_facts, seconds_of

    assert [seconds_of(text) for text in ("1m 0s", "60s", "1m", "1d 1h 1m 1s", "0s")] == [
        60, 60, 60, 90_061, 0]
    assert seconds_of("unavailable") is None
    for junk in ("", "1.5s", "one minute", "1s 1m"):
        try:
            seconds_of(junk)
        except ValueError:
            continue
        raise AssertionError(f"{junk!r} was accepted as a duration")
    pinned = ("Time sampled while preparing turn 2, step 2: 2026-01-01T08:00:00+08:00"
              "[Asia/Shanghai]\nElapsed since the preceding step context: 1m 1s.")
    other = pinned.replace("[Asia/Shanghai]", " Asia/Shanghai").replace("1m 1s", "61s")
    assert reading_facts(pinned) == reading_facts(other)
    for wrong in (pinned.replace("1m 1s", "1m 2s"), pinned.replace("+08:00", "+09:00"),
                  pinned.replace("Asia/Shanghai", "Asia/Tokyo"),
                  pinned.replace("08:00:00", "08:00"),
                  pinned.replace("step context", "model-visible message"), pinned + "\n"):
        assert reading_facts(wrong) != reading_facts(pinned), wrong

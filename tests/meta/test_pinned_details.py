"""Every compat detail is listed with its exact value and tests in
docs/pinned-details.md, and every compat marker names a known PIN-ID."""

from __future__ import annotations

import pathlib
import subprocess
import sys

from dsh_conformance.pinned_details import load_pins, problems, render_page

PAGE = pathlib.Path(__file__).parents[2] / "docs" / "pinned-details.md"


def test_the_page_is_current_and_every_pin_has_a_test():
    done = subprocess.run(
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

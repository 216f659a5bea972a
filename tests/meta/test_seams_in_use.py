"""Every driver seam docs/fake-host.md documents is used by a conformance test.

A seam no conformance test calls proves nothing about a plugin: the bugs only it
can reach go unseen. The seams are the calls listed in the doc's driver tables
(tables whose first column is ``call``); a call counts as used when a module of
the conformance package names it as an attribute (``.name``), directly or
through a ``getattr`` template such as ``f"fail_{read}_reads"``.
"""

from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).parents[2]
DOC = ROOT / "docs" / "fake-host.md"
SUITE = ROOT / "conformance"

_CODE = re.compile(r"`([^`]+)`")
_CALL_NAME = re.compile(r"(?:\w+\.)*(\w+)")
_GETATTR_TEMPLATE = re.compile(r"getattr\([^,()]+,\s*f\"([^\"]+)\"")


def documented_seams(text: str) -> list[str]:
    """The call names in the first column of every ``| call | ... |`` table, in order."""
    names: list[str] = []
    in_table = False
    for line in text.splitlines():
        if line.startswith("| call |"):
            in_table = True
            continue
        if not line.startswith("|"):
            in_table = False
            continue
        if in_table and not set(line) <= set("|-: "):
            first = line.split("|")[1]
            names += [m[1] for code in _CODE.findall(first) if (m := _CALL_NAME.match(code))]
    return names


def used(name: str, source: str) -> bool:
    if re.search(rf"\.{re.escape(name)}\b", source):
        return True
    for template in _GETATTR_TEMPLATE.findall(source):
        pattern = re.sub(r"\\\{[^}]*\\\}", r"\\w+", re.escape(template))
        if re.fullmatch(pattern, name):
            return True
    return False


def _suite_source() -> str:
    return "\n".join(path.read_text("utf-8") for path in sorted(SUITE.rglob("*.py")))


SEAMS = documented_seams(DOC.read_text("utf-8"))


def test_the_driver_tables_are_found():
    # The tables of "Time", "The fault plan", "Work a test starts and watches" and
    # "Moments a test acts in" hold at least these.
    assert {"advance", "fail_flushes", "start_tool", "act_inside", "hold_turns"} <= set(SEAMS)
    assert len(SEAMS) >= 30


@pytest.mark.parametrize("seam", SEAMS)
def test_every_documented_seam_is_used_by_a_conformance_test(seam):
    assert used(seam, _suite_source()), (
        f"docs/fake-host.md documents the driver seam {seam!r}, but no module of the "
        "conformance package uses it")


def test_the_parser_reads_names_through_getattr_templates_and_attributes():
    source = 'getattr(host.faults, f"fail_{read}_reads")(count=None)\nagent.hold_turns()\n'
    assert used("fail_clock_reads", source) and used("hold_turns", source)
    assert not used("release_turns", source)
    doc = ("| call | effect |\n|---|---|\n| `agent.hold_turns()` / `release_turns()` | x |\n"
           "\nprose `not_a_seam()`\n| order | runs |\n|---|---|\n| `\"last\"` | y |\n")
    assert documented_seams(doc) == ["hold_turns", "release_turns"]

"""One vocabulary for "cannot be assessed here" (pytest_dsh/driving/requirements.py).

Every name a conformance test gives for what it needs is a requirement of the
registry, of the kind its way of asking expects; the views the rest of the
kit reads (capabilities, seams, host-limit behaviours, both drivers' seam
answers) are the registry's; docs/requirements.md lists exactly the registry.
"""

from __future__ import annotations

import pathlib
import re

import pytest

from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
from pytest_dsh.driving import requirements
from pytest_dsh.driving.requirements import HOST_GAPS, REQUIREMENTS, of_kind
from pytest_dsh.driving.seams import NO_MODULE_SHAPE, SEAMS
from pytest_dsh.implementations import CAPABILITY_PLUGINS, KNOWN_PLUGINS
from pytest_dsh.npm.host_limits import limits_table

ROOT = pathlib.Path(__file__).parents[2]
SUITE = ROOT / "conformance"
DOC = ROOT / "docs" / "requirements.md"

_STRING = r'"([^"]+)"'
# How a test asks, and the kind of requirement each way names (None: any kind).
_ASKS = {
    None: re.compile(r"dsh_requires\(([^)]*)\)"),
    "host-behaviour": re.compile(r"dsh_needs_host\(([^)]*)\)"),
    "seam": re.compile(r"require_seam\(\s*[\w.]+\s*,\s*([^)]*)\)"),
}


def _asked() -> dict[str | None, set[str]]:
    asked: dict[str | None, set[str]] = {kind: set() for kind in _ASKS}
    for path in sorted(SUITE.rglob("*.py")):
        text = path.read_text("utf-8")
        for kind, pattern in _ASKS.items():
            for args in pattern.findall(text):
                asked[kind] |= set(re.findall(_STRING, args))
    return asked


def test_the_parser_finds_every_way_of_asking():
    asked = _asked()
    assert {"schedule", "process-zone", "inject-into-the-step"} <= asked[None]
    assert {"export-shape", "per-event-durability"} <= asked["seam"]


@pytest.mark.parametrize("kind", list(_ASKS), ids=lambda kind: kind or "dsh_requires")
def test_every_name_a_conformance_test_asks_for_is_a_requirement_of_its_kind(kind):
    wrong = {
        name: REQUIREMENTS[name].kind if name in REQUIREMENTS else "unknown"
        for name in _asked()[kind]
        if name not in REQUIREMENTS or kind not in (None, REQUIREMENTS[name].kind)
    }
    assert wrong == {}, f"conformance tests ask for these as {kind or 'requirement'}s: {wrong}"


def test_the_capabilities_are_the_registrys_and_each_names_a_plugin_the_suite_loads():
    assert dict(CAPABILITY_PLUGINS) == {r.name: r.plugin for r in of_kind("capability")}
    assert set(CAPABILITY_PLUGINS.values()) <= KNOWN_PLUGINS


def test_the_seam_names_are_the_registrys():
    assert tuple(r.name for r in of_kind("seam")) == SEAMS
    assert HOST_GAPS["fake-host"]["export-shape"] == NO_MODULE_SHAPE
    no_host = set(HOST_GAPS["fake-host"]) & set(HOST_GAPS["bridge"])
    assert no_host == {"durable-change-observer", "transaction-queue"}
    assert {seam for gaps in HOST_GAPS.values() for seam in gaps} <= set(SEAMS)


def test_every_host_limit_takes_a_host_behaviour_and_every_behaviour_is_taken():
    taken = {entry["takes"] for entry in limits_table()["limits"].values()}
    assert taken == requirements.host_behaviours()


@pytest.mark.parametrize("seam", SEAMS)
def test_the_fake_host_answers_its_seams_from_the_registry(seam):
    host = REFERENCE.open_host(start_ms=0)
    try:
        assert host.unsupported_reason(seam) == HOST_GAPS["fake-host"].get(seam, "")
        assert host.supports(seam) is (seam not in HOST_GAPS["fake-host"])
    finally:
        host.close()


def test_an_unknown_requirement_is_refused_with_the_known_names():
    with pytest.raises(ValueError, match=r"unknown requirement 'time-travel'; expected one of"):
        requirements.requirement("time-travel")
    assert requirements.requirement("export-shape").decided_by == "host"
    assert requirements.requirement("schedule").decided_by == "implementation"
    assert requirements.requirement("inject-into-the-step").decided_by == "host profile"


def _doc_rows(header: str) -> list[list[str]]:
    rows, inside = [], False
    for line in DOC.read_text("utf-8").splitlines():
        if line.startswith(header):
            inside = True
            continue
        if inside and not line.startswith("|"):
            break
        if inside and not set(line) <= set("|-: "):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_doc_lists_every_requirement_with_its_kind_and_what_it_gives():
    rows = _doc_rows("| requirement | kind |")
    registry = [
        (r.name, r.kind, r.provides + (f" (plugin {r.plugin})" if r.plugin else ""))
        for r in REQUIREMENTS.values()
    ]
    assert [(r[0].strip("`"), r[1], r[2].replace("`", "")) for r in rows] == registry


def test_the_docs_seam_table_says_which_host_has_which_seam():
    rows = _doc_rows("| seam | fake host | bridge |")
    table = {r[0].strip("`"): (r[1], r[2]) for r in rows}
    assert table == {
        seam: tuple("no" if seam in HOST_GAPS[host] else "yes" for host in requirements.HOSTS)
        for seam in SEAMS
    }

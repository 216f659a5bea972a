"""Replay the DST regression tables of ``dsh_fixtures`` through ``schedule_create``.

Every case is a local ``{date, time, time_zone}`` at-selector near a UTC-offset
transition of the pinned tzdata: inside a gap it must be rejected with
``invalid_rule``; inside an overlap it must resolve to the earlier instant; just
before and after the affected window it must resolve to the one instant there is.

By default each zone replays a deterministic sample of its transitions (the
first, the last and every 17th); ``--dsh-dst-table=full`` replays all of them.
The curated cases always run in full.
"""

from __future__ import annotations

import datetime
import functools
import json
from collections.abc import Iterator
from typing import Any

import pytest

from dsh_conformance.expect import pinned, readme
from dsh_fixtures import fixture_path

pytestmark = [pytest.mark.dsh_requires("schedule")]

SAMPLE_STRIDE = 17
#: New agents keep each session's log short, so replaying stays linear.
CASES_PER_AGENT = 60
GAP_MESSAGE = "The local at time does not exist in the selected time zone."


def _epoch_ms(iso: str) -> int:
    parsed = datetime.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.UTC)
    return (parsed - datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)) // datetime.timedelta(
        milliseconds=1
    )


@functools.cache
def _index() -> dict[str, Any]:
    return json.loads(fixture_path("dst", "index.json").read_text("utf-8"))


@functools.cache
def _transitions_by_zone() -> dict[str, list[dict[str, Any]]]:
    zones: dict[str, list[dict[str, Any]]] = {}
    for entry in _index()["files"]:
        with fixture_path("dst", entry["path"]).open(encoding="utf-8") as lines:
            for line in lines:
                row = json.loads(line)
                zones.setdefault(row["zone"], []).append(row)
    return zones


def _zone_names() -> list[str]:
    # The index maps every accepted zone to its number of transitions.
    return sorted(zone for zone, count in _index()["zones"].items() if count)


def _sample(rows: list[dict[str, Any]], full: bool) -> list[dict[str, Any]]:
    if full:
        return rows
    last = len(rows) - 1
    return [row for i, row in enumerate(rows) if i in (0, last) or i % SAMPLE_STRIDE == 0]


def _cases(zone: str, rows: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    for row in rows:
        for position in ("before", "inside", "after"):
            case = dict(row[position])
            label = f"{zone} {case['date']}T{case['time']} ({row['kind']} {position})"
            yield label, case


def _replay(dsh_host_factory, zone: str, cases: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Create every case; return one line per disagreement."""
    host = dsh_host_factory(start_ms=_epoch_ms(_index()["replay_now"]))
    host.load_plugin("schedule")
    problems: list[str] = []
    agent = None
    for number, (label, case) in enumerate(cases):
        if number % CASES_PER_AGENT == 0:
            agent = host.create_agent()
        assert agent is not None, "an agent is created for the first case"
        at = {"date": case["date"], "time": case["time"], "time_zone": zone}
        outcome = agent.call_tool("schedule_create", {"prompt": "dst", "at": at})
        value = outcome.value if not outcome.is_error else {"host_error": outcome.error}
        if "scheduledAt" in case:
            got = value.get("scheduledAt") if isinstance(value, dict) else value
            if got != case["scheduledAt"]:
                problems.append(f"{label}: expected {case['scheduledAt']}, got {value}")
        elif not isinstance(value, dict) or value.get("code") != case["code"]:
            problems.append(f"{label}: expected {case['code']} (gap), got {value}")
    return problems


@pytest.mark.spec("SCH-027", "SCH-028", "SCH-029", "SCH-030")
@pytest.mark.parametrize("zone", _zone_names())
def test_dst_table_zone(zone: str, dsh_host_factory, request) -> None:
    full = request.config.getoption("dsh_dst_table") == "full"
    rows = _sample(_transitions_by_zone()[zone], full)
    problems = _replay(dsh_host_factory, zone, list(_cases(zone, rows)))
    assert problems == [], readme(
        "SCH-027..SCH-030", f"every local time of the {zone} transition table to resolve to its "
        f"first instant or be rejected as a gap; {len(problems)} disagreements:\n"
        + "\n".join(problems[:20]))


def _curated() -> dict[str, Any]:
    return json.loads(fixture_path("dst", "curated.json").read_text("utf-8"))


@pytest.mark.spec("SCH-026", "SCH-027", "SCH-028", "SCH-029", "SCH-030")
@pytest.mark.parametrize("case", _curated()["cases"], ids=lambda case: case["id"])
def test_dst_curated_case(case: dict[str, Any], dsh_host_factory) -> None:
    host = dsh_host_factory(start_ms=_epoch_ms(_curated()["replay_now"]))
    host.load_plugin("schedule")
    agent = host.create_agent()
    at = {"date": case["date"], "time": case["time"], "time_zone": case["zone"]}
    outcome = agent.call_tool("schedule_create", {"prompt": case["id"], "at": at})
    assert outcome.is_error is False, readme("SCH-039", "a Schedule value, not a host error",
                                             outcome.error)
    if "scheduledAt" in case:
        observed = outcome.value.get("scheduledAt", outcome.value)
        assert observed == case["scheduledAt"], readme(
            "SCH-027..SCH-030", f"{case['scheduledAt']} ({case['note']})", outcome.value)
    else:
        assert outcome.value.get("code") == case["code"], readme(
            "SCH-026, SCH-028", f"{case['code']} ({case['note']})", outcome.value)


@pytest.mark.compat("SCH-AT-MESSAGES")
@pytest.mark.spec("SCH-028")
@pytest.mark.parametrize(
    "case", [c for c in _curated()["cases"] if "scheduledAt" not in c], ids=lambda c: c["id"]
)
def test_dst_curated_gap_has_the_official_message(case: dict[str, Any], dsh_host_factory) -> None:
    host = dsh_host_factory(start_ms=_epoch_ms(_curated()["replay_now"]))
    host.load_plugin("schedule")
    at = {"date": case["date"], "time": case["time"], "time_zone": case["zone"]}
    value = host.create_agent().call_tool("schedule_create", {"prompt": case["id"], "at": at})
    expected = {"code": case["code"], "message": GAP_MESSAGE}
    assert value.value == expected, pinned("SCH-AT-MESSAGES", f"exactly {expected}",
                                           value.value)

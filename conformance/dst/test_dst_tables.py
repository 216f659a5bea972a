"""Replay the DST regression tables of ``dsh_fixtures`` through ``schedule_create``.

Every case is a local ``{date, time, time_zone}`` at-selector near a UTC-offset
transition of the pinned tzdata: inside a gap it must be rejected (a closed code,
nothing appended); inside an overlap it must resolve to the earlier instant; just
before and after the affected window it must resolve to the one instant there is.
The readme level reads the instant from the appended create record, which the
README says contains scheduledAt (SCH-015), in any RFC 3339 UTC spelling. The
compat level checks the official code of a gap (``invalid_rule``,
SCH-CODE-MAPPING) and the official ``scheduledAt`` text (SCH-INSTANT-TEXT) of
the same replay, which each zone runs once per session.

By default each zone replays a deterministic sample of its transitions (the
first, the last and every 17th); ``--dsh-dst-table=full`` replays all of them.
The curated cases always run in full.
"""

from __future__ import annotations

import datetime
import functools
import json
from typing import Any

import pytest

from dsh_conformance.dst.table_judging import (
    Problems,
    TableCase,
    agrees,
    judge_in_full,
    table_cases,
)
from dsh_conformance.expect import pinned, readme
from dsh_conformance.fixtures.replay import shared_replay
from dsh_conformance.layout_free import schedule_changes
from dsh_conformance.schedule.tool_values import epoch_ms, instants_in, rejection_codes
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


def _replay(dsh_host_factory, zone: str, cases: list[TableCase]) -> Problems:
    host = dsh_host_factory(start_ms=_epoch_ms(_index()["replay_now"]))
    host.load_plugin("schedule")
    problems = Problems([], [])
    agent = None
    seen = 0  # events of the agent already read: each case reads only its own
    for number, case in enumerate(cases):
        if number % CASES_PER_AGENT == 0:
            agent, seen = host.create_agent(), 0
        assert agent is not None, "an agent is created for the first case"
        at = {"date": case.expected["date"], "time": case.expected["time"], "time_zone": zone}
        outcome = agent.call_tool("schedule_create", {"prompt": "dst", "at": at})
        value = outcome.value if not outcome.is_error else {"host_error": outcome.error}
        new = agent.events(seen)
        seen += len(new)
        changes = schedule_changes(new)
        if not agrees(case, value, changes):
            judge_in_full(zone, case, value, changes, problems)
    return problems


def _problems(dsh_host_factory, request, zone: str) -> Problems:
    """The zone's replay, run once per session for both levels (it is deterministic)."""
    full = request.config.getoption("dsh_dst_table") == "full"

    def replay() -> Problems:
        rows = _sample(_transitions_by_zone()[zone], full)
        return _replay(dsh_host_factory, zone, table_cases(rows))

    return shared_replay(request, ("dst-table", zone, full), replay)


@pytest.mark.spec("SCH-015", "SCH-027", "SCH-028", "SCH-029", "SCH-030")
@pytest.mark.parametrize("zone", _zone_names())
def test_dst_table_zone(zone: str, dsh_host_factory, request) -> None:
    problems = _problems(dsh_host_factory, request, zone).readme
    assert problems == [], readme(
        "SCH-027..SCH-030", f"every local time of the {zone} transition table to resolve to its "
        f"first instant or be rejected as a gap; {len(problems)} disagreements:\n"
        + "\n".join(problems[:20]))


@pytest.mark.compat("SCH-CODE-MAPPING", "SCH-INSTANT-TEXT")
@pytest.mark.spec("SCH-028", "SCH-029", "SCH-030")
@pytest.mark.parametrize("zone", _zone_names())
def test_dst_table_zone_official_values(zone: str, dsh_host_factory, request) -> None:
    problems = _problems(dsh_host_factory, request, zone).pinned
    assert problems == [], pinned(
        "SCH-CODE-MAPPING, SCH-INSTANT-TEXT", f"every gap of the {zone} table to answer its "
        f"official code and every resolved time its official scheduledAt text; "
        f"{len(problems)} disagreements:\n" + "\n".join(problems[:20]))


def _curated() -> dict[str, Any]:
    return json.loads(fixture_path("dst", "curated.json").read_text("utf-8"))


@pytest.mark.spec("SCH-015", "SCH-026", "SCH-027", "SCH-028", "SCH-029", "SCH-030")
@pytest.mark.parametrize("case", _curated()["cases"], ids=lambda case: case["id"])
def test_dst_curated_case(case: dict[str, Any], dsh_host_factory) -> None:
    host = dsh_host_factory(start_ms=_epoch_ms(_curated()["replay_now"]))
    host.load_plugin("schedule")
    agent = host.create_agent()
    at = {"date": case["date"], "time": case["time"], "time_zone": case["zone"]}
    outcome = agent.call_tool("schedule_create", {"prompt": case["id"], "at": at})
    assert outcome.is_error is False, readme("SCH-039", "a Schedule value, not a host error",
                                             outcome.error)
    appended = schedule_changes(agent.events())
    if "scheduledAt" in case:
        instants = {ms for change in appended for ms in instants_in(change)}
        assert len(appended) == 1 and epoch_ms(case["scheduledAt"]) in instants, readme(
            "SCH-015, SCH-027..SCH-030", f"one create record containing {case['scheduledAt']} "
            f"({case['note']})", (outcome.value, appended))
    else:
        assert rejection_codes(outcome.value) and appended == [], readme(
            "SCH-026, SCH-028, SCH-039", f"a rejection with a closed code, nothing appended "
            f"({case['note']})", (outcome.value, appended))


@pytest.mark.compat("SCH-AT-MESSAGES", "SCH-CODE-MAPPING")
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


@pytest.mark.compat("SCH-INSTANT-TEXT")
@pytest.mark.spec("SCH-029", "SCH-030")
@pytest.mark.parametrize(
    "case", [c for c in _curated()["cases"] if "scheduledAt" in c], ids=lambda c: c["id"]
)
def test_dst_curated_time_has_the_official_text(case: dict[str, Any], dsh_host_factory) -> None:
    host = dsh_host_factory(start_ms=_epoch_ms(_curated()["replay_now"]))
    host.load_plugin("schedule")
    at = {"date": case["date"], "time": case["time"], "time_zone": case["zone"]}
    value = host.create_agent().call_tool("schedule_create", {"prompt": case["id"], "at": at})
    observed = value.value.get("scheduledAt") if isinstance(value.value, dict) else value
    assert observed == case["scheduledAt"], pinned(
        "SCH-INSTANT-TEXT", f"scheduledAt exactly {case['scheduledAt']}", value.value)

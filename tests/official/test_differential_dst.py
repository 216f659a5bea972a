"""Differential check: the DST tables (pinned Python tzdata) against the official
``createAtScheduleRecord`` running on the bridge's Node/ICU.

Every disagreement must have a known cause:

* ``tzdata``: the runtime's own UTC offsets around the transition differ from
  the table's (Node ships its own tz database release; the tables come from
  the pinned Python ``tzdata``);
* ``alias``: ICU canonicalises the key to another zone with other rules;
* ``julian``: ICU before 78.3 formats dates before 1582-10-15 in the Julian
  calendar, so early local dates "do not exist";
* anything else is ``unexplained`` and fails the test.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from dsh_fixtures import fixture_path
from pytest_dsh.official import Thrown

pytestmark = pytest.mark.usefixtures("bridge_available")

GREGORIAN_START = "1582-10-15"


def _ms(text: str) -> int:
    return round(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


def _agrees(case: dict[str, Any], outcome: Any) -> bool:
    if "scheduledAt" in case:
        return isinstance(outcome, dict) and outcome.get("scheduledAt") == case["scheduledAt"]
    return isinstance(outcome, Thrown) and outcome.code == case["code"]


def _classify(domain, zone: str, date: str, instants: list[int], offsets: list[str] | None) -> str:
    info = domain.zone_info(zone, instants)
    if "error" in info:
        return "unexplained"
    if offsets is not None and info["offsets"] != offsets:
        return "tzdata"
    if info["resolved"] != zone:
        return "alias"
    if date < GREGORIAN_START:
        return "julian"
    return "unexplained"


def _table_rows() -> Iterator[dict[str, Any]]:
    index = json.loads(fixture_path("dst", "index.json").read_text("utf-8"))
    for entry in index["files"]:
        for line in fixture_path("dst", entry["path"]).read_text("utf-8").split("\n"):
            if line:
                yield json.loads(line)


def _report(name: str, total: int, classes: Counter[str], runtime: dict[str, Any]) -> str:
    agreed = total - sum(classes.values())
    return (
        f"\n{name}: {agreed}/{total} agree ({agreed / total:.4%}); "
        f"disagreements {dict(classes) or 'none'}; "
        f"Node {runtime['node']} ICU {runtime['icu']} tz {runtime['tz']}"
    )


def test_all_zone_tables_agree_up_to_classified_causes(domain, capsys):
    index = json.loads(fixture_path("dst", "index.json").read_text("utf-8"))
    now = _ms(index["replay_now"])
    rows = list(_table_rows())
    cases = [(row, row[where]) for row in rows for where in ("before", "inside", "after")]
    outcomes: list[Any] = []
    batch = 5000
    for start in range(0, len(cases), batch):
        outcomes += domain.call_many(
            "createAtScheduleRecord",
            [
                [
                    "schedule-1",
                    "dst",
                    {"date": c["date"], "time": c["time"], "time_zone": row["zone"]},
                    now,
                ]
                for row, c in cases[start : start + batch]
            ],
        )
    classes: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for (row, case), outcome in zip(cases, outcomes, strict=True):
        if _agrees(case, outcome):
            continue
        at = _ms(row["transition"])
        kind = _classify(
            domain,
            row["zone"],
            case["date"],
            [at - 1, at],
            [row["offset_before"], row["offset_after"]],
        )
        classes[kind] += 1
        examples.setdefault(kind, f"{row['zone']} {case['date']}T{case['time']}: {outcome}")
    with capsys.disabled():
        print(_report("DST tables", len(cases), classes, domain.runtime()), examples or "")
    assert classes["unexplained"] == 0, examples.get("unexplained")
    if domain.runtime()["tz"] == index["iana_release"]:
        assert classes["tzdata"] == 0


def test_curated_cases_agree_up_to_classified_causes(domain, capsys):
    curated = json.loads(fixture_path("dst", "curated.json").read_text("utf-8"))
    now = _ms(curated["replay_now"])
    cases = curated["cases"]
    outcomes = domain.call_many(
        "createAtScheduleRecord",
        [
            [
                "schedule-1",
                "dst",
                {"date": c["date"], "time": c["time"], "time_zone": c["zone"]},
                now,
            ]
            for c in cases
        ],
    )
    classes: Counter[str] = Counter()
    unexplained = []
    for case, outcome in zip(cases, outcomes, strict=True):
        if _agrees(case, outcome):
            continue
        moment = _ms(f"{case['date']}T00:00:00Z")
        kind = _classify(domain, case["zone"], case["date"], [moment], None)
        classes[kind] += 1
        if kind == "unexplained":
            unexplained.append(f"{case['id']}: {outcome}")
    with capsys.disabled():
        print(_report("curated DST cases", len(cases), classes, domain.runtime()))
    assert unexplained == []

"""The readme level of the whole suite assumes nothing the READMEs leave open.

``relayout_impl.py`` is the reference changed in every detail the READMEs leave
open (payload layout, which closed code a rejection gets, value and error
field names, id spelling, the answer to an aborted call, the time-context
spelling and load messages) and in nothing they state. A README-conforming
implementation like it must conform at the readme level; the compat level must
catch it, and its failures must name the pins that carry each difference.
Both levels run in one separate process (the variant patches the reference
where it is imported); the verdicts and pins are read from the JSON report.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

# Runs the whole suite in another process: more than the default budget.
pytestmark = pytest.mark.dsh_wall_budget(900)


#: The pins that carry what the variant changes; a compat failure must name each.
DIFFERING_PINS = frozenset({
    "SCH-PAYLOAD-LAYOUT", "SCH-PAYLOAD-KEY-ORDER", "SCH-LOG-INTEROP", "SCH-CODE-MAPPING",
    "SCH-VIEW-FIELDS", "SCH-VALUE-KEY-ORDER", "SCH-ERROR-VALUE-SHAPE", "SCH-ERROR-MESSAGES",
    "SCH-AT-MESSAGES", "SCH-LOG-DIAGNOSTICS", "SCH-ABORT-ANSWER", "SCH-ID-FORMAT",
    "SCH-TOOL-ORDER", "SCH-INSTANT-TEXT", "SCH-REMINDER-SOURCE", "TC-TIMESTAMP-TEXT",
    "TC-DURATION-TEXT", "TC-LOAD-MESSAGES",
    "TC-LOAD-CHECK-ORDER", "TC-INVARIANT-DIAGNOSTICS",
})


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory, variant_runs: Any) -> dict[str, Any]:
    report = tmp_path_factory.mktemp("relayout") / "report.json"
    return variant_runs.run_variant("relayout_impl:IMPLEMENTATION", report)


def test_the_readme_level_conforms_on_a_variant_that_differs_in_every_pinned_detail(
    report, variant_runs
):
    failed = variant_runs.failed_at(report, "readme")
    by_file = Counter(row["id"].partition("::")[0] for row in failed)
    first_per_file: dict[str, str] = {}
    for row in failed:
        path, _, name = row["id"].partition("::")
        first_per_file.setdefault(path, f"{name}: {(row['message'] or '').splitlines()[:1]}"[:400])
    first = [f"{path}::{line}" for path, line in first_per_file.items()]
    assert report["verdict"]["levels"]["readme"]["verdict"] == "conforms", (
        f"{len(failed)} readme-level tests assume a detail the READMEs leave open; "
        f"per file {dict(by_file)}; the first of each file:\n" + "\n".join(first))
    assert report["counts"]["passed"] > 0 and not report["collection_errors"]


def test_the_compat_level_catches_the_variant_through_each_pin(report, variant_runs):
    assert report["verdict"]["levels"]["compat"]["verdict"] == "does not conform"
    failed = variant_runs.failed_at(report, "compat")
    named = {pin for row in failed for pin in row["pinned_details"]}
    missing = sorted(DIFFERING_PINS - named)
    assert not missing, f"no failing compat test names the pins {missing}; named {sorted(named)}"

"""The readme level accepts every value the READMEs leave open.

``opposite_values_impl.py`` is the reference taking the other side of each
open choice in its values: it ignores unknown ``schedule_create`` keys, reads
``-00:00`` as UTC, trims as Python's ``str.strip``, matches zone names
case-exactly, answers an actual delete
with ``{id, status: "deleted"}`` and writes UTC instants with ``+00:00``. A
README-conforming implementation like it must conform at the readme level.
At the compat level every failure must come from a pin: each failing compat
test names one of the pins the variant changes (``PINS``), or a pin whose
value is the official build's whole output for a log or a value
(``WHOLE_OUTPUT_PINS``), and each pin in ``PINS`` is named by a failure.
The whole suite runs once, in a separate process (the variant patches the
reference where it is imported); verdicts and pins are read from the JSON
report.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

# Runs the whole suite in another process: more than the default budget.
pytestmark = pytest.mark.dsh_wall_budget(900)


#: The pins that carry what the variant changes (never imported from the
#: variant: importing it patches the reference in this process).
PINS = frozenset({
    "SCH-CREATE-ARGUMENT-CHECKS", "SCH-NEGATIVE-ZERO-OFFSET", "SCH-ZONE-NAME-CASE",
    "SCH-VIEW-FIELDS", "SCH-INSTANT-TEXT", "SCH-TRIM-WHITESPACE", "TC-ZONE-NAME-CASE",
})

#: Pins whose value is the official build's exact output as a whole: the
#: rendered text of a value (SCH-RENDERED-JSON) and what a log the official
#: build wrote replays to, its views and framings included (SCH-LOG-INTEROP).
#: A different view field or instant spelling shows there too.
WHOLE_OUTPUT_PINS = frozenset({"SCH-RENDERED-JSON", "SCH-LOG-INTEROP"})


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory, variant_runs: Any) -> dict[str, Any]:
    report = tmp_path_factory.mktemp("opposite") / "report.json"
    return variant_runs.run_variant("opposite_values_impl:IMPLEMENTATION", report)


def test_the_readme_level_conforms_on_a_variant_with_the_other_open_values(
    report, variant_runs
):
    failed = variant_runs.failed_at(report, "readme")
    first = [f"{row['id']}: {(row['message'] or '').splitlines()[:1]}"[:400]
             for row in failed[:10]]
    assert report["verdict"]["levels"]["readme"]["verdict"] == "conforms", (
        f"{len(failed)} readme-level tests refuse a value the READMEs leave open:\n"
        + "\n".join(first))
    assert report["counts"]["passed"] > 0 and not report["collection_errors"]


def test_every_compat_failure_comes_from_a_pin_the_variant_changes(report, variant_runs):
    assert report["verdict"]["levels"]["compat"]["verdict"] == "does not conform"
    failed = variant_runs.failed_at(report, "compat")
    unexplained = Counter(
        f"{row['id'].partition('[')[0]} {row['pinned_details']}" for row in failed
        if not set(row["pinned_details"]) & (PINS | WHOLE_OUTPUT_PINS))
    assert not unexplained, (
        "compat tests that fail on the variant name none of the pins it changes "
        f"({sorted(PINS)}): {dict(unexplained)}")
    named = {pin for row in failed for pin in row["pinned_details"]}
    missing = sorted(PINS - named)
    assert not missing, f"no failing compat test names the pins {missing}; named {sorted(named)}"

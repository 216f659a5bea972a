"""The conformance suite fails each deliberately broken implementation.

Every mutant breaks one behaviour the READMEs require; the suite (restricted to
the modules that own that behaviour, to stay fast) must report failures, and
the named test must be among them.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).parent

CASES = [
    ("interval-boundary-exclusive", "dsh_conformance.time_context.test_configuration",
     "test_a_positive_interval_appends_once_at_least_that_many_ms_passed[1000-True]"),
    ("elapsed-never-clamped-to-zero", "dsh_conformance.time_context.test_timing_semantics",
     "test_step_one_measures_from_the_prompt_that_opened_the_turn"),
    ("flush-failures-ignored", "dsh_conformance.schedule.test_composition",
     "test_failed_preflight_returns_persistence_uncertain[schedule_list"),
    ("reminders-fire-early", "dsh_conformance.schedule.test_delivery_lifecycle",
     "test_the_earliest_target_of_the_fold_fires_first"),
    ("tool-results-ascii-escaped", "dsh_conformance.schedule.test_model_experience",
     "test_model_issued_calls_return_canonical_json_through_the_transcript"),
    ("framing-drops-untrusted", "dsh_conformance.schedule.test_model_experience",
     "test_one_shot_framing_is_exact"),
    ("overlap-resolves-to-the-later-instant", "dsh_conformance.dst",
     "test_dst_table_zone[America/New_York]"),
]


@pytest.mark.parametrize(("mutant", "module", "expected_failure"), CASES,
                         ids=[case[0] for case in CASES])
def test_the_suite_fails_the_mutant(mutant: str, module: str, expected_failure: str) -> None:
    env = {**os.environ, "DSH_MUTANT": mutant,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", module, "-q", "-p", "no:cacheprovider",
         "--dsh-impl=mutant_impls:IMPLEMENTATION", "-rf", "--no-header"],
        capture_output=True, text=True, check=False, env=env, cwd=HERE,
    )
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED ")]
    assert any(expected_failure in line for line in failed), done.stdout[-3000:]


def test_the_unbroken_reference_passes_the_same_modules() -> None:
    modules = sorted({module for _, module, _ in CASES})
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", *modules, "-q", "-p", "no:cacheprovider",
         "--dsh-impl=reference", "--no-header"],
        capture_output=True, text=True, check=False, cwd=HERE,
    )
    assert done.returncode == 0, done.stdout[-3000:]

"""Every README sentence is checked by a test, and docs/traceability.md says which."""

from __future__ import annotations

import pathlib
import sys

import kit_child_processes as children

from dsh_spec.sentences import SPEC_FILES, all_sentences, spec_sentences

REPORT = pathlib.Path(__file__).parents[2] / "docs" / "traceability.md"


def test_both_readmes_are_split_into_sentences() -> None:
    assert len(spec_sentences("SCH")) == 90
    assert len(spec_sentences("TC")) == 46
    assert set(SPEC_FILES) == {"SCH", "TC"}


def test_every_sentence_has_a_test_and_the_report_is_current() -> None:
    done = children.run(
        [sys.executable, "-m", "dsh_conformance.traceability", "--check", str(REPORT)],
        capture_output=True, text=True, check=False, cwd=REPORT.parent,
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_report_lists_every_sentence_with_at_least_one_test() -> None:
    report = REPORT.read_text("utf-8")
    rows = {line.split(" | ")[0].lstrip("| "): line for line in report.splitlines()
            if line.startswith(("| SCH-", "| TC-"))}
    assert set(rows) == {sentence.id for sentence in all_sentences()}
    assert [sid for sid, row in rows.items() if row.endswith("| **none** |")] == []

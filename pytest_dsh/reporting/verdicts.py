"""Verdicts: per requirement level and plugin, overall, and the exit status.

* ``conforms``: every assessed test passed;
* ``conforms with known failures``: the only failures are listed expectations
  (strict xfails); still a success;
* ``does not conform``: a test failed or errored, or a known failure passed
  (its expectation is stale);
* ``not assessed``: nothing ran where something should have: a declared
  plugin whose selected tests were all skipped, or no declared plugin at all.

A plugin whose capability the implementation does not declare, or none of
whose tests were selected (one section was run), is reported but does not
count towards the overall verdict.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

__all__ = [
    "CONFORMS",
    "DOES_NOT_CONFORM",
    "EXIT_NOT_ASSESSED",
    "KNOWN_FAILURES",
    "NOT_ASSESSED",
    "OUTCOMES",
    "VERDICTS",
    "combine",
    "exit_status",
    "group_verdict",
]

CONFORMS: Final = "conforms"
KNOWN_FAILURES: Final = "conforms with known failures"
DOES_NOT_CONFORM: Final = "does not conform"
NOT_ASSESSED: Final = "not assessed"
VERDICTS: Final = (CONFORMS, KNOWN_FAILURES, DOES_NOT_CONFORM, NOT_ASSESSED)

#: Outcomes of one test, in report order.
OUTCOMES: Final = ("passed", "failed", "error", "xpassed", "xfailed", "skipped")

#: pytest uses 0-5; a run that assessed nothing exits with this status.
EXIT_NOT_ASSESSED: Final = 6

_FAILING: Final = ("failed", "error", "xpassed")


def group_verdict(counts: Mapping[str, int]) -> str:
    """The verdict of one group of tests from its outcome counts."""
    if any(counts.get(outcome, 0) for outcome in _FAILING):
        return DOES_NOT_CONFORM
    if not (counts.get("passed", 0) or counts.get("xfailed", 0)):
        return NOT_ASSESSED
    return KNOWN_FAILURES if counts.get("xfailed", 0) else CONFORMS


def combine(verdicts: Iterable[str]) -> str:
    """Several counted verdicts as one (nothing counted: not assessed)."""
    seen = set(verdicts)
    for verdict in (DOES_NOT_CONFORM, NOT_ASSESSED, KNOWN_FAILURES, CONFORMS):
        if verdict in seen:
            return verdict
    return NOT_ASSESSED


def total(counts: Iterable[Mapping[str, int]]) -> Counter[str]:
    summed: Counter[str] = Counter()
    for one in counts:
        summed.update(one)
    return summed


def exit_status(verdict: str, pytest_status: int, *, failures_anywhere: bool) -> int:
    """The run's exit status. pytest's own errors (interrupted, internal,
    usage) win; otherwise it follows the verdict: 0 for conforms (with or
    without known failures), 1 for does not conform, 6 for not assessed."""
    if pytest_status in (2, 3, 4):
        return pytest_status
    if verdict == DOES_NOT_CONFORM or failures_anywhere:
        return 1
    if verdict == NOT_ASSESSED:
        return EXIT_NOT_ASSESSED
    return 0


def describe_counts(counts: Mapping[str, int], order: Sequence[str] = OUTCOMES) -> str:
    parts = [f"{counts[o]} {o}" for o in order if counts.get(o)]
    return ", ".join(parts) or "no tests"

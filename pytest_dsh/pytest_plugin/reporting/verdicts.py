"""Verdicts: per requirement level and plugin, overall, and the exit status.

* ``conforms``: every assessed test passed;
* ``conforms with known failures``: the only failures are listed expectations
  (strict xfails); still a success;
* ``does not conform``: a test failed or errored, or a known failure passed
  (its expectation is stale);
* ``not assessed``: nothing ran where something should have: a declared
  plugin whose selected tests were all skipped, or no declared plugin at all.

A run that pytest itself ended early claims nothing: ``interrupted`` (Ctrl-C,
``pytest.exit``: exit status 2), ``internal error`` (3) and ``usage error``
(4) take the place of every verdict, overall and per level and plugin.
Every word, its tone and what it means live in one table, :data:`WORDS`.

A plugin whose capability the implementation does not declare, or none of
whose tests were selected (one section was run), is reported but does not
count towards the overall verdict.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

__all__ = [
    "CONFORMS",
    "COUNTED",
    "DOES_NOT_CONFORM",
    "EXIT_NOT_ASSESSED",
    "INTERNAL_ERROR",
    "INTERRUPTED",
    "KNOWN_FAILURES",
    "NOT_ASSESSED",
    "NO_VERDICT",
    "OUTCOMES",
    "USAGE_ERROR",
    "VERDICTS",
    "WORDS",
    "Word",
    "combine",
    "exit_status",
    "group_verdict",
    "word",
]

CONFORMS: Final = "conforms"
KNOWN_FAILURES: Final = "conforms with known failures"
DOES_NOT_CONFORM: Final = "does not conform"
NOT_ASSESSED: Final = "not assessed"
INTERRUPTED: Final = "interrupted"
INTERNAL_ERROR: Final = "internal error"
USAGE_ERROR: Final = "usage error"


@dataclass(frozen=True)
class Word:
    """One word a verdict field may carry.

    ``claims``: whether it says anything about conformance; ``tone``: how
    renderings mark it (``good``, ``known``, ``bad``, ``none``, ``halt``);
    ``pytest_status``: the pytest exit status it stands for, for a word given
    instead of a verdict; ``meaning``: one clause the reports print beside it.
    """

    text: str
    claims: bool
    tone: str
    meaning: str
    pytest_status: int | None = None


#: Every verdict word, in report order: the one place to add an outcome.
WORDS: Final = (
    Word(CONFORMS, True, "good", "every assessed test passed"),
    Word(KNOWN_FAILURES, True, "known", "the only failures are listed known failures"),
    Word(DOES_NOT_CONFORM, True, "bad", "a test failed or erred, or a known failure passed"),
    Word(NOT_ASSESSED, True, "none", "nothing ran where something should have"),
    Word(INTERRUPTED, False, "halt", "the run was stopped before it finished", 2),
    Word(INTERNAL_ERROR, False, "halt", "pytest failed inside itself", 3),
    Word(USAGE_ERROR, False, "halt", "pytest refused the command line or configuration", 4),
)
VERDICTS: Final = tuple(one.text for one in WORDS)
#: pytest's exit statuses that end a run before it can be judged -> the word.
NO_VERDICT: Final[Mapping[int, str]] = MappingProxyType(
    {one.pytest_status: one.text for one in WORDS if one.pytest_status is not None}
)
_BY_TEXT: Final = {one.text: one for one in WORDS}


def word(text: str) -> Word:
    """The table row of a verdict word (an unknown word claims nothing)."""
    return _BY_TEXT.get(text) or Word(text, False, "none", "")


#: Outcomes of one test, in report order.
#: ``host limit``/``host limit lifted``: tests the DSH host decides
#: (pytest_dsh.npm.host_limits), never counted for or against a plugin.
OUTCOMES: Final = (
    "passed", "failed", "error", "xpassed", "xfailed", "host limit", "host limit lifted",
    "skipped",
)
#: What a report counts: the outcomes and the selected tests that never ran
#: (the run stopped before them).
COUNTED: Final = (*OUTCOMES, "not run")

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
    if pytest_status in NO_VERDICT:
        return pytest_status
    if verdict == DOES_NOT_CONFORM or failures_anywhere:
        return 1
    if verdict == NOT_ASSESSED:
        return EXIT_NOT_ASSESSED
    return 0


def describe_counts(counts: Mapping[str, int], order: Sequence[str] = COUNTED) -> str:
    parts = [f"{counts[o]} {o}" for o in order if counts.get(o)]
    return ", ".join(parts) or "no tests"

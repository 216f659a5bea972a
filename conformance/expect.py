"""Assertion messages that say which level a check belongs to and what it saw.

A conformance failure is read out of context (a report row, a CI log), so every
assertion says whether a README sentence requires it (``readme``) or it pins a
detail the README leaves open, following the official build (``pinned``), what
exactly is required, and what was observed.

Time-context readings are compared at two depths: :func:`reading_facts` keeps
only what the README fixes (the two line templates, turn and step, the local
wall time to the second, its numeric offset and IANA zone, the elapsed time in
whole seconds or ``unavailable``); the exact spelling (``1m 0s``, the
``+08:00[Asia/Shanghai]`` arrangement) is pinned separately.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

from dsh_conformance.shapes import shape_problem
from pytest_dsh.driving.stable_repr import stable_repr
from pytest_dsh.driving.value_shapes import records_wrapped

__all__ = [
    "ReadingFacts", "all_facts", "code_of", "pinned", "reading_facts", "readme", "seconds_of",
]

_LIMIT = 600


def _shown(observed: object) -> str:
    # Sets in sorted order: the same failure reads the same in every run.
    text = stable_repr(observed)
    return text if len(text) <= _LIMIT else text[:_LIMIT] + f"... ({len(text)} chars)"


def readme(
    sentences: str, requirement: str, observed: object = ..., *, why: str | None = None
) -> str:
    """``README SCH-031 ("<the sentence, shortened>") requires <requirement>;
    observed <observed>``: every sentence id in ``sentences`` is followed by
    its text (English), so the message reads without the README at hand.

    When the observed value fails by its shape (:mod:`dsh_conformance.shapes`),
    or ``why`` says why it does not meet the requirement, the reason comes
    before what was observed: ``requires <requirement>, but <why>; observed``."""
    seen = _seen(requirement, observed, why, records_wrapped)
    return f"README {_with_texts(sentences)} requires {requirement}{seen}"


def pinned(
    pin_id: str, requirement: str, observed: object = ..., *, why: str | None = None
) -> str:
    """A message for a detail pinned to the official build (see docs/pinned-details.md),
    with the title of each pinned detail named; ``why`` as for :func:`readme`."""
    return (
        f"pinned detail {_with_titles(pin_id)} (the README leaves this open; the suite "
        f"follows the official build, docs/pinned-details.md) requires {requirement}"
        f"{_seen(requirement, observed, why, functools.partial(shape_problem, requirement))}"
    )


def _seen(
    requirement: str, observed: object, why: str | None,
    problem: Callable[[object], str | None],
) -> str:
    # A readme check finds closed codes wherever the value holds them: only a
    # pinned detail can fail for the key a code is under.
    if observed is ...:
        return f", but {why}" if why else ""
    reason = why or problem(observed)
    return (f", but {reason}" if reason else "") + f"; observed {_shown(observed)}"


# A sentence's text is shortened (more when several ids share a message).
_TEXT_LIMIT = 100
_TEXT_LIMIT_MANY = 60
_SENTENCE_ID = re.compile(r"\b(?:SCH|TC)-\d{3}\b")
_PIN_ID = re.compile(r"\b[A-Z]+(?:-[A-Z0-9]+)+\b")


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " …"


@functools.cache
def _sentence_texts() -> dict[str, str]:
    from dsh_spec.sentences import all_sentences

    return {s.id: s.english or s.text for s in all_sentences()}


@functools.cache
def _pin_titles() -> dict[str, str]:
    from dsh_spec.pins import load_pins

    return {pin_id: str(pin.get("title", "")) for pin_id, pin in load_pins().items()}


def _with_texts(sentences: str) -> str:
    texts = _sentence_texts()
    limit = _TEXT_LIMIT if len(_SENTENCE_ID.findall(sentences)) <= 2 else _TEXT_LIMIT_MANY

    def named(match: re.Match[str]) -> str:
        text = texts.get(match[0])
        return f'{match[0]} ("{_short(text, limit)}")' if text else match[0]

    return _SENTENCE_ID.sub(named, sentences)


def _with_titles(pin_ids: str) -> str:
    titles = _pin_titles()

    def named(match: re.Match[str]) -> str:
        title = titles.get(match[0])
        return f'{match[0]} ("{title}")' if title else match[0]

    return _PIN_ID.sub(named, pin_ids)


class ReadingFacts(NamedTuple):
    """What the README fixes about one reading."""

    turn: int
    step: int
    baseline: str
    local_time: str
    offset: str
    zone: str
    elapsed_s: int | None


_LINES = re.compile(
    r"Time sampled while preparing turn (?P<turn>\d+), step (?P<step>\d+): (?P<timestamp>.+)\n"
    r"Elapsed since the preceding (?P<baseline>model-visible message|step context): "
    r"(?P<elapsed>.+)\."
)
# ISO-shaped local date-time to the second and its numeric offset, with the zone in any
# framing after them or before them (TC-034 fixes the parts, not their arrangement).
_LOCAL = r"(?P<local>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?P<offset>[+-]\d{2}:\d{2}(?::\d{2})?)"
_ZONE = r"(?P<zone>[A-Za-z][A-Za-z0-9_+\-/]*)"
_TIMESTAMPS = (
    re.compile(_LOCAL + r"[\s\[(]*" + _ZONE + r"[\])]*"),
    re.compile(r"[\[(]*" + _ZONE + r"(?:[\])]+\s*|\s+)" + _LOCAL),
)
_DURATION = re.compile(
    r"(?:(?P<d>\d+)\s*d)?\s*(?:(?P<h>\d+)\s*h)?\s*(?:(?P<m>\d+)\s*m)?\s*(?:(?P<s>\d+)\s*s)?"
)
_UNIT_S = {"d": 86_400, "h": 3_600, "m": 60, "s": 1}


def seconds_of(duration: str) -> int | None:
    """Whole seconds of a compact duration in any spelling (``1m 0s``, ``60s``),
    ``None`` for ``unavailable``; ``ValueError`` for anything else."""
    if duration == "unavailable":
        return None
    match = _DURATION.fullmatch(duration.strip())
    if not duration.strip() or match is None or not any(match.groupdict().values()):
        raise ValueError(f"not a compact whole-second duration: {duration!r}")
    return sum(int(value) * _UNIT_S[unit] for unit, value in match.groupdict().items() if value)


def reading_facts(text: str) -> ReadingFacts | str:
    """The README-level facts of a reading, or a description of why ``text`` is not
    one (so a comparison of lists shows the offending text)."""
    lines = _LINES.fullmatch(text)
    if lines is None:
        return f"not the README's two-line reading: {text!r}"
    stamp = next(filter(None, (shape.fullmatch(lines["timestamp"]) for shape in _TIMESTAMPS)),
                 None)
    if stamp is None:
        return f"timestamp without local time, numeric offset and IANA zone: {text!r}"
    try:
        elapsed = seconds_of(lines["elapsed"])
    except ValueError:
        return f"elapsed time is not compact whole-second units: {text!r}"
    step = int(lines["step"])
    expected_baseline = "model-visible message" if step == 1 else "step context"
    if lines["baseline"] != expected_baseline:
        return f"step {step} names the wrong baseline line: {text!r}"
    return ReadingFacts(
        int(lines["turn"]), step, lines["baseline"], stamp["local"], stamp["offset"],
        stamp["zone"], elapsed,
    )


def all_facts(texts: Iterable[str]) -> list[ReadingFacts | str]:
    return [reading_facts(text) for text in texts]


def code_of(value: object) -> object:
    """The ``code`` of a Schedule error value (what the README fixes), else the value."""
    return value.get("code") if isinstance(value, dict) else value

"""Strategies for ``schedule_create`` arguments: prompts, valid arguments with
one selector, and pre-queue failures with the closed value each must get."""

from __future__ import annotations

import functools
from typing import Any, Final

from hypothesis import strategies as st

from pytest_dsh.strategies.at_selectors import offset_at_strings
from pytest_dsh.strategies.instants import (
    JS_WHITESPACE,
    MAX_SAFE_INTEGER,
    js_trim,
)

__all__ = [
    "AMBIGUOUS_EDGES",
    "ANY_TRIM",
    "blank_prompts",
    "create_arguments",
    "invalid_create_arguments",
    "prompts",
]


# -- prompts ------------------------------------------------------------------------------


#: Characters that Unicode or Python call whitespace but ECMAScript does not
#: trim. Generated prompts never start or end with them, so no property depends
#: on that difference (the README says only "trimmed").
AMBIGUOUS_EDGES: Final = "\x1c\x1d\x1e\x1f\x85\u180e"


def _clean_edges(text: str) -> bool:
    core = js_trim(text)
    return core != "" and core[0] not in AMBIGUOUS_EDGES and core[-1] not in AMBIGUOUS_EDGES


@functools.cache
def prompts(*, max_size: int = 40, padding: str = JS_WHITESPACE) -> st.SearchStrategy[str]:
    """Prompts that stay non-empty after JS trimming, possibly padded with
    characters of ``padding`` (``ANY_TRIM`` for a readme test: the README says
    only "trimmed", SCH-TRIM-WHITESPACE).
    Built once per size: Hypothesis reads the filter's source each time one is
    built, which cost more than the draws where the event-log strategy calls it."""
    pads = st.text(alphabet=padding, max_size=3)
    core = st.text(
        # Every code point but a surrogate: what UTF-8 can encode. Spelled without
        # codec="utf-8", which makes Hypothesis test all 1.1M code points per run.
        alphabet=st.characters(exclude_categories=["Cs"]),
        min_size=1,
        max_size=max_size,
    ).filter(_clean_edges)
    return st.tuples(pads, core, pads).map("".join)


#: Whitespace that any trim removes (ASCII space, tab, newline): all a test
#: that follows the README, which says only "trimmed", may pad a prompt with.
ANY_TRIM: Final = " \t\n"


def blank_prompts(*, alphabet: str = JS_WHITESPACE) -> st.SearchStrategy[str]:
    """Prompts that are empty after JS trimming; with ``alphabet=ANY_TRIM``,
    empty after any trim."""
    return st.text(alphabet=alphabet, max_size=6)


# -- tool arguments ---------------------------------------------------------------------


def create_arguments(
    *, now_ms: int, padding: str = JS_WHITESPACE
) -> st.SearchStrategy[dict[str, Any]]:
    """Valid ``schedule_create`` arguments with exactly one selector and a
    target within a year of ``now_ms``; prompts padded from ``padding``."""
    after = st.builds(
        lambda prompt, seconds: {"prompt": prompt, "after_seconds": seconds},
        prompts(padding=padding),
        st.integers(1, 365 * 86_400),
    )
    every = st.builds(
        lambda prompt, seconds: {"prompt": prompt, "every_seconds": seconds},
        prompts(padding=padding),
        st.integers(300, 365 * 86_400),
    )
    at = st.builds(
        lambda prompt, case: {"prompt": prompt, "at": case.at},
        prompts(padding=padding),
        offset_at_strings(after_ms=now_ms, until_ms=now_ms + 365 * 86_400_000),
    )
    return st.one_of(after, every, at)


_SELECTOR_ERROR: Final = {
    "code": "invalid_selector",
    "message": "schedule_create accepts exactly one of after_seconds, at, or every_seconds.",
}
_PROMPT_ERROR: Final = {
    "code": "invalid_prompt",
    "message": "prompt must be non-empty after trimming.",
}
_AFTER_ERROR: Final = {
    "code": "invalid_rule",
    "message": "after_seconds must be a positive safe integer.",
}
_EVERY_ERROR: Final = {"code": "invalid_rule", "message": "every_seconds must be a safe integer."}
_FREQUENCY_ERROR: Final = {
    "code": "frequency_too_high",
    "message": "every_seconds must be at least 300.",
}

_SELECTORS: Final = {
    "after_seconds": st.integers(1, 86_400),
    "every_seconds": st.integers(300, 86_400),
    "at": st.just("2030-01-01T00:00:00Z"),
}


@st.composite
def _selector_errors(
    draw: st.DrawFn, blanks: str = JS_WHITESPACE, *, unknown_keys: bool = True
) -> tuple[dict[str, Any], dict[str, str]]:
    prompt = draw(st.one_of(prompts(), blank_prompts(alphabet=blanks)))
    counts = [
        st.just(()),
        st.lists(st.sampled_from(sorted(_SELECTORS)), min_size=2, max_size=3, unique=True),
    ]
    if unknown_keys:
        counts.append(st.lists(st.sampled_from(sorted(_SELECTORS)), min_size=1, max_size=1))
    names = draw(st.one_of(counts))
    arguments: dict[str, Any] = {"prompt": prompt}
    for name in names:
        arguments[name] = draw(_SELECTORS[name])
    if len(names) == 1:  # one selector: make it wrong with an unknown key instead
        extra = draw(
            st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12).filter(
                lambda key: key not in {"prompt", *_SELECTORS}
            )
        )
        # st.text()'s default alphabet, spelled without codec="utf-8" (the same
        # characters and draws), which costs every process a 1.1M code point scan.
        any_text = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=5)
        arguments[extra] = draw(st.one_of(st.integers(), any_text, st.none()))
    return arguments, dict(_SELECTOR_ERROR)


def _non_safe_positive() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.integers(max_value=0),
        st.integers(min_value=MAX_SAFE_INTEGER + 1, max_value=2**64),
        # -0.0 is left out: every host refuses it (not lossless JSON) as a host error.
        st.floats(allow_nan=False, allow_infinity=False).filter(
            lambda x: x != 0 and (not x.is_integer() or x < 0 or x > MAX_SAFE_INTEGER)
        ),
    )


def _non_safe_integer() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.integers(min_value=MAX_SAFE_INTEGER + 1, max_value=2**64),
        st.integers(max_value=-MAX_SAFE_INTEGER - 1, min_value=-(2**64)),
        st.floats(allow_nan=False, allow_infinity=False).filter(
            lambda x: not x.is_integer() or abs(x) > MAX_SAFE_INTEGER
        ),
    )


def invalid_create_arguments(
    *, readme_only: bool = False
) -> st.SearchStrategy[tuple[dict[str, Any], dict[str, str]]]:
    """``(arguments, value)`` pairs for failures that need neither a flush nor
    the clock: invalid selector sets, blank prompts, malformed numbers; the
    value is the official build's.

    The arguments always pass the catalog's argument schema, so the value is a
    closed Schedule error, never a host error. ``readme_only`` keeps the cases
    the README itself rejects: prompts blank under any trim (not JavaScript's
    wider whitespace set), and every_seconds below 300 (the README asks a safe
    integer of after_seconds only: 300.5 or 2**60 is the official build's
    choice, SCH-CREATE-ARGUMENT-CHECKS). It draws no unknown argument key
    either: the README's "extra keys" are those of the local ``at`` object,
    and whether ``schedule_create`` refuses other argument keys is pinned
    (SCH-CREATE-ARGUMENT-CHECKS).
    """
    blanks = ANY_TRIM if readme_only else JS_WHITESPACE
    blank = st.builds(
        lambda prompt, seconds: ({"prompt": prompt, "after_seconds": seconds},
                                 dict(_PROMPT_ERROR)),
        blank_prompts(alphabet=blanks),
        st.integers(1, 86_400),
    )
    after = st.builds(
        lambda prompt, seconds: ({"prompt": prompt, "after_seconds": seconds},
                                 dict(_AFTER_ERROR)),
        prompts(),
        _non_safe_positive(),
    )
    non_integers = _non_safe_integer()
    if readme_only:  # below five minutes: rejected whatever the reason given
        non_integers = non_integers.filter(lambda seconds: seconds < 300)
    every_rule = st.builds(
        lambda prompt, seconds: ({"prompt": prompt, "every_seconds": seconds},
                                 dict(_EVERY_ERROR)),
        prompts(),
        non_integers,
    )
    frequency = st.builds(
        lambda prompt, seconds: ({"prompt": prompt, "every_seconds": seconds},
                                 dict(_FREQUENCY_ERROR)),
        prompts(),
        st.integers(-MAX_SAFE_INTEGER, 299),
    )
    selectors = _selector_errors(blanks, unknown_keys=not readme_only)
    return st.one_of(selectors, blank, after, every_rule, frequency)


"""The options a rerun command repeats: every option of the run's command
line (arguments ``dsh-conformance`` passed after ``--`` included), less what
selects tests, spreads them over processes or writes the run's outputs.

A rerun command names one test, so the run's own selection (paths, packages,
``-k``, ``-m``, ``--deselect``...) is replaced by that test; everything else
(``-p``, ``-o``, ``-c``, budgets, ``--dsh-npm``, Hypothesis settings...) is
repeated as given, so the test runs as it ran. ini values and ``addopts``
apply to a rerun by themselves.

Which option a word is, and whether it takes the next word as its value, is
asked of the run's own parser through its public API
(:meth:`pytest.Parser.parse_known_and_unknown_args`): the option and the word
after it are parsed alone, and the destinations they set, and whether the word
was taken, say it. The kit's own options that a rerun leaves out are those the
option table (:mod:`pytest_dsh.pytest_plugin.options`) marks as not carried.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, Final

import pytest

from pytest_dsh.pytest_plugin.options import not_carried

__all__ = ["DROPPED", "pytest_load_initial_conftests", "rerun_options"]

#: Other plugins' options a rerun leaves out (by argparse destination): the
#: run's selection, its distribution over processes, its outputs, and the
#: Hypothesis seed (the rerun command names the seed the test ran with).
_FOREIGN_DROPPED: Final = frozenset(
    {
        "keyword", "markexpr", "deselect", "ignore", "ignore_glob", "pyargs",
        "lf", "failedfirst", "newfirst", "stepwise", "stepwise_skip",
        "numprocesses", "maxprocesses", "dist", "tx", "rsyncdir", "looponfail",
        "basetemp", "xmlpath", "hypothesis_seed",
    }
)

#: Every destination a rerun leaves out: the kit's, from its option table, and
#: the other plugins' above.
DROPPED: Final = _FOREIGN_DROPPED | not_carried()

_PARSER = pytest.StashKey[pytest.Parser]()

#: Stands for "no word follows" (argparse takes no option for a path).
_NOTHING: Final = "\x00rerun-options: nothing follows"


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> None:
    """Keep the run's parser: pytest hands it to this hook, with its config."""
    early_config.stash[_PARSER] = parser


class _Words:
    """What one option word sets, read from parses of it alone and with the
    word after it."""

    def __init__(self, parser: pytest.Parser) -> None:
        self._parser = parser
        self._defaults: dict[str, Any] = vars(parser.parse_known_args([]))

    def _changed(self, words: list[str]) -> tuple[set[str], list[str]] | None:
        """The destinations ``words`` set, and the words left as paths or
        unknown (``None``: the parser refuses them)."""
        try:
            namespace, unknown = self._parser.parse_known_and_unknown_args(words)
        except (pytest.UsageError, SystemExit, argparse.ArgumentError):
            return None
        values = vars(namespace)
        dests = {
            dest for dest, value in values.items()
            if dest != "file_or_dir" and value != self._defaults.get(dest)
        }
        return dests, [*(values.get("file_or_dir") or ()), *unknown]

    def read(self, token: str, following: str | None) -> tuple[set[str], bool]:
        """The destinations ``token`` sets, and whether it takes ``following``
        as its value: parsed with it, ``following`` is neither a path nor an
        option of its own (which would set destinations of its own)."""
        alone = self._changed([token, _NOTHING])
        pair = self._changed([token, following]) if following is not None else None
        value = pair is not None and following not in pair[1]
        if pair is not None and value and (alone is None or pair[0] == alone[0]):
            return pair[0], True
        return (alone[0], False) if alone is not None else (set(), False)


def rerun_options(config: pytest.Config, args: Sequence[str] | None = None) -> list[str]:
    """The options of ``args`` (default: the run's command line) a rerun repeats."""
    tokens = list(config.invocation_params.args if args is None else args)
    parser = config.stash.get(_PARSER, None)
    words = _Words(parser) if parser is not None else None
    kept: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token == "--":
            break  # only paths follow
        if not token.startswith("-") or token == "-":
            continue  # a path or package: the rerun names its own test
        following = tokens[index] if index < len(tokens) and tokens[index] != "--" else None
        dests, taken = words.read(token, following) if words is not None else (set(), False)
        option = [token]
        if taken and following is not None:
            option.append(following)
            index += 1
        if not dests & DROPPED:
            kept.extend(option)
    return kept

"""The options a rerun command repeats: every option of the run's command
line (arguments ``dsh-conformance`` passed after ``--`` included), less what
selects tests, spreads them over processes or writes the run's outputs.

A rerun command names one test, so the run's own selection (paths, packages,
``-k``, ``-m``, ``--deselect``...) is replaced by that test; everything else
(``-p``, ``-o``, ``-c``, budgets, ``--dsh-npm``, Hypothesis settings...) is
repeated as given, so the test runs as it ran. ini values and ``addopts``
apply to a rerun by themselves.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Final

import pytest

__all__ = ["DROPPED", "rerun_options"]

#: Options a rerun leaves out (by argparse destination): the run's selection,
#: its distribution over processes, its outputs, and what the rerun command
#: sets itself (the implementation, the Hypothesis seed and example count:
#: an exploring run's rerun names the seed it drew, not --dsh-explore).
DROPPED: Final = frozenset(
    {
        "keyword", "markexpr", "deselect", "ignore", "ignore_glob", "pyargs",
        "lf", "failedfirst", "newfirst", "stepwise", "stepwise_skip",
        "numprocesses", "maxprocesses", "dist", "tx", "rsyncdir", "looponfail",
        "basetemp", "xmlpath", "dsh_report", "dsh_list_impls",
        "dsh_impl", "hypothesis_seed", "dsh_explore", "dsh_explore_examples",
    }
)


def _actions(config: pytest.Config) -> Mapping[str, argparse.Action]:
    parser = getattr(getattr(config, "_parser", None), "optparser", None)
    return dict(getattr(parser, "_option_string_actions", {}))


def _takes_value(action: argparse.Action) -> bool:
    return action.nargs not in (0, "?")


def _split(
    token: str, actions: Mapping[str, argparse.Action]
) -> tuple[argparse.Action | None, bool]:
    """The action ``token`` names and whether its value is attached to it
    (``--name=value``, ``-n2``)."""
    if token in actions:
        return actions[token], False
    if token.startswith("--"):
        return actions.get(token.partition("=")[0]), "=" in token
    action = actions.get(token[:2])
    return action, action is not None and _takes_value(action)


def rerun_options(config: pytest.Config, args: Sequence[str] | None = None) -> list[str]:
    """The options of ``args`` (default: the run's command line) a rerun repeats."""
    tokens = list(config.invocation_params.args if args is None else args)
    actions = _actions(config)
    kept: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token == "--":
            break  # only paths follow
        if not token.startswith("-") or token == "-":
            continue  # a path or package: the rerun names its own test
        action, attached = _split(token, actions)
        words = [token]
        if action is not None and _takes_value(action) and not attached and index < len(tokens):
            words.append(tokens[index])
            index += 1
        if action is None or action.dest not in DROPPED:
            kept.extend(words)
    return kept

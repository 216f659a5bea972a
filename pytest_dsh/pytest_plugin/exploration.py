"""Opt-in exploration of the suite's property tests (docs/reproducibility.md); the
options are rows of :mod:`pytest_dsh.pytest_plugin.options`.

``--dsh-explore`` / ini ``dsh_explore``
    Draw a random Hypothesis seed instead of the kit's fixed one, to look for
    failing examples the fixed set does not hold. The seed is printed in the
    header, recorded in the reports and put in every rerun command.
``--dsh-explore-examples N`` / ini ``dsh_explore_examples``
    Run N examples in every ``@given`` test of the suite instead of each
    test's own count (with or without ``--dsh-explore``; without it the seed
    stays the kit's, so the run is still reproducible).

An exploring run ends with what it found: the property tests that failed
with that seed, each with the command that replays it, and the command that
replays the whole run. A failure found this way belongs in the suite as an
``@example`` of its test, so every later run checks it.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Final, final

import pytest

from pytest_dsh.pytest_plugin.hypothesis_scope import SuiteHypothesis
from pytest_dsh.pytest_plugin.suite_items import rerun_command

__all__ = [
    "PROPERTY",
    "Exploration",
    "examples_requested",
    "explore_requested",
    "replay_command",
]

#: The user property marking a suite test as a property (``@given``) test
#: in an exploring run, so a controller knows it from a worker's report.
PROPERTY: Final = "property_test"

#: Options a whole-run replay leaves out: it names the seed (and the example
#: count) itself.
_REPLACED: Final = ("--dsh-explore", "--dsh-explore-examples", "--hypothesis-seed")


def explore_requested(config: pytest.Config) -> bool:
    """``--dsh-explore``, else its ini twin."""
    option = config.getoption("dsh_explore", None)
    if option is not None:
        return bool(option)
    return bool(config.getini("dsh_explore"))


def examples_requested(config: pytest.Config) -> int | None:
    """``--dsh-explore-examples``, else its ini twin; ``None`` when neither is set.
    Anything but a whole number >= 1 is a usage error."""
    option = config.getoption("dsh_explore_examples", None)
    text = str(option if option is not None else config.getini("dsh_explore_examples")).strip()
    if not text:
        return None
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise pytest.UsageError(
            f"--dsh-explore-examples: expected a whole number >= 1, not {text!r}"
        )
    return count


def replay_command(args: Sequence[str], hypothesis: SuiteHypothesis) -> str:
    """The pytest command that runs ``args`` again with the same examples."""
    kept: list[str] = []
    skip_value = False
    for arg in args:
        if skip_value:
            skip_value = False
            continue
        name = arg.partition("=")[0]
        if name in _REPLACED:
            # --dsh-explore takes no value; the others may take theirs as the next word.
            skip_value = name != "--dsh-explore" and "=" not in arg
            continue
        kept.append(arg)
    return shlex.join(["pytest", *kept, *hypothesis.replay_args()])


@final
class Exploration:
    """Registered on the process that gives the verdict of an exploring run:
    collects the property tests that failed and prints them with the seed."""

    def __init__(
        self, config: pytest.Config, hypothesis: SuiteHypothesis, rerun_args: Sequence[str]
    ) -> None:
        self._config = config
        self._hypothesis = hypothesis
        self._rerun_args = list(rerun_args)
        self._failed: dict[str, str] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        properties = {str(name): str(value) for name, value in report.user_properties}
        if not report.failed or PROPERTY not in properties or report.nodeid in self._failed:
            return
        path = self._config.rootpath / report.location[0]
        test_id = properties.get("test_id", report.nodeid)
        self._failed[report.nodeid] = rerun_command(
            path, report.nodeid, test_id, self._config.invocation_params.dir, self._rerun_args
        )

    # Before the conformance summary: the verdict and its causes end the output.
    @pytest.hookimpl(tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        hypothesis = self._hypothesis
        terminalreporter.section("dsh exploration", sep="-", bold=True)
        count = (
            f"{hypothesis.examples} examples per property test"
            if hypothesis.examples is not None else "each property test's own example count"
        )
        terminalreporter.line(f"explored with seed {hypothesis.seed} ({hypothesis.chosen}); "
                              f"{count}")
        failed = len(self._failed)
        if failed:
            noun = "property test" if failed == 1 else "property tests"
            terminalreporter.line(f"{failed} {noun} failed with this seed:", red=True)
            for command in self._failed.values():
                terminalreporter.line(f"  {command}")
            terminalreporter.line(
                "keep each minimal failing example (Hypothesis prints it above as "
                "'Falsifying example') as an @example of its test"
            )
        else:
            terminalreporter.line("no property test failed with this seed")
        args = self._config.invocation_params.args
        terminalreporter.line(f"replay the run: {replay_command(args, hypothesis)}")

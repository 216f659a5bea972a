"""What the kit knows about each collected test: its stable id, the README
sentences it checks, its requirement level, the pinned details it follows,
the plugin it is about, and a command that reruns it alone.

Levels: a test marked ``@pytest.mark.compat("PIN-ID", ...)`` pins a detail the
README leaves open, following the official build (level ``compat``; the ids are
listed in ``dsh_spec/pinned_details.json``). Every other test checks
what a README sentence requires (level ``readme``; its ``spec`` markers name
the sentences).
"""

from __future__ import annotations

import os
import pathlib
import shlex
from collections.abc import Sequence
from typing import Final

import pytest

from pytest_dsh.implementations import stable_test_id, suite_relative_path
from pytest_dsh.pytest_plugin import roles
from pytest_dsh.pytest_plugin.probes import probe_of
from pytest_dsh.pytest_plugin.reporting.results import TestResult

__all__ = ["LEVELS", "describe_item", "in_suite", "rerun_command"]

LEVELS: Final = ("readme", "compat")
_SENTENCE_PLUGINS: Final = {"SCH": "schedule", "TC": "time-context"}


def in_suite(path: pathlib.Path) -> bool:
    """Whether ``path`` is a file of the installed conformance suite (asked
    for every collected module and around every test: resolved once per file)."""
    return suite_relative_path(path) is not None


def _plugin(test_id: str, sentences: Sequence[str], required: set[str]) -> str:
    path = test_id.partition("::")[0]
    if "time_context" in path:
        return "time-context"
    if "schedule" in path or path.startswith("dst/"):
        return "schedule"
    prefixes = {_SENTENCE_PLUGINS.get(s.split("-", 1)[0]) for s in sentences} - {None}
    if len(prefixes) == 1:
        return str(prefixes.pop())
    if any(c.startswith("schedule") for c in required):
        return "schedule"
    if any(c.startswith("time-context") or c == "process-zone" for c in required):
        return "time-context"
    return "general"


def rerun_command(
    path: pathlib.Path, nodeid: str, test_id: str, invocation_dir: pathlib.Path,
    extra: Sequence[str],
) -> str:
    """The command that reruns one test (of file ``path``) alone."""
    _, sep, name = nodeid.partition("::")
    if in_suite(path):
        module = test_id.partition("::")[0].removesuffix(".py").replace("/", ".")
        target = ["--pyargs", f"dsh_conformance.{module}{sep}{name}"]
    else:
        relative = os.path.relpath(path, invocation_dir)
        target = [f"{relative}{sep}{name}"]
    return shlex.join(["pytest", *target, *extra])


def describe_item(item: pytest.Item, rerun_args: Sequence[str]) -> TestResult:
    """The kit's view of ``item`` before it runs."""
    test_id = stable_test_id(item.path, item.nodeid)
    sentences = tuple(
        dict.fromkeys(str(arg) for mark in item.iter_markers("spec") for arg in mark.args)
    )
    pins = tuple(
        dict.fromkeys(str(arg) for mark in item.iter_markers("compat") for arg in mark.args)
    )
    required = set(roles.named_requirements(item, "capability"))
    return TestResult(
        id=test_id,
        nodeid=item.nodeid,
        plugin=_plugin(test_id, sentences, required),
        level="compat" if item.get_closest_marker("compat") is not None else "readme",
        sentences=sentences,
        pinned_details=pins,
        rerun=rerun_command(
            item.path, item.nodeid, test_id, item.config.invocation_params.dir, rerun_args
        ),
        probe=probe_of(item),
    )

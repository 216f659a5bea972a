"""Runs ``python -m pytest ARGS`` many times, each in a fresh process forked
from this one, which has imported pytest and the plugins once for all of them.

A mutant patches the reference in the process that imports the catalog, so
each run needs a process of its own; importing pytest, the standard library,
the plugins, Hypothesis and the reference again for each of 94 runs was most
of their cost. What pytest rewrites (a plugin's distribution, such as the
kit's or Hypothesis's) is imported here under pytest's own assertion-rewriting
hook, so a run finds it rewritten, as a process started from scratch imports
it; the suite's modules and conftests and the catalog are each run's own.

Requests come on stdin, one JSON object a line: ``{"args": [...], "env": {...},
"cwd": "...", "stdout": "file", "stderr": "file", "pid": "file"}``; each answer is
one line, ``{"returncode": N}``, once the run has ended. The run leads a process
group of its own, whose id the server writes to the ``pid`` file before it
waits, so that a client can stop a run that does not end (and its children).
Run it with the environment whose ``PYTHONPATH`` every request uses (the path
is read when Python starts).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import traceback
from importlib.metadata import entry_points
from typing import Any

import _pytest.assertion
import _pytest.assertion.rewrite
import _pytest.config
import pytest

#: Imported once, here: pytest's own modules, and what a run of the suite
#: imports that pytest leaves alone.
PRELOADED = (
    "_pytest.assertion.rewrite", "_pytest.fixtures", "_pytest.main", "_pytest.pytester",
    "_pytest.python", "_pytest.runner", "asyncio", "ast", "dataclasses", "datetime", "decimal",
    "fractions", "hashlib", "inspect", "jsonschema", "sqlite3", "tempfile", "textwrap",
    "unittest.mock", "xml.etree.ElementTree", "zoneinfo",
)
for _name in PRELOADED:
    importlib.import_module(_name)


def _rewritten_names() -> set[str]:
    """The modules pytest rewrites because a distribution registers a pytest
    plugin (``pytest11``): each imported here must be imported as a run's
    pytest would, under its assertion-rewriting hook."""
    from importlib.metadata import distributions

    names: set[str] = set()
    for dist in distributions():
        if any(ep.group == "pytest11" for ep in dist.entry_points):
            files = [str(f) for f in dist.files or ()]
            names.update(_pytest.config._iter_rewritable_modules(files))
    return names


#: Plugins of distributions that the runs turn off (``-p no:randomly``): not
#: imported here either.
_TURNED_OFF = frozenset({"randomly"})
#: What every run imports after its plugins, from their distributions:
#: Hypothesis (its plugin imports it when the run is configured), the
#: reference (the mutant catalog imports it and then patches it), the fake
#: host and what the kit's plugin imports only once a run needs it.
_RUNS_IMPORT = (
    "hypothesis", "hypothesis.strategies", "dsh_reference.implementation",
    "pytest_dsh.fake_host.driver", "pytest_dsh.driving.stable_repr",
    "pytest_dsh.driving.value_shapes", "pytest_dsh.pytest_plugin.gc_baseline",
    "pytest_dsh.pytest_plugin.replay_groups", "pytest_dsh.pytest_plugin.reporting.raised",
    "pytest_dsh.pytest_plugin.requirement_skips", "pytest_dsh.pytest_plugin.stable_set_diffs",
)


def _preload_plugins(rewritten: set[str]) -> None:
    """Import every plugin a run loads from its distribution (``pytest11``)
    and ``_RUNS_IMPORT``, under pytest's own assertion-rewriting hook: each run
    then finds them imported and rewritten (pytest warns about a plugin
    module only when no rewriting hook loaded it)."""
    config = _pytest.config.get_config([])
    hook = _pytest.assertion.install_importhook(config)
    hook.mark_rewrite(*rewritten)
    try:
        for entry in entry_points(group="pytest11"):
            if entry.name not in _TURNED_OFF:
                entry.load()
        for name in _RUNS_IMPORT:
            importlib.import_module(name)
    finally:
        config._ensure_unconfigure()  # takes the hook off sys.meta_path


def _unrewritten(rewritten: set[str]) -> list[str]:
    """Source modules of ``rewritten`` that no assertion-rewriting hook loaded."""
    return sorted(
        name for name, module in list(sys.modules.items())
        if any(name == top or name.startswith(top + ".") for top in rewritten)
        and str(getattr(module, "__file__", None)).endswith(".py")  # not a C extension
        and not isinstance(getattr(module, "__loader__", None),
                           _pytest.assertion.rewrite.AssertionRewritingHook)
    )


_REWRITTEN = _rewritten_names()
_early = _unrewritten(_REWRITTEN)
assert not _early, f"imported before pytest's hook could rewrite them: {_early}"
_preload_plugins(_REWRITTEN)
_late = _unrewritten(_REWRITTEN)
assert not _late, f"imported without pytest's rewriting: {_late}"


def _run(request: dict[str, Any]) -> int:
    """Fork, run pytest in the child with the request's environment, folder and
    output files, and wait: the child's exit status."""
    if request["env"].get("PYTHONPATH") != os.environ.get("PYTHONPATH"):
        raise ValueError("a request must use the PYTHONPATH the server started with")
    pid = os.fork()
    if pid == 0:  # the run
        code = 70
        try:
            os.setpgid(0, 0)
            os.environ.clear()
            os.environ.update(request["env"])
            os.chdir(request["cwd"])
            sys.path[0] = os.getcwd()  # as ``python -m`` puts it
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            for fd, name in ((1, "stdout"), (2, "stderr")):
                out = os.open(request[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(out, fd)
                os.close(out)
            sys.argv = ["pytest", *request["args"]]
            code = int(pytest.main(request["args"]))
        except BaseException:  # anything, reported as a crashed process would be
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    with contextlib.suppress(OSError):  # the child may have set it first
        os.setpgid(pid, pid)
    with open(request["pid"], "w", encoding="utf-8") as announced:
        announced.write(str(pid))
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def main() -> None:
    for line in sys.stdin:
        code = _run(json.loads(line))
        sys.stdout.write(json.dumps({"returncode": code}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

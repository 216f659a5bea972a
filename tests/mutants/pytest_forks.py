"""Runs ``python -m pytest ARGS`` many times, each in a fresh process forked
from this one, which has imported pytest once for all of them.

A mutant patches the reference in the process that imports the catalog, so
each run needs a process of its own; importing pytest and the standard
library again for each of 87 runs was most of their cost. Nothing pytest
rewrites (a plugin's distribution, such as the kit's or Hypothesis's) is
imported here: each forked run imports those itself, under its own assertion
rewriting, as a process started from scratch does.

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
from typing import Any

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
    plugin (``pytest11``): none may be imported before a run starts."""
    from importlib.metadata import distributions

    names: set[str] = set()
    for dist in distributions():
        if any(ep.group == "pytest11" for ep in dist.entry_points):
            files = [str(f) for f in dist.files or ()]
            names.update(_pytest.config._iter_rewritable_modules(files))
    return names


_early = sorted(name for name in _rewritten_names()
                if name in sys.modules or any(m.startswith(name + ".") for m in sys.modules))
assert not _early, f"imported before pytest could rewrite them: {_early}"


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
            code = int(pytest.console_main())
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

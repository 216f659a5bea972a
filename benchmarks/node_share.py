"""How much of a suite run's CPU its child processes (the Node bridge) used, file by file.

A run on the official build spends most of its CPU in the Node process that
hosts the DSH packages, a child of pytest's process that pytest reaps only
when the run ends. The CPU pytest's parent sees (user + sys of the process and
what it waited for) lumps the two together; this pytest plugin tells them
apart. After each test it reads the CPU of every live descendant (``/proc``)
and of every reaped one (``os.times``), and charges what they used since the
previous test to the test's file. At the end it writes what it counted as JSON
to the file the ``DSH_BENCH_NODE_SHARE`` variable names, one per process: a
pytest-xdist worker appends its id to the name, and the controller, whose
children are the workers, writes nothing.

``benchmarks/run.py`` loads it into each suites row (``PYTEST_PLUGINS=node_share``
with a folder holding only this file on ``PYTHONPATH``, so that it also reaches
the runs ``dsh-conformance`` starts); by hand::

    DSH_BENCH_NODE_SHARE=/tmp/share.json PYTHONPATH=benchmarks \\
        pytest --pyargs dsh_conformance --dsh-impl=official -p node_share

Where ``/proc`` cannot be read (not Linux), live children count nothing and
only reaped ones are seen.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

__all__ = ["ENVIRONMENT", "NodeShare", "descendants_cpu", "merge", "stat_cpu_ticks"]

#: The variable naming the file the counts are written to (no file without it).
ENVIRONMENT = "DSH_BENCH_NODE_SHARE"

_PROC = Path("/proc")


def stat_cpu_ticks(stat_text: str) -> int | None:
    """utime + stime (clock ticks) of a ``/proc/PID/stat`` text; None when it is
    not one. The command name may hold spaces and parentheses: fields are
    counted after its last closing parenthesis."""
    _, closing, rest = stat_text.rpartition(")")
    fields = rest.split()
    if not closing or len(fields) < 13 or not (fields[11].isdigit() and fields[12].isdigit()):
        return None
    return int(fields[11]) + int(fields[12])


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:  # the process ended meanwhile, or there is no /proc
        return None


def _children(pid: int) -> list[int]:
    # Each thread lists the children it started: a child started by a thread
    # other than the main one is listed under that thread only.
    try:
        threads = [task.name for task in (_PROC / str(pid) / "task").iterdir()]
    except OSError:
        return []
    children: list[int] = []
    for thread in threads:
        text = _read(_PROC / str(pid) / "task" / thread / "children")
        children.extend(int(child) for child in (text or "").split())
    return children


def descendants_cpu(pid: int, ticks_per_second: float) -> float:
    """Seconds of CPU the live descendants of ``pid`` have used so far
    (children, grandchildren and so on: a launcher may sit between)."""
    ticks, pending, seen = 0, _children(pid), set()
    while pending:
        child = pending.pop()
        if child in seen:
            continue
        seen.add(child)
        used = stat_cpu_ticks(_read(_PROC / str(child) / "stat") or "")
        if used is not None:
            ticks += used
        pending.extend(_children(child))
    return ticks / ticks_per_second


def _reaped_cpu() -> float:
    times = os.times()
    return times.children_user + times.children_system


class NodeShare:
    """Child-process CPU charged to test files. ``children_cpu`` reads the
    running total (live descendants plus reaped children); each
    :meth:`charge` books what it grew by since the last one."""

    def __init__(self, children_cpu: Callable[[], float]) -> None:
        self._children_cpu = children_cpu
        self._last = children_cpu()
        self.seconds: dict[str, float] = {}
        self.tests: Counter[str] = Counter()

    def charge(self, test_file: str) -> None:
        now = self._children_cpu()
        # A reaped child's last ticks can land after its last /proc read: the
        # total never goes back, so a negative step is a rounding artefact.
        self.seconds[test_file] = self.seconds.get(test_file, 0.0) + max(now - self._last, 0.0)
        self.tests[test_file] += 1
        self._last = max(now, self._last)

    def settle(self) -> float:
        """Book what children used after the last test (the bridge's close at
        the session's end) to no file, and return the whole total."""
        now = self._children_cpu()
        after = "(after the last test)"
        self.seconds[after] = self.seconds.get(after, 0.0) + max(now - self._last, 0.0)
        self._last = max(now, self._last)
        return sum(self.seconds.values())

    def as_json(self) -> dict[str, Any]:
        return _document(self.seconds, self.tests)


def merge(documents: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One document of several processes' counts (each worker's own file)."""
    seconds: dict[str, float] = {}
    tests: Counter[str] = Counter()
    for document in documents:
        for name, entry in document.get("files", {}).items():
            seconds[name] = seconds.get(name, 0.0) + float(entry.get("child_cpu_s", 0.0))
            tests[name] += int(entry.get("tests", 0))
    return _document(seconds, tests)


def _document(seconds: dict[str, float], tests: Counter[str]) -> dict[str, Any]:
    """The JSON counts: the total, then each file, the largest first."""
    ranked = sorted(seconds.items(), key=lambda item: (-item[1], item[0]))
    return {
        "child_cpu_s": round(sum(seconds.values()), 3),
        "files": {name: {"child_cpu_s": round(value, 3), "tests": tests[name]}
                  for name, value in ranked},
    }


# -- the pytest plugin ----------------------------------------------------------------------

_share: NodeShare | None = None


def _running_total() -> float:
    return descendants_cpu(os.getpid(), os.sysconf("SC_CLK_TCK")) + _reaped_cpu()


def pytest_configure(config: Any) -> None:
    global _share
    controller = (getattr(config, "workerinput", None) is None
                  and bool(getattr(config.option, "numprocesses", None)))
    # A pytest-xdist controller's children are its workers: each worker counts
    # its own children, so the controller counts nothing (no double count).
    if os.environ.get(ENVIRONMENT) and not controller:
        _share = NodeShare(_running_total)


def pytest_runtest_logfinish(nodeid: str, location: tuple[str, int | None, str]) -> None:
    if _share is not None:
        _share.charge(nodeid.split("::", 1)[0])


def pytest_unconfigure(config: Any) -> None:
    global _share
    target = os.environ.get(ENVIRONMENT)
    if _share is None or not target:
        return
    _share.settle()
    worker = (getattr(config, "workerinput", None) or {}).get("workerid")
    path = Path(f"{target}.{worker}" if worker else target)
    path.write_text(json.dumps(_share.as_json(), indent=1) + "\n")
    _share = None

"""A parallel conformance run hands out the tests that share a replay together.

Some of the suite's tests read one deterministic replay, run once per process
and kept for the others (a DST zone's table is judged at the readme and at
the compat level from the same creates; a golden log's tests judge one
seeded replay). They are the tests of one module with the same parameter id.
pytest-xdist's default (``--dist load``) deals tests out one by one at first,
so such a pair lands on two workers and each replays it: the DST tables alone
were replayed twice in a two-worker run of a bridged build.

So when a conformance run (``--dsh-impl`` given) is distributed with ``load``,
the kit's scheduler takes its place: xdist's scope scheduling, with a test's
scope being its module and parameter id (a test without parameters is a scope
of its own). Every test still runs once, on one worker; only which worker
changes. ``--dist loadscope``, ``loadfile``, ``loadgroup`` and ``worksteal``
are left as they are.
"""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["pytest_xdist_make_scheduler", "replay_scope"]


def replay_scope(nodeid: str) -> str:
    """The work unit of a test: ``module[parameter id]`` for a parametrized
    test function, the node id itself for anything else."""
    path, separator, name = nodeid.rpartition("::")
    if not separator or not name.endswith("]") or "[" not in name:
        return nodeid
    return path + name[name.index("["):]


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> object | None:
    """Scope scheduling over :func:`replay_scope` units for a conformance run
    distributed with ``load``; ``None`` (xdist decides) for any other."""
    if str(config.getvalue("dist")) != "load" or not config.getoption("dsh_impl", None):
        return None
    # Only a controller needs it; pytest-xdist ships no type information.
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    if not all(hasattr(LoadScopeScheduling, name) for name in _SCOPE_INTERNALS):
        return None  # an xdist whose scope scheduler is built otherwise: plain load

    class ReplayGroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def __init__(self, config: pytest.Config, log: Any = None) -> None:
            super().__init__(config, log)
            #: Workers whose channel closed while they were sent work.
            self._gone: set[Any] = set()

        def _split_scope(self, nodeid: str) -> str:
            return replay_scope(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            try:
                super()._assign_work_unit(node)
            except OSError:
                # The worker died while it was being sent work (a test that
                # ends its process can do so before the first schedule has
                # sent a worker all it keeps ahead). xdist recorded the unit
                # as the worker's before sending it, so the worker's crash
                # report (remove_node) hands it to another worker, as it
                # does the rest of the worker's unfinished work.
                self._gone.add(node)

        def _reschedule(self, node: Any) -> None:
            # xdist's scope scheduler sends one unit once a worker has two
            # tests left: with units of one short test, each worker then
            # waits on the controller for most of its next test, and a
            # two-worker run of the reference took twice the wall time of a
            # serial one. A worker is kept _QUEUED tests ahead instead.
            if node.shutting_down or node in self._gone:
                return
            if not self.workqueue:
                node.shutdown()
                return
            while (self.workqueue and node not in self._gone
                   and self._pending_of(self.assigned_work[node]) < _QUEUED):
                self._assign_work_unit(node)

        def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
            # A finished unit is dropped from the worker's assignments, so
            # counting what a worker has left stays short (xdist counts
            # every unit it ever gave the worker, for every test).
            nodeid = self.registered_collections[node][item_index]
            assigned: dict[str, dict[str, bool]] = self.assigned_work[node]
            scope = self._split_scope(nodeid)
            unit = assigned[scope]
            unit[nodeid] = True
            if all(unit.values()):
                del assigned[scope]
            self._reschedule(node)

        def remove_node(self, node: Any) -> str | None:
            # xdist's scope scheduler gives a crashed worker's whole unit to
            # another worker, the test that crashed it included, which then
            # crashes that one too. As under load, the crashed test is
            # reported failed and not run again; the rest of its unit is.
            self._gone.discard(node)
            workload: dict[str, dict[str, bool]] = self.assigned_work.pop(node)
            pending = [(scope, nodeid) for scope, unit in workload.items()
                       for nodeid, done in unit.items() if not done]
            if not pending:
                return None
            scope, crashed = pending[0]
            workload[scope][crashed] = True
            self.workqueue.update(
                (scope, unit) for scope, unit in workload.items() if not all(unit.values()))
            for other in self.assigned_work:
                self._reschedule(other)
            return crashed

    return ReplayGroupScheduling(config, log)


#: What the scheduler above calls in xdist's scope scheduling, or has it call
#: (the methods it replaces outright are not needed).
_SCOPE_INTERNALS = ("schedule", "_split_scope", "_assign_work_unit", "_pending_of")
#: How many tests a worker is kept ahead of (xdist's load keeps a few too).
_QUEUED = 6

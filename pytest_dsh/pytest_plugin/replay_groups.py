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
        def _split_scope(self, nodeid: str) -> str:
            return replay_scope(nodeid)

        def remove_node(self, node: Any) -> str | None:
            # xdist's scope scheduler gives a crashed worker's whole unit to
            # another worker, the test that crashed it included, which then
            # crashes that one too. As under load, the crashed test is
            # reported failed and not run again; the rest of its unit is.
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


#: What the scheduler above relies on in xdist's scope scheduling.
_SCOPE_INTERNALS = ("_split_scope", "_reschedule", "remove_node", "schedule")

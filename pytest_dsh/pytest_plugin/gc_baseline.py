"""Keep the cyclic garbage collector from rewalking what a run keeps alive.

Two kinds of objects make a test run's collections expensive, and neither is
garbage the run needs collected early:

* what collection builds (the test modules, their items and markers,
  Hypothesis's strategies, the fixtures' definitions) lives until the run
  ends. Once the tests are collected, one collection clears what collecting
  left behind and ``gc.freeze()`` moves the survivors into the permanent
  generation, which later collections do not walk;
* what one test builds (its hosts, their logs, the event loop's handles)
  lives until the test ends. With CPython's young threshold of 700 objects a
  collection finds that working set still alive and promotes it, so the
  oldest generation fills with objects that die a moment later, and each
  full collection walks them. A young threshold of :data:`YOUNG_THRESHOLD`
  lets most of a test's working set die where it was made.

Only a run that names an implementation (``--dsh-impl`` or ``dsh_impl``)
does this: an unrelated test suite in an environment where the kit is
installed keeps the collector as it is. The run's end hands the frozen
objects back (``gc.unfreeze()``) and puts the thresholds back. Only the
outermost session does either: a pytest run inside
a test (pytester) leaves the collector to its owner. The fake host's own
shelter (:mod:`pytest_dsh.fake_host.gc_shelter`) unfreezes only what it froze
itself, at the cost of this baseline: a test that makes it freeze gives the
baseline back to the collector, nothing else. Nothing here changes what a
test can observe; it is a cost of the test process only.

When the process that ran such a session exits, the objects still alive are
frozen too (:func:`_freeze_at_exit`, an exit handler registered when the run
starts, so it runs after every handler registered later): the
interpreter's closing passes of the collector would walk the whole heap
several times (about a second after a whole suite) only to hand memory back
that the operating system reclaims anyway. Objects are still freed by
reference counting as the interpreter tears its modules down; what is no
longer collected at exit is the reference cycles that are garbage by then.
pytest's own last collection (when the session ends, which reports
exceptions raised in finalizers) has run before.
"""

from __future__ import annotations

import atexit
import gc
from typing import Final

import pytest

from pytest_dsh.pytest_plugin.options import configured

__all__ = ["YOUNG_THRESHOLD"]

#: New objects between two collections of the youngest generation while the
#: run lasts (the older generations keep their thresholds).
YOUNG_THRESHOLD: Final = 10_000


class _Owner:
    """The session whose run owns the collector's settings."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.thresholds = gc.get_threshold()
        self.froze = False


_owner: _Owner | None = None
#: Whether this process already froze, or will freeze, what it holds at exit.
_exit_registered = False


def _freeze_at_exit() -> None:
    """Keep the interpreter's closing collections from walking what is left."""
    gc.freeze()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    global _owner, _exit_registered
    if _owner is not None or not gc.isenabled() or configured(config, "dsh_impl") is None:
        return
    _owner = _Owner(config)
    if not _exit_registered:
        # Registered before the run's own handlers, so it runs after them.
        atexit.register(_freeze_at_exit)
        _exit_registered = True
    _, older, oldest = _owner.thresholds
    gc.set_threshold(max(YOUNG_THRESHOLD, _owner.thresholds[0]), older, oldest)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    owner = _owner
    if owner is None or owner.config is not session.config or owner.froze:
        return
    if session.config.option.collectonly:
        return
    gc.collect()
    gc.freeze()
    owner.froze = True


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    global _owner
    owner = _owner
    if owner is None or owner.config is not config:
        return
    _owner = None
    if owner.froze:
        gc.unfreeze()
    gc.set_threshold(*owner.thresholds)

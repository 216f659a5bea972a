"""Keep what lives for the whole run out of the cyclic garbage collector's way.

Everything collection builds (the test modules, their items and markers,
Hypothesis's strategies, the fixtures' definitions) lives until the run ends
and takes part in no cycle the run needs collected, yet each full collection
of a run walks it all again: a tenth of a suite run's time. Once the tests are
collected, one collection clears what collecting left behind and
``gc.freeze()`` moves the survivors into the permanent generation, which
later collections do not walk. The run's end hands them back
(``gc.unfreeze()``).

Only the outermost session freezes: a pytest run inside a test (pytester)
finds the heap already frozen and leaves it to its owner. The fake host's own
shelter (:mod:`pytest_dsh.fake_host.gc_shelter`) unfreezes only what it froze
itself, at the cost of this baseline: a test that makes it freeze gives the
baseline back to the collector, nothing else. Nothing here changes what a
test can observe; it is a cost of the test process only.
"""

from __future__ import annotations

import gc

import pytest

__all__: list[str] = []

#: Set on the config of the session that froze the heap.
_FROZE = pytest.StashKey[bool]()
#: Whether a session of this process holds the freeze.
_held = False


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    global _held
    if _held or not gc.isenabled() or session.config.option.collectonly:
        return
    gc.collect()
    gc.freeze()
    _held = True
    session.config.stash[_FROZE] = True


def pytest_unconfigure(config: pytest.Config) -> None:
    global _held
    if config.stash.get(_FROZE, False):
        del config.stash[_FROZE]
        _held = False
        gc.unfreeze()

"""Keep the session logs out of the cyclic garbage collector's way.

A log only grows, and its events are frozen containers of JSON values: they
can never be part of a reference cycle, yet CPython tracks every one of them,
and each full collection walks them all. Over a long simulation (a year of a
5-minute reminder is 700,000 events) those walks grow with the log and cost a
fifth of the run.

While a fake host is open, every ``THRESHOLD`` events appended or seeded
collects the youngest generation and then moves everything the collector
tracks into its permanent generation (``gc.freeze()``, O(1)): later
collections walk only what was made since.
When the last open host closes after a freeze, ``gc.unfreeze()`` hands the objects back, so
a cycle frozen in passing is collected then. Nothing here changes what a
test can observe; it is a cost of the host process only.
"""

from __future__ import annotations

import gc
from typing import Final

__all__ = ["THRESHOLD", "grew", "host_closed", "host_opened"]

#: Events between two freezes. Freezing is O(1), but the last host's close
#: gives every frozen object back, the test run's own baseline freeze
#: (pytest_dsh.pytest_plugin.gc_baseline) with them. At 1,000 a simulated
#: year ran about 3 % faster, but sixteen tests of the default suite froze
#: and the suite ran about 3.5 % slower; at 50,000 no test of the suite
#: (nor of the full DST tables) freezes.
THRESHOLD: Final = 50_000

_open_hosts = 0
_since_freeze = 0
#: Whether the shelter froze since the last host closed: it unfreezes only
#: then (a freeze the test run made is the run's), and gc.get_freeze_count()
#: walks the whole permanent generation.
_froze = False


def host_opened() -> None:
    global _open_hosts
    _open_hosts += 1


def host_closed() -> None:
    global _open_hosts, _since_freeze, _froze
    _open_hosts = max(_open_hosts - 1, 0)
    if _open_hosts == 0:
        _since_freeze = 0
        if _froze:
            _froze = False
            gc.unfreeze()


def grew(events: int = 1) -> None:
    """``events`` were added to an open host's logs."""
    global _since_freeze, _froze
    _since_freeze += events
    if _since_freeze >= THRESHOLD and _open_hosts:
        _since_freeze = 0
        _froze = True
        # The youngest generation first (under a thousand objects): what is
        # garbage there is collected now instead of being frozen until the
        # last host closes. Freezing every thousand events without it kept
        # about one young cycle in eight alive that long, with it about one
        # in a hundred (collecting the middle generation too keeps none, but
        # costs about 2 % of a delivery).
        gc.collect(0)
        gc.freeze()

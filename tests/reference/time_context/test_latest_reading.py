"""The newest-reading projection equals a backward scan of the log it is handed.

README (time-context, scheduling): the interval is measured from the newest
reading in the raw log, whichever process or plugin instance wrote it; the
projection the runtime keeps must give that answer after every append, crash
(a shorter log of copies), resume, fork, compaction and in-place edit.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_reference.time_context.core import LatestReading, latest_reading_time_ms

READING_SOURCE = {"kind": "plugin", "plugin": "time-context"}


def _event(kind: str, seq: int, time: int) -> dict[str, Any]:
    if kind == "reading":
        return {"type": "user/message", "seq": seq, "time": time,
                "data": {"content": [], "source": READING_SOURCE}}
    if kind == "user":
        return {"type": "user/message", "seq": seq, "time": time,
                "data": {"content": [], "source": {"kind": "user"}}}
    return {"type": kind, "seq": seq, "time": time, "data": {}}


steps = st.lists(
    st.tuples(
        st.sampled_from(["reading", "user", "step/start", "crash", "resume", "edit", "regrow"]),
        st.integers(0, 5),
    ),
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(steps=steps)
def test_the_projection_equals_a_backward_scan_after_every_change(steps):
    log: list[dict[str, Any]] = []
    latest = LatestReading()
    for index, (operation, amount) in enumerate(steps):
        if operation in ("reading", "user", "step/start"):
            log.append(_event(operation, len(log), 1000 * index + amount))
        elif operation == "crash":
            log = copy.deepcopy(log[: max(0, len(log) - amount)])
        elif operation == "resume":
            log = copy.deepcopy(log)
        elif operation == "edit" and log:
            # Same object and seq, other content: a reading becomes a plain message.
            log[-1]["data"] = {"content": [], "source": {"kind": "user"}}
            log[-1]["type"] = "user/message"
        elif operation == "regrow" and log:
            grown = len(log)
            del log[max(0, grown - 1 - amount):]
            while len(log) < grown:
                log.append(_event("step/start", len(log), 7))
        assert latest.read(log) == latest_reading_time_ms(log)


def test_an_appended_log_is_read_once():
    log = [_event("reading", 0, 5)]
    latest = LatestReading()
    assert latest.read(log) == 5
    for seq in range(1, 50):
        log.append(_event("step/start", seq, seq))
        assert latest.read(log) == 5
    assert latest.rescans == 1

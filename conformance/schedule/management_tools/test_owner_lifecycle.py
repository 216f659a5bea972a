"""README section "Management tools": the live owner around a due reminder.

The helpers these tests share with
``schedule/delivery_lifecycle/test_owner_lifecycle.py`` are defined there.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.delivery_lifecycle.test_owner_lifecycle import (
    AFTER_60,
    CHANGE,
    confirmed_id,
)
from dsh_conformance.schedule.written_logs import create

pytestmark = [pytest.mark.dsh_requires("schedule")]


@pytest.mark.spec("SCH-033", "SCH-034", "SCH-052")
def test_the_dispatch_is_checkpointed_before_a_queued_create_checkpoints(host, agent):
    create(agent, AFTER_60)
    host.faults.fail_flushes("hang")
    host.advance(60)  # the due preflight hangs, holding the queue
    waiting = agent.start_tool("schedule_create", {"prompt": "Next", "after_seconds": 3600})
    host.start_trace()
    host.faults.release_hung_flush()
    value = waiting.result().value
    assert confirmed_id(value) is not None, readme(
        "SCH-034", "the queued create to confirm once the due transaction ends", value)
    steps = [t.detail if t.kind == "append" else t.kind for t in host.trace()
             if t.kind in ("flush", "release") or (t.kind, t.detail) == ("append", CHANGE)]
    appended = [i for i, step in enumerate(steps) if step == CHANGE]
    assert len(appended) == 2, readme(
        "SCH-033, SCH-052", "the dispatch, then the queued create, to be appended", steps)
    # between them: the release, the owner's dispatch checkpoint, the create's preflight
    between = steps[appended[0] + 1:appended[1]]
    assert "release" in between and between[between.index("release"):].count("flush") >= 2, (
        readme("SCH-033, SCH-034, SCH-052", "after the dispatch and its release, the owner's "
               "dispatch checkpoint and then the create's own preflight, before the create "
               "appends", steps))

"""An actual delete whose post-append barrier finds the session detached.

README (dsh-schedule): "A successful create or actual delete also awaits a
post-append barrier before confirming the mutation" and "A missing,
rejected, or detached persistence path returns persistence_uncertain". The
fault matrix covers create x detached; this is the delete cell, on both
hosts. Level: readme.
"""

from __future__ import annotations


def test_a_delete_whose_barrier_is_detached_is_persistence_uncertain(any_host):
    any_host.load_plugin("schedule")
    agent = any_host.create_agent()
    first = agent.call_tool("schedule_create", {"prompt": "tea", "after_seconds": 60})
    second = agent.call_tool("schedule_create", {"prompt": "cake", "after_seconds": 60})
    # A clean delete shows which flush is the post-append barrier: the first
    # one after the delete's append (the trace orders flushes among appends).
    any_host.start_trace()
    assert agent.call_tool("schedule_delete", {"id": first.value["id"]}).value["deleted"] is True
    kinds = [(entry.kind, entry.detail) for entry in any_host.trace()]
    appended = kinds.index(("append", "schedule/change"))
    barrier = [kind for kind, _ in kinds[: appended + 1]].count("flush") + 1

    any_host.faults.fail_flushes("detached", first=barrier)
    any_host.start_trace()
    deleted = agent.call_tool("schedule_delete", {"id": second.value["id"]})

    assert deleted.value["code"] == "persistence_uncertain", deleted.value
    assert deleted.value["id"] == second.value["id"]
    kinds = [(entry.kind, entry.detail) for entry in any_host.trace()]
    appended = kinds.index(("append", "schedule/change"))
    assert ("flush", "detached") in kinds[appended:]
    assert ("flush", "detached") not in kinds[:appended]
    # The delete itself was appended: only its confirmation is uncertain.
    changes = [e["data"] for e in agent.events() if e["type"] == "schedule/change"]
    assert changes[-1]["operation"] == "delete"

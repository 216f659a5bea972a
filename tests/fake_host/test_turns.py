"""Turns, steps, the pre-step hook, follow-ups and the idle phase."""

from __future__ import annotations

import pytest

from pytest_dsh import FakeHost, reply_text, reply_tools
from pytest_dsh.contract import MaintenanceRejectedError


def _types(agent) -> list[str]:
    return [event["type"] for event in agent.session.events]


def _user(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "source": {"kind": "user"}}


def test_a_text_reply_is_a_one_step_turn(host: FakeHost) -> None:
    agent = host.create_agent()
    agent.followup(_user("hello"))
    host.run_until_idle()
    assert _types(agent) == [
        "turn/start",
        "user/message",
        "step/start",
        "assistant/message",
        "step/end",
        "turn/end",
    ]
    assert agent.session.events[-1]["data"] == {"turn": 1, "reason": {"kind": "completed"}}


def test_tool_calls_open_another_step_and_are_logged(host: FakeHost) -> None:
    host.load_plugin("recording")
    agent = host.create_agent()
    agent.model.extend([reply_tools(("echo", {"x": 7})), reply_text("done")])
    agent.followup(_user("go"))
    host.run_until_idle()
    assert _types(agent) == [
        "turn/start",
        "user/message",
        "step/start",
        "assistant/message",
        "tool/call",
        "tool/result",
        "step/end",
        "step/start",
        "assistant/message",
        "step/end",
        "turn/end",
    ]
    result = agent.session.events[5]["data"]
    assert result["content"] == [{"type": "text", "text": f'{{"echo":7,"agent":"{agent.id}"}}'}]
    assert result["isError"] is False


def test_pre_step_runs_serially_in_order_before_step_start(host: FakeHost, recording) -> None:
    host.load_plugin("recording", {"label": "late"})
    host.load_plugin("first")
    agent = host.create_agent()
    agent.model.extend([reply_tools(("echo", {"x": 1})), reply_text("done")])
    agent.followup(_user("go"))
    host.run_until_idle()
    events = agent.session.events
    injected = [e["seq"] for e in events if e["data"].get("source", {}).get("plugin") == "first"]
    starts = [e["seq"] for e in events if e["type"] == "step/start"]
    # The tryfirst listener injected before each step/start ...
    assert [inj < start for inj, start in zip(injected, starts, strict=True)] == [True, True]
    # ... and the later listener already saw the injection in the log.
    pre_steps = [c for c in recording.instances[0].calls if c[0] == "pre-step"]
    assert pre_steps == [
        ("pre-step", "late", 1, 1, injected[0] + 1),
        ("pre-step", "late", 1, 2, injected[1] + 1),
    ]


def test_a_failing_pre_step_listener_ends_the_turn_without_step_start(host: FakeHost) -> None:
    class Boom:
        from pytest_dsh.contract import hookimpl

        @hookimpl
        def dsh_pre_step(self, agent, turn, step, signal):
            raise RuntimeError("listener failed")

    host.process.pm.register(Boom())
    agent = host.create_agent()
    agent.followup(_user("go"))
    host.run_until_idle()
    assert _types(agent) == ["turn/start", "user/message", "turn/end"]
    assert agent.session.events[-1]["data"]["reason"] == {
        "kind": "error",
        "message": "listener failed",
    }


def test_aborted_signal_ends_the_turn_before_step_start(host: FakeHost) -> None:
    agent = host.create_agent()
    agent.abort_next_pre_step()
    agent.followup(_user("go"))
    host.run_until_idle()
    assert _types(agent) == ["turn/start", "user/message", "turn/end"]
    assert agent.session.events[-1]["data"]["reason"] == {"kind": "aborted"}


def test_turn_numbers_continue_from_the_log(host: FakeHost) -> None:
    agent = host.create_agent()
    for text in ("one", "two"):
        agent.followup(_user(text))
    host.run_until_idle()
    turns = [e["data"]["turn"] for e in agent.session.events if e["type"] == "turn/start"]
    assert turns == [1, 2]


def test_followup_during_a_turn_opens_a_later_turn_after_idle(host: FakeHost) -> None:
    agent = host.create_agent()
    agent.model.extend([reply_text("slow", thinking_s=30)])
    agent.followup(_user("first"))
    host.run_until_idle()
    assert agent.status == "running"
    agent.followup(_user("second"))
    host.advance(29)
    assert [e["type"] for e in agent.session.events].count("turn/start") == 1
    host.advance(1)
    texts = [
        e["data"]["content"][0]["text"] for e in agent.session.events if e["type"] == "user/message"
    ]
    assert texts == ["first", "second"]
    assert agent.status == "idle"


def test_status_listeners_see_running_then_idle(host: FakeHost) -> None:
    agent = host.create_agent()
    seen: list[str] = []
    agent.on_status(seen.append)
    agent.followup(_user("go"))
    host.run_until_idle()
    assert seen == ["running", "idle"]


def test_maintenance_is_refused_synchronously_while_a_turn_runs(host: FakeHost) -> None:
    agent = host.create_agent()
    agent.model.extend([reply_text("slow", thinking_s=10)])
    agent.followup(_user("go"))
    host.run_until_idle()

    async def task() -> bool:
        return True

    with pytest.raises(MaintenanceRejectedError):
        agent.run_maintenance(task)


def test_followups_queued_in_maintenance_wait_until_it_settles(host: FakeHost) -> None:
    import asyncio

    agent = host.create_agent()
    log: list[str] = []

    async def task() -> bool:
        agent.followup(_user("from maintenance"))
        await asyncio.sleep(5)
        log.append(f"released with {_types(agent).count('turn/start')} turns")
        return True

    claim = agent.run_maintenance(task)
    host.advance(4.9)
    assert "turn/start" not in _types(agent)
    host.advance(0.1)
    assert claim.result() is True
    assert log == ["released with 0 turns"]
    assert _types(agent)[:2] == ["turn/start", "user/message"]


def test_when_idle_resolves_after_the_turn(host: FakeHost) -> None:
    agent = host.create_agent()
    agent.model.extend([reply_text("slow", thinking_s=10)])
    agent.followup(_user("go"))
    waiter = agent.when_idle()
    host.advance(9)
    assert not waiter.done()
    host.advance(1)
    assert waiter.done()


def test_status_listener_failure_is_contained(host: FakeHost) -> None:
    agent = host.create_agent()

    def bad(status: str) -> None:
        raise ValueError("nope")

    agent.on_status(bad)
    agent.followup(_user("go"))
    host.run_until_idle()
    assert agent.session.events[-1]["type"] == "turn/end"
    assert any("status listener failed" in w for w in host.warnings)


def test_each_step_request_is_the_history_at_its_step_start(host: FakeHost) -> None:
    from pytest_dsh.fake_host.driver import PythonHostDriver

    driver = PythonHostDriver("toy", "0", {"first": host.factories["first"]}, start_ms=0)
    try:
        driver.load_plugin("first")
        agent = driver.create_agent()
        agent.script(reply_tools(("missing", {})), reply_text("done"))
        agent.prompt("go")
        [first, second] = agent.requests()
        assert [e["type"] for e in first] == ["user/message", "user/message"]
        assert first[1]["data"]["content"][0]["text"] == "first 1.1"
        assert [e["type"] for e in second][-3:] == ["assistant/message", "tool/result",
                                                     "user/message"]
        assert second[-1]["data"]["content"][0]["text"] == "first 1.2"
    finally:
        driver.close()


@pytest.mark.parametrize("cancelled", ["before its first step", "while it waits"])
def test_a_started_maintenance_task_cancelled_at_any_step_releases_its_claim(
    host: FakeHost, cancelled: str
) -> None:
    """A task that waits is carried on by a task from where it stopped; a
    cancellation of that task, even before its first step, reaches the task's
    coroutine where it waits, so the claim is released at once."""
    import asyncio

    agent = host.create_agent()
    steps: list[str] = []

    async def task() -> bool:
        steps.append("started")
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            steps.append("cancelled where it waited")
            raise
        return True

    claims: list[asyncio.Future[bool]] = []

    def claim_inside_the_loop() -> None:
        claims.append(agent.run_maintenance(task))  # started at once, inside the loop
        if cancelled == "before its first step":
            claims[0].cancel()

    host.process.loop.call_soon(claim_inside_the_loop)
    host.advance(1)
    [claim] = claims
    assert steps == ["started"] + (["cancelled where it waited"] if claim.done() else [])
    if cancelled == "while it waits":
        assert not claim.done()
        claim.cancel()
        host.advance(1)
    assert claim.cancelled()
    assert steps == ["started", "cancelled where it waited"]
    counters = agent.counters()
    assert (counters.maintenance_claims, counters.maintenance_releases) == (1, 1)
    assert agent.fully_idle

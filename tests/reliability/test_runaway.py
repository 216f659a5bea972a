"""A runaway implementation fails its one test within seconds; the run goes on.

Reproduction answered: an implementation that does not split waits longer
than the timer range (the timer fires after 1 ms and is re-armed forever) made
the suite spin at 100% CPU and grow past 2.9 GB for 15 minutes instead of
failing that test. The implementations used here are deliberately broken
(:mod:`runaway_impl`). Level: kit behaviour (no README sentence).
"""

from __future__ import annotations

from pathlib import Path

import kit_child_processes as children
import pytest

from pytest_dsh import reply_text, reply_tools
from pytest_dsh.driving import runaway
from pytest_dsh.driving.runaway import Budget, RunawayError
from pytest_dsh.fake_host.virtual_loop import CREEP_WAKEUPS, SPIN_ITERATIONS

from . import runaway_impl
from .conftest import START_MS

HOUR_S = 3600.0


def test_an_unsplit_long_wait_is_a_runaway_naming_the_likely_cause():
    host = runaway_impl.IMPLEMENTATION.open_host(start_ms=START_MS)
    try:
        host.load_plugin("schedule")
        agent = host.create_agent()
        agent.call_tool("schedule_create", {"prompt": "Monthly", "after_seconds": 2_592_000})
        with pytest.raises(RunawayError) as raised:
            host.advance(2_592_000)
        message = str(raised.value)
        assert f"{CREEP_WAKEUPS} timer wake-ups in a row" in message
        assert "wait longer than the timer range" in message
        assert "not split" in message
        # Caught at the start: a few virtual seconds, not the month.
        assert host.now_ms - START_MS < HOUR_S * 1000
    finally:
        host.close()  # the spun-out timers were dropped: closing does not spin


def test_the_same_wait_split_by_the_reference_is_not_a_runaway():
    from dsh_reference.implementation import IMPLEMENTATION as REFERENCE

    host = REFERENCE.open_host(start_ms=START_MS)
    try:
        host.load_plugin("schedule")
        agent = host.create_agent()
        agent.call_tool("schedule_create", {"prompt": "Monthly", "after_seconds": 2_592_000})
        host.advance(2_592_000)
        assert any(event["type"] == "turn/start" for event in agent.events())
    finally:
        host.close()


def test_a_callback_re_armed_at_one_instant_is_a_runaway_naming_it():
    host = runaway_impl.SPINNER.open_host(start_ms=START_MS)
    try:
        host.load_plugin("spin")
        agent = host.create_agent()
        with pytest.raises(RunawayError) as raised:
            agent.call_tool("spin", {})
        message = str(raised.value)
        assert f"{SPIN_ITERATIONS} loop iterations without virtual time advancing" in message
        assert "runaway_impl._spin.<locals>.handler.<locals>.again" in message
        assert host.now_ms == START_MS
    finally:
        host.close()


def test_the_step_budget_stops_work_that_never_ends(monkeypatch):
    # A 1 s timer re-armed forever is not a spin; only the budget stops it.
    monkeypatch.setattr(runaway, "budget", Budget(steps_left=50_000, steps=50_000))
    host = runaway_impl.TICKER.open_host(start_ms=START_MS)
    try:
        host.load_plugin("tick")
        agent = host.create_agent()
        agent.call_tool("tick", {})
        with pytest.raises(RunawayError, match="budget of 50000 loop iterations"):
            host.advance(10 * 365 * 86_400)
    finally:
        host.close()


@pytest.mark.parametrize(
    ("plugin", "tool", "last"),
    [
        ("grow-log", "grow_log", "custom/note event"),
        ("grow-followups", "grow_followups", "follow-up"),
    ],
)
def test_a_log_or_follow_up_queue_that_grows_without_end_is_a_runaway(
    monkeypatch, plugin, tool, last
):
    # Synchronous growth never returns to the loop: only the growth budget
    # stops it (the wall budget would, minutes later, with a vaguer cause).
    monkeypatch.setattr(runaway, "budget", Budget(growth_left=20_000, growth=20_000))
    host = runaway_impl.GROWER.open_host(start_ms=START_MS)
    try:
        host.load_plugin(plugin)
        agent = host.create_agent()
        with pytest.raises(RunawayError) as raised:
            agent.call_tool(tool, {})
        message = str(raised.value)
        assert "20000 times (--dsh-growth-budget)" in message, message
        assert f"the last a {last}" in message, message
        assert "grows without end" in message, message
    finally:
        host.close()


# -- the growth budget on both hosts --------------------------------------------
# A scripted model answers at once, so a turn that keeps opening steps never
# returns to the event loop; on the bridge it never even gets back to Node's
# loop. The growth budget counts where the log grows, on either host, and
# stops the turn within seconds instead of at the wall budget.

def _long_turn(agent, steps: int) -> None:
    agent.script(*[reply_tools(("lookup", {})) for _ in range(steps)], reply_text("done"))
    agent.prompt("hello")


def test_a_turn_that_grows_past_the_growth_budget_is_stopped_on_either_host(
    monkeypatch, any_host
):
    monkeypatch.setattr(runaway, "budget", Budget(growth_left=200, growth=200))
    agent = any_host.create_agent()
    with pytest.raises(RunawayError) as raised:
        _long_turn(agent, 60)  # several events a step: past 200, within the fake host's 64 steps
    message = str(raised.value)
    assert message.startswith("runaway implementation"), message
    assert "200 times (--dsh-growth-budget)" in message, message
    assert "grows without end" in message, message
    assert raised.value.symptom is None  # no host limit behind it


def test_what_a_turn_grows_is_charged_to_the_phase_on_either_host(monkeypatch, any_host):
    monkeypatch.setattr(runaway, "budget", Budget(growth_left=10_000, growth=10_000))
    agent = any_host.create_agent()
    _long_turn(agent, 3)
    assert [e["type"] for e in agent.events()].count("step/start") == 4
    spent = 10_000 - (runaway.budget.growth_left or 0)
    assert spent >= 8  # at least each step's step/start and step/end


def test_a_host_opened_after_a_runaway_runs_a_clean_turn(monkeypatch, open_any_host):
    monkeypatch.setattr(runaway, "budget", Budget(growth_left=100, growth=100))
    agent = open_any_host().create_agent()
    with pytest.raises(RunawayError):
        _long_turn(agent, 60)
    monkeypatch.setattr(runaway, "budget", Budget())
    # A new host: on the bridge, a new Node process, or the stopped one when it
    # was proved clean (tests/official/test_runaway_recycle.py).
    again = open_any_host().create_agent()
    _long_turn(again, 1)
    assert [e["type"] for e in again.events()].count("turn/end") == 1


def test_the_growth_budget_is_an_option_with_an_ini_twin(pytester):
    pytester.makepyfile(
        """
        from pytest_dsh.driving import runaway

        def test_budget():
            assert runaway.budget.growth == 1234
        """
    )
    assert _run(pytester, "--dsh-growth-budget=1234").ret == 0
    pytester.makeini("[pytest]\ndsh_growth_budget = 1234\n")
    assert _run(pytester).ret == 0
    assert _run(pytester, "--dsh-growth-budget=-1").ret == pytest.ExitCode.USAGE_ERROR


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(runaway_impl=Path(runaway_impl.__file__).read_text("utf-8"))
    return children.runpytest_subprocess(
        pytester, "-p", "no:randomly", "-p", "no:cacheprovider", *args
    )


def test_in_the_suite_only_the_runaway_test_fails_and_the_run_continues(pytester):
    # The platform-timer-range test drives a month-long wait; its neighbours do not.
    result = _run(
        pytester,
        "--pyargs",
        "dsh_conformance.schedule.delivery_lifecycle.test_delivery_lifecycle",
        "--dsh-impl=runaway_impl:IMPLEMENTATION",
        "-k",
        "timer_range or earliest_target_of_the_fold or rollback_never_fires_early",
    )
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ test_a_wait_beyond_the_platform_timer_range_is_split _*",
            "E *RunawayError: runaway implementation at virtual monotonic*",
        ]
    )


STUCK_TESTS = """
from runaway_impl import STUCK

def test_stuck():
    host = STUCK.open_host(start_ms=0)
    try:
        host.load_plugin("stuck")
        host.create_agent().call_tool("stuck", {})
    finally:
        host.close()

def test_after():
    assert True
"""


@pytest.mark.parametrize("how", ["option", "ini"])
def test_code_that_never_returns_is_stopped_by_the_wall_budget(pytester, how):
    pytester.makepyfile(test_stuck=STUCK_TESTS)
    if how == "ini":
        pytester.makeini("[pytest]\ndsh_wall_budget = 1\n")
        result = _run(pytester)
    else:
        result = _run(pytester, "--dsh-wall-budget=1")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*RunawayError: the test used its wall-clock budget of 1 s*"])


# The same stuck test, with a budget of its own.
MARKED_STUCK_TESTS = STUCK_TESTS.replace(
    "from runaway_impl", "import pytest\nfrom runaway_impl"
).replace("def test_stuck():", "@pytest.mark.dsh_wall_budget(1)\ndef test_stuck():")


def test_a_test_sets_its_own_wall_budget_with_a_marker(pytester):
    pytester.makepyfile(test_stuck=MARKED_STUCK_TESTS)
    result = _run(pytester, "--dsh-wall-budget=0")  # unlimited but for the marked test
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*RunawayError: the test used its wall-clock budget of 1 s*"])


@pytest.mark.parametrize("args", ["-1", "'long'", "1, 2", "True"])
def test_a_bad_wall_budget_marker_is_a_usage_error(pytester, args):
    pytester.makepyfile(test_marked=f"""
import pytest

@pytest.mark.dsh_wall_budget({args})
def test_marked():
    pass
""")
    result = _run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*dsh_wall_budget takes one number of seconds >= 0*"])


def test_an_in_process_nested_run_gives_the_outer_test_its_budget_back(pytester):
    # pytester's in-process run is a pytest session inside this test's call
    # phase: its tests' phases used to leave this test with no budget and no
    # alarm for the rest of its run.
    import signal

    outer = runaway.budget
    assert outer.wall_s is not None and signal.getitimer(signal.ITIMER_REAL)[0] > 0
    pytester.makepyfile(test_inner="def test_inner():\n    pass\n")
    result = pytester.runpytest_inprocess(
        "-p", "no:randomly", "-p", "no:cacheprovider", "--dsh-wall-budget=5"
    )
    result.assert_outcomes(passed=1)
    assert runaway.budget is outer
    alarm_s = signal.getitimer(signal.ITIMER_REAL)[0]
    # The outer alarm (its budget and grace, less what ran), not the inner one's 5 s.
    assert outer.wall_s - 30 < alarm_s <= outer.wall_s + 5

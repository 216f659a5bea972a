"""README section "时序语义", the ``./invariant`` companion: every reading
attributed to the plugin is checked against its opening turn, its position
before the next step, its elapsed-time baseline and its durable event time.

The companion is optional (capability ``time-context-invariant``). Readme-level
tests feed it readings the implementation wrote itself, edited only where the
README's templates are literal (turn, step, baseline words) or where any
ISO-shaped date is (a day that does not exist): the README leaves the
timestamp's arrangement and the duration's spelling open. Which further
readings it refuses (content blocks, the exact format) and its diagnostics are
pinned (TC-INVARIANT-FORMAT-RULES, TC-INVARIANT-DIAGNOSTICS)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from dsh_conformance.expect import pinned, readme
from dsh_conformance.time_context.readings import (
    READING_SOURCE,
    START_MS,
    edited,
    later_step_text,
    reading_events,
    run_turn,
    step_one_text,
    text_of,
    written_readings,
)
from pytest_dsh import reply_tools
from pytest_dsh.contract import AppendRejectedError

pytestmark = [pytest.mark.dsh_requires("time-context", "time-context-invariant")]

OWNER = "@deepseek-ai/dsh-time-context"
STAMP = "2026-01-01T00:00:00+00:00[UTC]"
STEP_ONE = step_one_text(1, STAMP, "0s")
STEP_TWO = later_step_text(1, 2, STAMP, "0s")
TURN = ("turn/start", {"turn": 1, "trigger": {"kind": "message", "source": {"kind": "user"}}})
PROMPT = ("user/message", {"content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}})
#: The start of the first template line, up to the timestamp.
HEAD = re.compile(r"Time sampled while preparing turn \d+, step \d+: ")
#: An ISO-shaped calendar date.
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
STEP_1_DONE = [
    TURN, PROMPT,
    ("step/start", {"turn": 1, "step": 1}),
    ("assistant/message", {"turn": 1, "step": 1, "content": [{"type": "text", "text": "ok"}]}),
    ("step/end", {"turn": 1, "step": 1}),
]


def reading_data(text, blocks=None):
    content = blocks if blocks is not None else [{"type": "text", "text": text}]
    return {"content": content, "source": dict(READING_SOURCE)}


@pytest.fixture
def host(dsh_host):
    dsh_host.load_plugin("time-context-invariant")
    return dsh_host


def agent_after(host, prefix):
    agent = host.create_agent()
    for kind, data in prefix:
        agent.append_event(kind, data)
    return agent


def official_rejections():
    """The official companion's rejections, each with its diagnostic (official spellings)."""
    return [
        (
            [TURN, PROMPT],
            reading_data(STEP_ONE, [{"type": "text", "text": STEP_ONE}] * 2),
            "time-context messages must contain exactly one text block",
        ),
        (
            [TURN, PROMPT],
            reading_data(STEP_ONE + "\n"),
            "time-context message does not match the durable reading format",
        ),
        (
            [TURN, PROMPT],
            reading_data(STEP_ONE.replace("0s.", "0.5s.")),
            "time-context message does not match the durable reading format",
        ),
        (
            [TURN, PROMPT],
            reading_data(STEP_ONE.replace("turn 1", "turn 0")),
            "time-context turn and step must be positive safe integers",
        ),
        (
            [PROMPT],
            reading_data(STEP_ONE),
            "time-context reading must be appended inside an open turn",
        ),
        (
            [TURN, PROMPT, ("turn/end", {"turn": 1, "reason": {"kind": "completed"}})],
            reading_data(STEP_ONE),
            "time-context reading must be appended inside an open turn",
        ),
        (
            [TURN, PROMPT, ("step/start", {"turn": 1, "step": 1})],
            reading_data(STEP_ONE),
            "time-context reading must precede step/start, but step 1 is already open",
        ),
        (
            [TURN, PROMPT],
            reading_data(STEP_TWO),
            "time-context reading names turn 1/step 2, expected turn 1/step 1",
        ),
        (
            STEP_1_DONE,
            reading_data(STEP_ONE),
            "time-context reading names turn 1/step 1, expected turn 1/step 2",
        ),
        (
            [TURN, PROMPT],
            reading_data(STEP_ONE.replace("turn 1", "turn 2")),
            "time-context reading names turn 2/step 1, expected turn 1/step 1",
        ),
        (
            [TURN, PROMPT],
            reading_data(STEP_ONE.replace("model-visible message", "step context")),
            'time-context step 1 uses the wrong elapsed-time baseline "step context"',
        ),
        (
            STEP_1_DONE,
            reading_data(STEP_TWO.replace("step context", "model-visible message")),
            'time-context step 2 uses the wrong elapsed-time baseline "model-visible message"',
        ),
        (
            [TURN, PROMPT],
            reading_data(STEP_ONE.replace("00:00:00+00:00", "00:00:01+00:00")),
            "time-context rendered timestamp must parse and not postdate its durable event",
        ),
        (
            [TURN, PROMPT],
            reading_data(STEP_ONE.replace("2026-01-01T", "2026-02-32T")),
            "time-context rendered timestamp must parse and not postdate its durable event",
        ),
    ]


REJECTED = pytest.mark.parametrize(
    ("prefix", "data", "diagnostic"),
    official_rejections(),
    ids=[
        "two-blocks", "trailing-newline", "fractional-duration", "turn-zero", "no-turn",
        "closed-turn", "open-step", "wrong-step", "stale-step", "wrong-turn",
        "step-one-label", "later-step-label", "postdated", "unparseable",
    ],
)


def _template_head(turn: int, step: int) -> Callable[[str], str]:
    """An edit that makes a reading name another turn and step (the template's words)."""
    return lambda text: HEAD.sub(
        f"Time sampled while preparing turn {turn}, step {step}: ", text, count=1)


def _other_label(text: str) -> str:
    first, later = "preceding model-visible message: ", "preceding step context: "
    return text.replace(first, later) if first in text else text.replace(later, first)


def _no_such_day(text: str) -> str:
    return DATE.sub("2026-02-32", text, count=1)


#: Readings the README says the companion refuses (TC-028: turn, position before
#: the next step, elapsed baseline; TC-029: a timestamp that parses and is not
#: later than the event): (prefix, which reading the implementation wrote, edit).
README_REJECTED: dict[str, tuple[list[Any], str, Callable[[str], str] | None]] = {
    "turn-zero": ([TURN, PROMPT], "step-1", _template_head(0, 1)),
    "no-turn": ([PROMPT], "step-1", None),
    "closed-turn": (
        [TURN, PROMPT, ("turn/end", {"turn": 1, "reason": {"kind": "completed"}})],
        "step-1", None),
    "open-step": ([TURN, PROMPT, ("step/start", {"turn": 1, "step": 1})], "step-1", None),
    "wrong-step": ([TURN, PROMPT], "step-2", None),
    "stale-step": (STEP_1_DONE, "step-1", None),
    "wrong-turn": ([TURN, PROMPT], "step-1", _template_head(2, 1)),
    "step-one-label": ([TURN, PROMPT], "step-1", _other_label),
    "later-step-label": (STEP_1_DONE, "step-2", _other_label),
    "postdated": ([TURN, PROMPT], "step-1-a-second-later", None),
    "unparseable": ([TURN, PROMPT], "step-1", _no_such_day),
}


@pytest.fixture(scope="module")
def written(dsh_implementation) -> dict[str, dict[str, Any]]:
    """The data of readings this implementation wrote itself: turn 1's steps 1
    and 2 at the host's start in UTC, and a step 1 sampled one second later."""
    step_one, step_two = written_readings(dsh_implementation, steps=2)
    [later] = written_readings(dsh_implementation, start_ms=START_MS + 1_000)
    return {"step-1": step_one, "step-2": step_two, "step-1-a-second-later": later}


@pytest.mark.parametrize("case", list(README_REJECTED))
@pytest.mark.spec("TC-028", "TC-029")
@pytest.mark.dsh_probe(
    "tc-companion-rejects-bad-readings",
    "The companion rejects a malformed or misplaced reading",
)
def test_a_malformed_or_misplaced_reading_is_rejected(host, written, case):
    prefix, which, edit = README_REJECTED[case]
    data = written[which] if edit is None else edited(written[which], edit)
    agent = agent_after(host, prefix)
    before = agent.events()
    try:
        agent.append_event("user/message", data)
    except AppendRejectedError:
        pass
    else:
        pytest.fail(readme("TC-028, TC-029", f"the invariant to refuse this reading ({case}: "
                           "its turn, position, baseline or timestamp is wrong); it was "
                           f"appended: {text_of({'data': data})!r}"))
    assert agent.events() == before, readme("TC-028", "a refused append to leave the log "
                                            "unchanged", agent.events()[len(before):])


@pytest.mark.compat("TC-INVARIANT-FORMAT-RULES")
@pytest.mark.parametrize(
    "data",
    [reading_data(STEP_ONE, [{"type": "text", "text": STEP_ONE}] * 2),
     reading_data(STEP_ONE + "\n"), reading_data(STEP_ONE.replace("0s.", "0.5s."))],
    ids=["two-blocks", "trailing-newline", "fractional-duration"],
)
@pytest.mark.spec("TC-028")
def test_a_reading_off_the_official_format_is_rejected(host, data):
    agent = agent_after(host, [TURN, PROMPT])
    before = agent.events()
    try:
        agent.append_event("user/message", data)
    except AppendRejectedError:
        pass
    else:
        pytest.fail(pinned("TC-INVARIANT-FORMAT-RULES", "the companion to refuse a reading "
                           "that is not one text block of exactly the two official lines; it "
                           f"was appended: {data['content']!r}"))
    assert agent.events() == before, pinned(
        "TC-INVARIANT-FORMAT-RULES", "a refused append to leave the log unchanged",
        agent.events()[len(before):])


@pytest.mark.compat("TC-INVARIANT-DIAGNOSTICS")
@REJECTED
@pytest.mark.spec("TC-028", "TC-029")
def test_a_rejected_reading_gets_the_official_diagnostic(host, prefix, data, diagnostic):
    agent = agent_after(host, prefix)
    with pytest.raises(AppendRejectedError) as caught:
        agent.append_event("user/message", data)
    assert diagnostic in str(caught.value), pinned(
        "TC-INVARIANT-DIAGNOSTICS", f"the diagnostic {diagnostic!r}", str(caught.value))


@pytest.mark.compat("TC-INVARIANT-DIAGNOSTICS")
@pytest.mark.spec("TC-028")
def test_rejections_name_the_package_as_the_owner(host):
    agent = agent_after(host, [PROMPT])
    with pytest.raises(AppendRejectedError) as caught:
        agent.append_event("user/message", reading_data(STEP_ONE))
    assert OWNER in str(caught.value), pinned(
        "TC-INVARIANT-DIAGNOSTICS", f"the rejection to name the owning package {OWNER}",
        str(caught.value))


@pytest.mark.parametrize(
    ("prefix", "which"),
    [([TURN, PROMPT], "step-1"), (STEP_1_DONE, "step-2"), ([TURN], "step-1")],
    ids=["step-one", "step-two", "no-prompt"],
)
@pytest.mark.spec("TC-028")
def test_a_well_placed_reading_is_accepted(host, written, prefix, which):
    agent = agent_after(host, prefix)
    data = written[which]
    try:
        event = agent.append_event("user/message", data)
    except AppendRejectedError as refused:
        pytest.fail(readme("TC-028", f"the invariant to accept the implementation's own {which} "
                           f"reading in its place; it refused it: {refused}"))
    assert text_of(event) == text_of({"data": data}), readme(
        "TC-028", "a well-placed reading to be appended as given", event)


@pytest.mark.spec("TC-029")
def test_a_pause_between_sampling_and_appending_does_not_invalidate_a_reading(host, written):
    agent = agent_after(host, [TURN, PROMPT])
    host.set_wall_clock(START_MS + 60_000)
    try:
        agent.append_event("user/message", written["step-1"])
    except AppendRejectedError as refused:
        pytest.fail(readme("TC-029", "a reading appended 60 s after its sampled time to be "
                           f"accepted; the invariant refused it: {refused}"))
    count = len(reading_events(agent.events()))
    assert count == 1, readme("TC-029", "a reading appended 60 s after its sampled time to be "
                              "accepted", count)


@pytest.mark.spec("TC-028")
def test_messages_not_attributed_to_the_plugin_are_not_checked(host):
    agent = agent_after(host, [])
    other = {"content": [{"type": "text", "text": "anything"}],
             "source": {"kind": "plugin", "plugin": "other"}}
    agent.append_event("user/message", other)
    agent.append_event("user/message", {**other, "source": {"kind": "user"}})
    count = len([e for e in agent.events() if e["type"] == "user/message"])
    assert count == 2, readme("TC-028", "messages of other sources to be appended unchecked",
                              count)


@pytest.mark.spec("TC-028")
@pytest.mark.dsh_probe(
    "tc-companion-checks-at-registration",
    "The companion checks readings already in live sessions",
)
def test_registration_checks_readings_already_in_live_sessions(dsh_host, written):
    agent = dsh_host.create_agent()
    agent.append_event("user/message", written["step-1"])
    try:
        dsh_host.load_plugin("time-context-invariant")
    except Exception:
        return
    pytest.fail(readme("TC-028", "registering the invariant to check readings already in live "
                       "sessions and refuse one outside any turn; it registered"))


@pytest.mark.compat("TC-INVARIANT-DIAGNOSTICS")
@pytest.mark.spec("TC-028")
def test_registration_refuses_a_live_session_with_the_official_diagnostic(dsh_host):
    agent = dsh_host.create_agent()
    agent.append_event("user/message", reading_data(STEP_ONE))
    diagnostic = "time-context reading must be appended inside an open turn"
    with pytest.raises(Exception) as caught:
        dsh_host.load_plugin("time-context-invariant")
    assert diagnostic in str(caught.value), pinned(
        "TC-INVARIANT-DIAGNOSTICS", f"the diagnostic {diagnostic!r}", str(caught.value))


@pytest.mark.spec("TC-028", "TC-029")
def test_the_plugins_own_readings_always_satisfy_the_invariant(host):
    host.load_plugin("time-context", {"timeZone": "Asia/Shanghai", "refreshIntervalMs": 20_000})
    host.add_pre_step_watcher("raise", only=(2, 2))
    agent = host.create_agent()
    run_turn(host, agent, 15_000, 15_000, 0)
    host.set_wall_clock(host.now_ms - 120_000)
    agent.script(reply_tools(("lookup", {}), thinking_s=25))  # step 2 fails in pre-step
    agent.prompt("again")
    host.advance(25)
    host.advance(3_600)
    run_turn(host, agent, 1_000)
    reasons = [e["data"]["reason"]["kind"] for e in agent.events() if e["type"] == "turn/end"]
    assert reasons == ["completed", "error", "completed"], readme(
        "TC-026", "turns completed, error (a later listener fails step 2), completed", reasons)
    count = len(reading_events(agent.events()))
    assert count == 5, readme("TC-028", "all 5 of the plugin's readings to be accepted", count)
    # Whatever owner name the companion registers under, it reported nothing.
    assert host.errors == [], readme("TC-028, TC-029", "the invariant to accept every reading "
                                     "the plugin appends (no error reported)", host.errors)

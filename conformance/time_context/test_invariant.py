"""README section "时序语义", the ``./invariant`` companion: every reading
attributed to the plugin is checked against its opening turn, its position
before the next step, its elapsed-time baseline and its durable event time."""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned, readme
from dsh_conformance.time_context.readings import (
    READING_SOURCE,
    START_MS,
    later_step_text,
    reading_events,
    run_turn,
    step_one_text,
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


REJECTED = pytest.mark.parametrize(
    ("prefix", "data", "diagnostic"),
    [
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
    ],
    ids=[
        "two-blocks", "trailing-newline", "fractional-duration", "turn-zero", "no-turn",
        "closed-turn", "open-step", "wrong-step", "stale-step", "wrong-turn",
        "step-one-label", "later-step-label", "postdated", "unparseable",
    ],
)


@REJECTED
@pytest.mark.spec("TC-028", "TC-029")
def test_a_malformed_or_misplaced_reading_is_rejected(host, prefix, data, diagnostic):
    agent = agent_after(host, prefix)
    before = agent.events()
    try:
        agent.append_event("user/message", data)
    except AppendRejectedError:
        pass
    else:
        pytest.fail(readme("TC-028, TC-029", "the invariant to refuse this reading (its turn, "
                           "position, baseline, format or timestamp is wrong); it was appended"))
    assert agent.events() == before, readme("TC-028", "a refused append to leave the log "
                                            "unchanged", agent.events()[len(before):])


@pytest.mark.compat("TC-INVARIANT-DIAGNOSTICS")
@REJECTED
@pytest.mark.spec("TC-028", "TC-029")
def test_a_rejected_reading_gets_the_official_diagnostic(host, prefix, data, diagnostic):
    agent = agent_after(host, prefix)
    with pytest.raises(AppendRejectedError) as caught:
        agent.append_event("user/message", data)
    assert diagnostic in str(caught.value), pinned(
        "TC-INVARIANT-DIAGNOSTICS", f"the diagnostic {diagnostic!r}", str(caught.value))


@pytest.mark.spec("TC-005")
def test_rejections_name_the_package_as_the_owner(host):
    agent = agent_after(host, [PROMPT])
    with pytest.raises(AppendRejectedError) as caught:
        agent.append_event("user/message", reading_data(STEP_ONE))
    assert OWNER in str(caught.value), readme(
        "TC-005", f"the rejection to name the owning package {OWNER}", str(caught.value))


@pytest.mark.parametrize(
    ("prefix", "text"),
    [([TURN, PROMPT], STEP_ONE), (STEP_1_DONE, STEP_TWO), ([TURN], STEP_ONE)],
    ids=["step-one", "step-two", "no-prompt"],
)
@pytest.mark.spec("TC-028")
def test_a_well_placed_reading_is_accepted(host, prefix, text):
    agent = agent_after(host, prefix)
    event = agent.append_event("user/message", reading_data(text))
    assert event["data"]["content"][0]["text"] == text, readme(
        "TC-028", "a well-placed reading to be appended as given", event)


@pytest.mark.spec("TC-029")
def test_a_pause_between_sampling_and_appending_does_not_invalidate_a_reading(host):
    agent = agent_after(host, [TURN, PROMPT])
    host.set_wall_clock(START_MS + 60_000)
    agent.append_event("user/message", reading_data(STEP_ONE))
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
def test_registration_checks_readings_already_in_live_sessions(dsh_host):
    agent = dsh_host.create_agent()
    agent.append_event("user/message", reading_data(STEP_ONE))
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
    host.add_pre_step_probe("raise", only=(2, 2))
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
    refused = [error for error in host.errors if OWNER in error]
    assert not refused, readme("TC-028, TC-029", "the invariant to accept every reading the "
                               "plugin appends", refused)

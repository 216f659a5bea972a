"""README section "时序语义" (Timing semantics), the elapsed baselines: which
durable event a step measures from. Events are appended with chosen times
(``append_event(..., envelope={"time": ...})``) and the pre-step is reached
directly, so a baseline is told apart by its event time alone, with the wall
clock standing still."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance.expect import all_facts, readme
from dsh_conformance.time_context.readings import (
    START_MS,
    later_step_text,
    reading_texts,
    step_one_text,
)

pytestmark = [pytest.mark.dsh_requires("time-context")]

UTC_CONFIG = {"timeZone": "UTC"}
NOW = "2026-01-01T00:00:00+00:00[UTC]"

#: Events no step counts as a model-visible message, with a plausible payload.
NOT_MODEL_VISIBLE: dict[str, dict[str, Any]] = {
    "turn/start": {"turn": 1, "trigger": {"kind": "message", "source": {"kind": "user"}}},
    "step/start": {"turn": 1, "step": 1},
    "step/end": {"turn": 1, "step": 1},
    "compact/start": {"seqs": [0]},
}


def user_message(text: str, source: dict[str, str] | None = None) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "source": source or {"kind": "user"}}


def step_one_reading(dsh_host: Any, agent: Any) -> list[str]:
    """The reading(s) the pre-step of turn 1, step 1 appends at the current wall clock."""
    agent.start_pre_step(1, 1).result()
    return reading_texts(agent.events())


@pytest.mark.spec("TC-021", "TC-023")
@pytest.mark.parametrize("newer_type", sorted(NOT_MODEL_VISIBLE))
@pytest.mark.dsh_requires("inject-into-the-step")
def test_step_one_measures_from_the_newest_model_visible_message_not_a_newer_event(
    dsh_host, newer_type
):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    agent.append_event("user/message", user_message("earlier"),
                       envelope={"time": START_MS - 90_000})
    agent.append_event(newer_type, NOT_MODEL_VISIBLE[newer_type],
                       envelope={"time": START_MS - 30_000})
    observed = step_one_reading(dsh_host, agent)
    expected = [step_one_text(1, NOW, "1m 30s")]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-021, TC-023",
        f"step 1 to measure from the model-visible message stamped 90 s ago (1m 30s), not "
        f"from the newer {newer_type} stamped 30 s ago",
        observed,
    )


@pytest.mark.spec("TC-021", "TC-023")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_step_one_measures_from_the_newest_message_whatever_its_source(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    agent.append_event("user/message", user_message("prompt"),
                       envelope={"time": START_MS - 300_000})
    agent.append_event("user/message", user_message("injected", {"kind": "plugin",
                                                                 "plugin": "other"}),
                       envelope={"time": START_MS - 45_000})
    observed = step_one_reading(dsh_host, agent)
    expected = [step_one_text(1, NOW, "45s")]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-021, TC-023",
        "step 1 to measure from the newest model-visible message of any source (45 s ago), "
        "not from the older user prompt",
        observed,
    )


@pytest.mark.spec("TC-021", "TC-023")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_the_baseline_is_the_durable_event_time_not_the_log_position(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    # The newest message in the log carries the older time: the log order decides
    # which message is newest, its durable time how long ago it was.
    agent.append_event("user/message", user_message("one"), envelope={"time": START_MS - 20_000})
    agent.append_event("user/message", user_message("two"), envelope={"time": START_MS - 70_000})
    observed = step_one_reading(dsh_host, agent)
    expected = [step_one_text(1, NOW, "1m 10s")]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-021, TC-023",
        "step 1 to measure from the durable time of the newest message in the log "
        "(stamped 70 s ago), whatever the times of earlier events",
        observed,
    )


@pytest.mark.spec("TC-023")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_message_stamped_after_now_gives_zero_elapsed(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    agent.append_event("user/message", user_message("later"), envelope={"time": START_MS + 60_000})
    observed = step_one_reading(dsh_host, agent)
    expected = [step_one_text(1, NOW, "0s")]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-023", "a baseline later than the wall clock to be clamped to 0 s", observed)


@pytest.mark.spec("TC-024")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_step_one_with_only_events_that_are_no_messages_is_unavailable(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    for event_type, data in NOT_MODEL_VISIBLE.items():
        agent.append_event(event_type, data, envelope={"time": START_MS - 10_000})
    observed = step_one_reading(dsh_host, agent)
    expected = [step_one_text(1, NOW, "unavailable")]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-024", "step 1 with no model-visible message before it to read 'unavailable'",
        observed)


@pytest.mark.spec("TC-022", "TC-023")
@pytest.mark.dsh_requires("inject-into-the-step")
def test_a_later_step_measures_from_the_durable_time_of_the_previous_reading(dsh_host):
    dsh_host.load_plugin("time-context", UTC_CONFIG)
    agent = dsh_host.create_agent()
    agent.append_event("turn/start", NOT_MODEL_VISIBLE["turn/start"],
                       envelope={"time": START_MS - 120_000})
    agent.start_pre_step(1, 1).result()
    # A newer model-visible message is no baseline for a later step.
    agent.append_event("user/message", user_message("between"),
                       envelope={"time": START_MS - 5_000})
    dsh_host.advance(40)
    agent.start_pre_step(1, 2).result()
    observed = reading_texts(agent.events())[1:]
    expected = [later_step_text(1, 2, "2026-01-01T00:00:40+00:00[UTC]", "40s")]
    assert all_facts(observed) == all_facts(expected), readme(
        "TC-022, TC-023",
        "step 2 to measure from the step-1 reading of the same turn (40 s), not from a newer "
        "message",
        observed,
    )

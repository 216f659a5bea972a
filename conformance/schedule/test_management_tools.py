"""README section "Management tools": catalog, values, the per-agent queue,
pre-queue validation, list and delete, recovery and the closed error codes."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from dsh_conformance.schedule.session_logs import (
    CORRUPT,
    INTERNAL,
    START_MS,
    UNCERTAIN_MESSAGE,
    changes,
    dispatches,
    flushes_of,
    reminder_texts,
    seed_log,
    tool_result,
    uncertain,
)
from pytest_dsh import HostStuckError, reply_text, reply_tools
from pytest_dsh.strategies.schedule import (
    create_arguments,
    invalid_create_arguments,
    js_trim,
)

pytestmark = [pytest.mark.dsh_requires("schedule")]

SELECTOR = {
    "code": "invalid_selector",
    "message": "schedule_create accepts exactly one of after_seconds, at, or every_seconds.",
}
PROMPT = {"code": "invalid_prompt", "message": "prompt must be non-empty after trimming."}
AFTER_RULE = {"code": "invalid_rule", "message": "after_seconds must be a positive safe integer."}
EVERY_RULE = {"code": "invalid_rule", "message": "every_seconds must be a safe integer."}
FREQUENCY = {"code": "frequency_too_high", "message": "every_seconds must be at least 300."}
DELETE_ID = {
    "code": "invalid_rule",
    "message": "schedule_delete id must be non-empty without surrounding whitespace.",
}
OUT_OF_RANGE = {
    "code": "time_out_of_range",
    "message": (
        "The scheduled time must be representable as a four-digit-year RFC 3339 UTC instant."
    ),
}
ERROR_CODES = {
    "invalid_prompt", "invalid_selector", "invalid_rule", "invalid_time_zone", "not_future",
    "time_out_of_range", "frequency_too_high", "corrupt_schedule_log", "persistence_uncertain",
    "internal_error",
}


def _not_found(schedule_id: str) -> dict[str, object]:
    return {"id": schedule_id, "deleted": False, "code": "schedule_not_found"}


# -- the catalog ---------------------------------------------------------------------


@pytest.mark.spec("SCH-031", "SCH-059")
def test_catalog_declares_the_model_input_of_each_tool(agent):
    specs = {spec["name"]: spec for spec in agent.tool_specs()}
    assert set(specs) == {"schedule_create", "schedule_list", "schedule_delete"}
    for spec in specs.values():
        assert isinstance(spec["description"], str) and spec["description"].strip()
        assert spec["parameters"]["type"] == "object"
    create = specs["schedule_create"]["parameters"]
    assert {"prompt", "after_seconds", "at", "every_seconds"} <= set(create["properties"])
    assert "prompt" in create["required"]
    assert "id" in specs["schedule_delete"]["parameters"]["properties"]
    assert specs["schedule_delete"]["parameters"]["required"] == ["id"]


@pytest.mark.spec("SCH-031")
@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("schedule_create", {"after_seconds": 60}),
        ("schedule_create", {"prompt": 5, "after_seconds": 60}),
        ("schedule_create", {"prompt": "x", "after_seconds": "60"}),
        ("schedule_create", {"prompt": "x", "every_seconds": "300"}),
        ("schedule_delete", {}),
        ("schedule_delete", {"id": 1}),
        ("schedule_list", []),
    ],
)
def test_arguments_outside_the_catalog_schema_are_host_errors(host, agent, tool, arguments):
    seen = len(flushes_of(host, agent.session_id))
    result = agent.call_tool(tool, arguments)
    assert result.is_error is True
    assert len(flushes_of(host, agent.session_id)) == seen


@pytest.mark.spec("SCH-031", "SCH-036")
def test_list_and_delete_ignore_extra_argument_keys(agent):
    assert agent.call_tool("schedule_list", {"verbose": True}).value == []
    assert agent.call_tool("schedule_delete", {"id": "schedule-3", "force": True}).value == (
        _not_found("schedule-3"))


# -- canonical values ---------------------------------------------------------------------


@pytest.mark.spec("SCH-032", "SCH-060")
@pytest.mark.parametrize(
    ("arguments", "keys"),
    [
        ({"prompt": "x", "after_seconds": 60},
         ["id", "kind", "prompt", "afterSeconds", "scheduledAt", "state", "deliveryMode"]),
        ({"prompt": "x", "at": "2026-01-02T00:00:00Z"},
         ["id", "kind", "prompt", "scheduledAt", "state", "deliveryMode"]),
        ({"prompt": "x", "at": {"date": "2026-01-02", "time": "00:00:00", "time_zone": "UTC"}},
         ["id", "kind", "prompt", "scheduledAt", "state", "deliveryMode"]),
        ({"prompt": "x", "every_seconds": 300},
         ["id", "kind", "prompt", "everySeconds", "scheduledAt", "state", "deliveryMode"]),
    ],
    ids=["after", "at-string", "at-local", "every"],
)
def test_views_use_camel_case_record_fields(agent, arguments, keys):
    created = agent.call_tool("schedule_create", arguments).value
    assert list(created) == keys
    (listed,) = agent.call_tool("schedule_list", {}).value
    assert listed == created
    assert list(listed) == keys


@pytest.mark.spec("SCH-032", "SCH-035", "SCH-041", "SCH-060")
def test_create_value_and_its_rendering(agent):
    result = agent.call_tool("schedule_create", {"prompt": " Stand up ", "after_seconds": 90})
    assert result.value == {
        "id": "schedule-1", "kind": "after", "prompt": "Stand up", "afterSeconds": 90,
        "scheduledAt": "2026-01-01T00:01:30.000Z", "state": "scheduled",
        "deliveryMode": "session-local",
    }
    assert result.text == (
        '{"id":"schedule-1","kind":"after","prompt":"Stand up","afterSeconds":90,'
        '"scheduledAt":"2026-01-01T00:01:30.000Z","state":"scheduled",'
        '"deliveryMode":"session-local"}'
    )


@pytest.mark.spec("SCH-041", "SCH-060")
def test_rendering_is_compact_json_with_integers_and_literal_unicode(agent):
    arguments = {"prompt": "Café ☕ 😀 \"q\"", "after_seconds": 60.0}
    created = agent.call_tool("schedule_create", arguments)
    assert created.value["afterSeconds"] == 60
    assert created.text == (
        '{"id":"schedule-1","kind":"after","prompt":"Café ☕ 😀 \\"q\\"","afterSeconds":60,'
        '"scheduledAt":"2026-01-01T00:01:00.000Z","state":"scheduled",'
        '"deliveryMode":"session-local"}'
    )
    every = agent.call_tool("schedule_create", {"prompt": "E", "every_seconds": 300.0})
    assert '"everySeconds":300,' in every.text
    listed = agent.call_tool("schedule_list", {})
    assert listed.text == "[" + created.text + "," + every.text + "]"


@pytest.mark.spec("SCH-041", "SCH-060")
@pytest.mark.parametrize(
    ("tool", "arguments", "text"),
    [
        ("schedule_list", {}, "[]"),
        ("schedule_delete", {"id": "schedule-5"},
         '{"id":"schedule-5","deleted":false,"code":"schedule_not_found"}'),
        ("schedule_create", {"prompt": " "},
         '{"code":"invalid_selector","message":"schedule_create accepts exactly one of '
         'after_seconds, at, or every_seconds."}'),
    ],
)
def test_other_values_render_as_compact_json(agent, tool, arguments, text):
    assert agent.call_tool(tool, arguments).text == text


@pytest.mark.spec("SCH-041")
def test_persistence_values_render_with_their_operation_and_id(host, agent):
    host.faults.fail_flushes("rejected")
    text = agent.call_tool("schedule_delete", {"id": "schedule-2"}).text
    assert text == (
        '{"code":"persistence_uncertain","message":"' + UNCERTAIN_MESSAGE
        + '","operation":"delete","id":"schedule-2"}'
    )


# -- pre-queue validation ---------------------------------------------------------------

PRE_QUEUE = [
    pytest.param({"prompt": "x"}, SELECTOR, id="no-selector"),
    pytest.param({"prompt": "x", "after_seconds": 60, "every_seconds": 300}, SELECTOR,
                 id="two-selectors"),
    pytest.param({"prompt": "x", "after_seconds": 60, "at": "2026-01-02T00:00:00Z",
                  "every_seconds": 300}, SELECTOR, id="three-selectors"),
    pytest.param({"prompt": "x", "after_seconds": 60, "bogus": 1}, SELECTOR, id="unknown-key"),
    pytest.param({"prompt": "x", "cron": "0 9 * * *"}, SELECTOR, id="cron-key"),
    pytest.param({"prompt": "  "}, SELECTOR, id="selector-before-prompt"),
    pytest.param({"prompt": "", "after_seconds": 60}, PROMPT, id="empty-prompt"),
    pytest.param({"prompt": " \t\n\u00a0\u2028\u3000\ufeff", "every_seconds": 300}, PROMPT,
                 id="whitespace-prompt"),
    pytest.param({"prompt": " ", "at": "garbage"}, PROMPT, id="prompt-before-at"),
    pytest.param({"prompt": "x", "after_seconds": 0}, AFTER_RULE, id="after-zero"),
    pytest.param({"prompt": "x", "after_seconds": -5}, AFTER_RULE, id="after-negative"),
    pytest.param({"prompt": "x", "after_seconds": 1.5}, AFTER_RULE, id="after-fraction"),
    pytest.param({"prompt": "x", "after_seconds": 1e300}, AFTER_RULE, id="after-huge"),
    pytest.param({"prompt": "x", "after_seconds": 9007199254740992}, AFTER_RULE,
                 id="after-unsafe"),
    pytest.param({"prompt": "x", "every_seconds": 299.5}, EVERY_RULE, id="every-fraction"),
    pytest.param({"prompt": "x", "every_seconds": 1e300}, EVERY_RULE, id="every-huge"),
    pytest.param({"prompt": "x", "every_seconds": 299}, FREQUENCY, id="every-299"),
    pytest.param({"prompt": "x", "every_seconds": 0}, FREQUENCY, id="every-zero"),
    pytest.param({"prompt": "x", "every_seconds": -1}, FREQUENCY, id="every-negative"),
]


@pytest.mark.spec("SCH-034", "SCH-039", "SCH-087")
@pytest.mark.parametrize(("arguments", "expected"), PRE_QUEUE)
def test_shape_failures_return_before_the_queue_without_a_flush(
    host, agent, arguments, expected
):
    seen = len(flushes_of(host, agent.session_id))
    result = agent.call_tool("schedule_create", arguments)
    assert result.is_error is False
    assert result.value == expected
    assert list(result.value) == ["code", "message"]
    assert len(flushes_of(host, agent.session_id)) == seen
    assert changes(agent.events()) == []


@pytest.mark.spec("SCH-034")
@pytest.mark.parametrize(("arguments", "expected"), PRE_QUEUE[::3])
def test_shape_failures_win_over_broken_persistence(host, agent, arguments, expected):
    host.faults.fail_flushes("rejected", count=None)
    assert agent.call_tool("schedule_create", arguments).value == expected


@pytest.mark.spec("SCH-002", "SCH-087")
@pytest.mark.parametrize(
    ("arguments", "scheduled_at"),
    [
        ({"prompt": "x", "after_seconds": 1}, "2026-01-01T00:00:01.000Z"),
        ({"prompt": "x", "after_seconds": 86400}, "2026-01-02T00:00:00.000Z"),
        ({"prompt": "x", "every_seconds": 300}, "2026-01-01T00:05:00.000Z"),
        ({"prompt": "x", "every_seconds": 86400}, "2026-01-02T00:00:00.000Z"),
    ],
)
def test_version_one_accepts_positive_delays_and_intervals_of_five_minutes_or_more(
    agent, arguments, scheduled_at
):
    assert agent.call_tool("schedule_create", arguments).value["scheduledAt"] == scheduled_at


@pytest.mark.spec("SCH-039")
@pytest.mark.parametrize(
    "arguments",
    [{"prompt": "x", "after_seconds": 9007199254740991},
     {"prompt": "x", "every_seconds": 1_000_000_000_000_000}],
)
def test_targets_beyond_year_9999_are_out_of_range(agent, arguments):
    assert agent.call_tool("schedule_create", arguments).value == OUT_OF_RANGE


@pytest.mark.spec("SCH-034")
@pytest.mark.parametrize(
    "arguments",
    [{"prompt": "x", "after_seconds": 9007199254740991},
     {"prompt": "x", "every_seconds": 1_000_000_000_000_000}],
)
def test_range_checks_that_need_now_come_after_the_preflight(host, agent, arguments):
    host.faults.fail_flushes("falsy", count=None)
    assert agent.call_tool("schedule_create", arguments).value == uncertain("create")


# -- the queue -------------------------------------------------------------------------


@pytest.mark.spec("SCH-033")
def test_management_waits_while_a_due_transaction_holds_the_queue(host, agent):
    agent.call_tool("schedule_create", {"prompt": "Due", "after_seconds": 60})
    host.faults.fail_flushes("hang", first=2, count=1)  # the dispatch barrier hangs
    host.advance(60)
    assert len(dispatches(agent.events())) == 1
    seen = len(flushes_of(host, agent.session_id))
    with pytest.raises(HostStuckError):
        agent.call_tool("schedule_list", {})
    assert len(flushes_of(host, agent.session_id)) == seen


@pytest.mark.spec("SCH-033")
def test_transactions_of_one_agent_do_not_block_another_agent(host, agent):
    other = host.create_agent()
    agent.call_tool("schedule_create", {"prompt": "Due", "after_seconds": 60})
    host.faults.fail_flushes("hang", first=2, count=1)
    host.advance(60)
    assert other.call_tool("schedule_list", {}).value == []


@pytest.mark.spec("SCH-033", "SCH-044")
def test_model_issued_calls_in_one_step_run_in_order(host, agent):
    agent.script(
        reply_tools(
            ("schedule_create", {"prompt": "a", "after_seconds": 600}),
            ("schedule_create", {"prompt": "b", "after_seconds": 600}),
            ("schedule_delete", {"id": "schedule-1"}),
            ("schedule_list", {}),
        ),
        reply_text("done"),
    )
    agent.prompt("set two reminders")
    results = [tool_result(e["data"])[0][0]["text"] for e in agent.events()
               if e["type"] == "tool/result"]
    assert results[2] == '{"id":"schedule-1","deleted":true}'
    assert '"id":"schedule-2"' in results[3] and '"id":"schedule-1"' not in results[3]


# -- list ----------------------------------------------------------------------------


@pytest.mark.spec("SCH-035")
def test_list_returns_active_records_in_creation_order(agent):
    agent.call_tool("schedule_create", {"prompt": "late", "after_seconds": 900})
    agent.call_tool("schedule_create", {"prompt": "early", "at": "2026-01-01T00:01:00Z"})
    agent.call_tool("schedule_create", {"prompt": "gone", "after_seconds": 60})
    agent.call_tool("schedule_create", {"prompt": "tick", "every_seconds": 300})
    agent.call_tool("schedule_delete", {"id": "schedule-3"})
    assert agent.call_tool("schedule_list", {}).value == [
        {"id": "schedule-1", "kind": "after", "prompt": "late", "afterSeconds": 900,
         "scheduledAt": "2026-01-01T00:15:00.000Z", "state": "scheduled",
         "deliveryMode": "session-local"},
        {"id": "schedule-2", "kind": "at", "prompt": "early",
         "scheduledAt": "2026-01-01T00:01:00.000Z", "state": "scheduled",
         "deliveryMode": "session-local"},
        {"id": "schedule-4", "kind": "every", "prompt": "tick", "everySeconds": 300,
         "scheduledAt": "2026-01-01T00:05:00.000Z", "state": "scheduled",
         "deliveryMode": "session-local"},
    ]


@pytest.mark.spec("SCH-035", "SCH-047")
def test_list_marks_a_due_record_that_waits_for_the_agent_as_overdue(host, agent):
    agent.call_tool("schedule_create", {"prompt": "Ping", "after_seconds": 60})
    agent.call_tool("schedule_create", {"prompt": "Later", "after_seconds": 6000})
    agent.script(reply_text("long answer", thinking_s=600))
    agent.prompt("work")
    host.advance(120)
    states = [(v["id"], v["state"]) for v in agent.call_tool("schedule_list", {}).value]
    assert states == [("schedule-1", "overdue"), ("schedule-2", "scheduled")]


# -- delete --------------------------------------------------------------------------


@pytest.mark.spec("SCH-036")
def test_delete_of_an_active_record_appends_one_delete(agent):
    agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 600})
    result = agent.call_tool("schedule_delete", {"id": "schedule-1"})
    assert result.value == {"id": "schedule-1", "deleted": True}
    assert result.text == '{"id":"schedule-1","deleted":true}'
    assert changes(agent.events())[-1] == {"version": 1, "operation": "delete", "id": "schedule-1"}
    assert agent.call_tool("schedule_list", {}).value == []


@pytest.mark.spec("SCH-036", "SCH-039")
@pytest.mark.parametrize(
    "schedule_id",
    ["", " ", " schedule-1", "schedule-1 ", "\tschedule-1", "schedule-1\n",
     "\u00a0schedule-1", "schedule-1\u3000", "\ufeffschedule-1", "schedule-1\u2028"],
)
def test_delete_rejects_empty_or_padded_ids_before_the_queue(host, agent, schedule_id):
    agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 600})
    host.faults.fail_flushes("falsy", count=None)
    seen = len(flushes_of(host, agent.session_id))
    assert agent.call_tool("schedule_delete", {"id": schedule_id}).value == DELETE_ID
    assert len(flushes_of(host, agent.session_id)) == seen
    assert [c["operation"] for c in changes(agent.events())] == ["create"]


@pytest.mark.spec("SCH-036")
def test_unknown_deleted_and_dispatched_ids_are_not_found_and_append_nothing(host, agent):
    agent.call_tool("schedule_create", {"prompt": "a", "after_seconds": 60})
    agent.call_tool("schedule_create", {"prompt": "b", "after_seconds": 600})
    agent.call_tool("schedule_delete", {"id": "schedule-2"})
    host.advance(60)  # schedule-1 is dispatched
    before = changes(agent.events())
    for schedule_id in ("schedule-1", "schedule-2", "schedule-3", "Schedule-1", "1"):
        result = agent.call_tool("schedule_delete", {"id": schedule_id})
        assert result.value == _not_found(schedule_id)
    assert changes(agent.events()) == before


@pytest.mark.spec("SCH-036")
def test_not_found_is_answered_only_after_a_successful_preflight(host, agent):
    host.faults.fail_flushes("detached")
    assert agent.call_tool("schedule_delete", {"id": "schedule-9"}).value == uncertain(
        "delete", "schedule-9")


# -- recovery through later preflights ------------------------------------------------


@pytest.mark.spec("SCH-037", "SCH-038")
def test_a_create_kept_after_a_barrier_failure_becomes_durable_at_the_next_preflight(
    host, agent
):
    host.faults.fail_flushes("rejected", first=2, count=1)
    assert agent.call_tool("schedule_create", {"prompt": "Kept", "after_seconds": 600}).value == (
        uncertain("create", "schedule-1"))
    (listed,) = agent.call_tool("schedule_list", {}).value
    assert listed["id"] == "schedule-1"
    assert changes(host.durable_events(agent.session_id))[0]["schedule"]["prompt"] == "Kept"
    host.advance(600)
    assert len(reminder_texts(agent.events())) == 1


@pytest.mark.spec("SCH-037", "SCH-038")
def test_a_delete_kept_after_a_barrier_failure_is_honoured(host, agent):
    agent.call_tool("schedule_create", {"prompt": "Drop", "after_seconds": 600})
    host.faults.fail_flushes("falsy", first=2, count=1)
    assert agent.call_tool("schedule_delete", {"id": "schedule-1"}).value == uncertain(
        "delete", "schedule-1")
    assert agent.call_tool("schedule_list", {}).value == []
    host.advance(1200)
    assert reminder_texts(agent.events()) == []
    assert dispatches(agent.events()) == []


@pytest.mark.spec("SCH-037", "SCH-085")
def test_a_successful_management_preflight_makes_the_owner_recompute(host, agent):
    agent.call_tool("schedule_create", {"prompt": "Stranded", "after_seconds": 60})
    host.faults.fail_flushes("falsy")  # the owner's due preflight
    host.advance(60)
    assert dispatches(agent.events()) == []
    host.advance(3600)  # no private retry timer
    assert dispatches(agent.events()) == []
    agent.call_tool("schedule_list", {})
    assert dispatches(agent.events()) == [
        {"version": 1, "operation": "dispatch", "id": "schedule-1"}]


# -- the closed error codes ------------------------------------------------------------


@pytest.mark.spec("SCH-039")
@pytest.mark.parametrize("tool", ["schedule_create", "schedule_list", "schedule_delete"])
def test_an_aborted_call_is_an_internal_error_and_changes_nothing(agent, tool):
    arguments = {"schedule_create": {"prompt": "x", "after_seconds": 60},
                 "schedule_list": {}, "schedule_delete": {"id": "schedule-1"}}[tool]
    result = agent.call_tool(tool, arguments, aborted=True)
    assert result.is_error is False
    assert result.value == INTERNAL
    assert changes(agent.events()) == []


@pytest.mark.spec("SCH-039", "SCH-040")
def test_a_rejected_create_append_is_an_internal_error_without_backend_details(host, agent):
    host.faults.fail_appends(event_type="schedule/change")
    result = agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 60})
    assert result.value == INTERNAL
    assert "fault" not in result.text and "append" not in result.text
    assert changes(agent.events()) == []
    assert agent.call_tool("schedule_create", {"prompt": "y", "after_seconds": 60}).value[
        "kind"] == "after"


@pytest.mark.spec("SCH-039", "SCH-040")
def test_a_rejected_delete_append_is_an_internal_error(host, agent):
    agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 600})
    host.faults.fail_appends(event_type="schedule/change")
    assert agent.call_tool("schedule_delete", {"id": "schedule-1"}).value == INTERNAL
    assert len(agent.call_tool("schedule_list", {}).value) == 1


@pytest.mark.spec("SCH-040")
@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
def test_persistence_diagnostics_do_not_expose_backend_exceptions(host, agent, outcome):
    host.faults.fail_flushes(outcome)
    result = agent.call_tool("schedule_list", {})
    assert result.value == uncertain("list")
    for leak in ("listener", "not live", "store", "Error", "session-"):
        assert leak not in result.text


@pytest.mark.spec("SCH-039", "SCH-040")
def test_every_error_value_uses_a_closed_code(host, agent):
    seen = set()
    probes = [
        {"prompt": "x"}, {"prompt": " ", "after_seconds": 1}, {"prompt": "x", "after_seconds": 0},
        {"prompt": "x", "at": {"date": "2026-01-02", "time": "00:00:00", "time_zone": "X/Y"}},
        {"prompt": "x", "at": "2020-01-01T00:00:00Z"},
        {"prompt": "x", "after_seconds": 9007199254740991}, {"prompt": "x", "every_seconds": 5},
    ]
    for arguments in probes:
        seen.add(agent.call_tool("schedule_create", arguments).value["code"])
    host.faults.fail_flushes("falsy")
    seen.add(agent.call_tool("schedule_list", {}).value["code"])
    seen.add(agent.call_tool("schedule_list", {}, aborted=True).value["code"])
    corrupt = host.create_agent(seed=seed_log({"version": 1, "operation": "delete", "id": "x"}))
    assert corrupt.call_tool("schedule_list", {}).value == CORRUPT
    seen.add("corrupt_schedule_log")
    assert seen == ERROR_CODES


# -- properties ---------------------------------------------------------------------------

REUSE_AGENT = settings(
    max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.mark.spec("SCH-034", "SCH-039")
@REUSE_AGENT
@given(case=invalid_create_arguments())
def test_any_shape_failure_is_a_closed_value_without_a_flush(host, agent, case):
    arguments, expected = case
    seen = len(flushes_of(host, agent.session_id))
    result = agent.call_tool("schedule_create", arguments)
    assert result.is_error is False, result.error
    assert result.value == expected
    assert len(flushes_of(host, agent.session_id)) == seen


@pytest.mark.spec("SCH-015", "SCH-032", "SCH-034")
@REUSE_AGENT
@given(arguments=create_arguments(now_ms=START_MS))
def test_any_valid_create_stores_the_trimmed_prompt_under_a_fresh_id(agent, arguments):
    before = agent.call_tool("schedule_list", {}).value
    value = agent.call_tool("schedule_create", arguments).value
    assert value["prompt"] == js_trim(arguments["prompt"])
    assert value["id"] not in {view["id"] for view in before}
    assert value["state"] == "scheduled" and value["deliveryMode"] == "session-local"
    assert changes(agent.events())[-1] == {
        "version": 1, "operation": "create",
        "schedule": {k: v for k, v in value.items() if k not in ("state", "deliveryMode")},
    }

"""README section "Management tools": catalog, values, the per-agent queue,
pre-queue validation, list and delete, recovery and the closed error codes."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings

from dsh_conformance.expect import code_of, pinned, readme
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
    assert set(specs) == {"schedule_create", "schedule_list", "schedule_delete"}, readme(
        "SCH-031", "the catalog to declare exactly the three tools", sorted(specs))
    for name, spec in specs.items():
        assert isinstance(spec["description"], str) and spec["description"].strip(), readme(
            "SCH-031", f"{name} to have a non-empty description", spec.get("description"))
        assert spec["parameters"]["type"] == "object", readme(
            "SCH-031", f"{name}'s argument schema to be an object", spec["parameters"])
    create = specs["schedule_create"]["parameters"]
    assert {"prompt", "after_seconds", "at", "every_seconds"} <= set(create["properties"]), (
        readme("SCH-031, SCH-032", "schedule_create to declare prompt, after_seconds, at and "
               "every_seconds", sorted(create["properties"])))
    assert "prompt" in create["required"], readme(
        "SCH-031", "schedule_create to require prompt", create.get("required"))
    delete = specs["schedule_delete"]["parameters"]
    assert "id" in delete["properties"] and delete["required"] == ["id"], readme(
        "SCH-031", "schedule_delete to declare and require exactly id", delete)


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
    assert result.is_error is True, readme(
        "SCH-031", f"{tool} arguments {arguments!r} outside the catalog schema to be a host "
        "argument error, not a tool value", result.value)
    flushes = len(flushes_of(host, agent.session_id)) - seen
    assert flushes == 0, readme("SCH-031", "no flush for refused arguments", flushes)


@pytest.mark.compat("SCH-CREATE-ARGUMENT-CHECKS")
@pytest.mark.spec("SCH-031", "SCH-036")
def test_list_and_delete_ignore_extra_argument_keys(agent):
    listed = agent.call_tool("schedule_list", {"verbose": True}).value
    assert listed == [], pinned("SCH-CREATE-ARGUMENT-CHECKS", "schedule_list to ignore an extra "
                                "key and answer []", listed)
    deleted = agent.call_tool("schedule_delete", {"id": "schedule-3", "force": True}).value
    assert deleted == _not_found("schedule-3"), pinned(
        "SCH-CREATE-ARGUMENT-CHECKS", "schedule_delete to ignore an extra key and answer "
        "not found", deleted)


# -- canonical values ---------------------------------------------------------------------


VIEW_KEYS = pytest.mark.parametrize(
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


@pytest.mark.spec("SCH-032", "SCH-060")
@VIEW_KEYS
def test_views_use_camel_case_record_fields(agent, arguments, keys):
    created = agent.call_tool("schedule_create", arguments).value
    assert sorted(created) == sorted(keys), readme(
        "SCH-015, SCH-016, SCH-032, SCH-035", f"the view fields {sorted(keys)} (camelCase "
        "record fields plus state and deliveryMode)", created)
    (listed,) = agent.call_tool("schedule_list", {}).value
    assert listed == created, readme("SCH-035", "schedule_list to show the created view",
                                     listed)


@pytest.mark.compat("SCH-VALUE-KEY-ORDER")
@pytest.mark.spec("SCH-032", "SCH-060")
@VIEW_KEYS
def test_views_keep_the_official_key_order(agent, arguments, keys):
    created = agent.call_tool("schedule_create", arguments).value
    (listed,) = agent.call_tool("schedule_list", {}).value
    observed = [list(created), list(listed)]
    assert observed == [keys, keys], pinned(
        "SCH-VALUE-KEY-ORDER", f"the key order {keys} in create and list", observed)


@pytest.mark.spec("SCH-032", "SCH-035", "SCH-041", "SCH-060")
def test_create_value_and_its_rendering(agent):
    result = agent.call_tool("schedule_create", {"prompt": " Stand up ", "after_seconds": 90})
    value = result.value
    schedule_id = value.get("id") if isinstance(value, dict) else None
    assert isinstance(schedule_id, str) and schedule_id == schedule_id.strip() != "", readme(
        "SCH-015", "a stable ScheduleId string", value)
    assert value == {
        "id": schedule_id, "kind": "after", "prompt": "Stand up", "afterSeconds": 90,
        "scheduledAt": "2026-01-01T00:01:30.000Z", "state": "scheduled",
        "deliveryMode": "session-local",
    }, readme("SCH-015, SCH-016, SCH-032, SCH-035", "the canonical after view with the trimmed "
              "prompt, afterSeconds 90, scheduledAt 2026-01-01T00:01:30.000Z, state scheduled, "
              "deliveryMode session-local", value)
    assert json.loads(result.text) == value, readme(
        "SCH-041", "the rendered content to be JSON of the canonical value", result.text)


@pytest.mark.compat("SCH-RENDERED-JSON", "SCH-VALUE-KEY-ORDER")
@pytest.mark.spec("SCH-041", "SCH-060")
def test_create_value_renders_exactly(agent):
    result = agent.call_tool("schedule_create", {"prompt": " Stand up ", "after_seconds": 90})
    expected = (
        '{"id":"schedule-1","kind":"after","prompt":"Stand up","afterSeconds":90,'
        '"scheduledAt":"2026-01-01T00:01:30.000Z","state":"scheduled",'
        '"deliveryMode":"session-local"}'
    )
    assert result.text == expected, pinned("SCH-RENDERED-JSON", f"exactly {expected}",
                                           result.text)


@pytest.mark.spec("SCH-041", "SCH-060")
def test_rendering_is_json_of_the_value_with_integer_seconds(agent):
    arguments = {"prompt": "Café ☕ 😀 \"q\"", "after_seconds": 60.0}
    created = agent.call_tool("schedule_create", arguments)
    seconds = created.value["afterSeconds"]
    assert seconds == 60 and isinstance(seconds, int), readme(
        "SCH-002, SCH-016", "afterSeconds stored and shown as the integer 60 for 60.0", seconds)
    assert json.loads(created.text) == created.value, readme(
        "SCH-041", "the rendered content to be JSON of the canonical value", created.text)
    every = agent.call_tool("schedule_create", {"prompt": "E", "every_seconds": 300.0})
    parsed = json.loads(every.text)["everySeconds"]
    assert parsed == 300 and isinstance(parsed, int), readme(
        "SCH-002, SCH-016, SCH-041", "everySeconds rendered as the integer 300", every.text)
    listed = agent.call_tool("schedule_list", {})
    assert json.loads(listed.text) == [created.value, every.value], readme(
        "SCH-035, SCH-041", "the list rendered as JSON of both views in creation order",
        listed.text)


@pytest.mark.compat("SCH-RENDERED-JSON")
@pytest.mark.spec("SCH-041", "SCH-060")
def test_rendering_is_compact_json_with_integers_and_literal_unicode(agent):
    arguments = {"prompt": "Café ☕ 😀 \"q\"", "after_seconds": 60.0}
    created = agent.call_tool("schedule_create", arguments)
    expected = (
        '{"id":"schedule-1","kind":"after","prompt":"Café ☕ 😀 \\"q\\"","afterSeconds":60,'
        '"scheduledAt":"2026-01-01T00:01:00.000Z","state":"scheduled",'
        '"deliveryMode":"session-local"}'
    )
    assert created.text == expected, pinned("SCH-RENDERED-JSON", f"exactly {expected}",
                                            created.text)
    every = agent.call_tool("schedule_create", {"prompt": "E", "every_seconds": 300.0})
    assert '"everySeconds":300,' in every.text, pinned(
        "SCH-RENDERED-JSON", "the text '\"everySeconds\":300,'", every.text)
    listed = agent.call_tool("schedule_list", {})
    expected = "[" + created.text + "," + every.text + "]"
    assert listed.text == expected, pinned("SCH-RENDERED-JSON", f"exactly {expected}",
                                           listed.text)


@pytest.mark.compat("SCH-RENDERED-JSON", "SCH-ERROR-MESSAGES")
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
    observed = agent.call_tool(tool, arguments).text
    assert observed == text, pinned("SCH-RENDERED-JSON", f"exactly {text}", observed)


@pytest.mark.compat("SCH-RENDERED-JSON", "SCH-VALUE-KEY-ORDER")
@pytest.mark.spec("SCH-036", "SCH-041")
def test_a_delete_renders_exactly(agent):
    agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 600})
    observed = agent.call_tool("schedule_delete", {"id": "schedule-1"}).text
    expected = '{"id":"schedule-1","deleted":true}'
    assert observed == expected, pinned("SCH-RENDERED-JSON", f"exactly {expected}", observed)


@pytest.mark.compat("SCH-RENDERED-JSON", "SCH-ERROR-VALUE-SHAPE", "SCH-ERROR-MESSAGES")
@pytest.mark.spec("SCH-041")
def test_persistence_values_render_with_their_operation_and_id(host, agent):
    host.faults.fail_flushes("rejected")
    text = agent.call_tool("schedule_delete", {"id": "schedule-2"}).text
    expected = (
        '{"code":"persistence_uncertain","message":"' + UNCERTAIN_MESSAGE
        + '","operation":"delete","id":"schedule-2"}'
    )
    assert text == expected, pinned("SCH-ERROR-VALUE-SHAPE", f"exactly {expected}", text)


# -- pre-queue validation ---------------------------------------------------------------

PRE_QUEUE = [
    pytest.param({"prompt": "x"}, SELECTOR, id="no-selector"),
    pytest.param({"prompt": "x", "after_seconds": 60, "every_seconds": 300}, SELECTOR,
                 id="two-selectors"),
    pytest.param({"prompt": "x", "after_seconds": 60, "at": "2026-01-02T00:00:00Z",
                  "every_seconds": 300}, SELECTOR, id="three-selectors"),
    pytest.param({"prompt": "x", "after_seconds": 60, "bogus": 1}, SELECTOR, id="unknown-key",
                 marks=pytest.mark.compat("SCH-CREATE-ARGUMENT-CHECKS")),
    pytest.param({"prompt": "x", "cron": "0 9 * * *"}, SELECTOR, id="cron-key",
                 marks=pytest.mark.compat("SCH-CREATE-ARGUMENT-CHECKS")),
    pytest.param({"prompt": "  "}, SELECTOR, id="selector-before-prompt",
                 marks=pytest.mark.compat("SCH-CREATE-ARGUMENT-CHECKS")),
    pytest.param({"prompt": "", "after_seconds": 60}, PROMPT, id="empty-prompt"),
    pytest.param({"prompt": " \t\n\u00a0\u2028\u3000\ufeff", "every_seconds": 300}, PROMPT,
                 id="whitespace-prompt"),
    pytest.param({"prompt": " ", "at": "garbage"}, PROMPT, id="prompt-before-at",
                 marks=pytest.mark.compat("SCH-CREATE-ARGUMENT-CHECKS")),
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
    assert result.is_error is False, readme(
        "SCH-039", "a closed Schedule error value, not a host error", result.error)
    assert code_of(result.value) == expected["code"], readme(
        "SCH-034, SCH-039", f"the code {expected['code']} for {arguments!r}", result.value)
    flushes = len(flushes_of(host, agent.session_id)) - seen
    assert flushes == 0, readme("SCH-034", "the shape failure answered before the queue, "
                                "without a flush; flushes", flushes)
    assert changes(agent.events()) == [], readme("SCH-034", "no schedule/change",
                                                 changes(agent.events()))


@pytest.mark.compat("SCH-ERROR-MESSAGES", "SCH-ERROR-VALUE-SHAPE")
@pytest.mark.spec("SCH-034", "SCH-039")
@pytest.mark.parametrize(("arguments", "expected"), PRE_QUEUE)
def test_shape_failures_are_the_official_values(agent, arguments, expected):
    value = agent.call_tool("schedule_create", arguments).value
    observed = (value, list(value) if isinstance(value, dict) else None)
    assert observed == (expected, ["code", "message"]), pinned(
        "SCH-ERROR-MESSAGES", f"exactly {expected} (keys code, message)", value)


@pytest.mark.spec("SCH-034")
@pytest.mark.parametrize(("arguments", "expected"), PRE_QUEUE[::3])
def test_shape_failures_win_over_broken_persistence(host, agent, arguments, expected):
    host.faults.fail_flushes("rejected", count=None)
    value = agent.call_tool("schedule_create", arguments).value
    assert code_of(value) == expected["code"], readme(
        "SCH-034", f"the shape failure {expected['code']} before any flush, even with broken "
        "persistence", value)


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
    value = agent.call_tool("schedule_create", arguments).value
    assert isinstance(value, dict) and value.get("scheduledAt") == scheduled_at, readme(
        "SCH-002", f"{arguments!r} accepted with scheduledAt {scheduled_at}", value)


BEYOND_9999 = pytest.mark.parametrize(
    "arguments",
    [{"prompt": "x", "after_seconds": 9007199254740991},
     {"prompt": "x", "every_seconds": 1_000_000_000_000_000}],
)


@pytest.mark.spec("SCH-039")
@BEYOND_9999
def test_targets_beyond_year_9999_are_out_of_range(agent, arguments):
    value = agent.call_tool("schedule_create", arguments).value
    assert code_of(value) == "time_out_of_range", readme(
        "SCH-015, SCH-039", "time_out_of_range for a target past year 9999 (scheduledAt has a "
        "four-digit year)", value)


@pytest.mark.compat("SCH-ERROR-MESSAGES")
@pytest.mark.spec("SCH-039")
@BEYOND_9999
def test_out_of_range_is_the_official_value(agent, arguments):
    value = agent.call_tool("schedule_create", arguments).value
    assert value == OUT_OF_RANGE, pinned("SCH-ERROR-MESSAGES", f"exactly {OUT_OF_RANGE}", value)


@pytest.mark.spec("SCH-034")
@pytest.mark.parametrize(
    "arguments",
    [{"prompt": "x", "after_seconds": 9007199254740991},
     {"prompt": "x", "every_seconds": 1_000_000_000_000_000}],
)
def test_range_checks_that_need_now_come_after_the_preflight(host, agent, arguments):
    host.faults.fail_flushes("falsy", count=None)
    value = agent.call_tool("schedule_create", arguments).value
    assert code_of(value) == "persistence_uncertain", readme(
        "SCH-034", "a check that needs now to run after the preflight, so a failed flush "
        "answers persistence_uncertain", value)


# -- the queue -------------------------------------------------------------------------


@pytest.mark.spec("SCH-033")
def test_management_waits_while_a_due_transaction_holds_the_queue(host, agent):
    agent.call_tool("schedule_create", {"prompt": "Due", "after_seconds": 60})
    host.faults.fail_flushes("hang", first=2, count=1)  # the dispatch barrier hangs
    host.advance(60)
    assert len(dispatches(agent.events())) == 1, readme(
        "SCH-048", "the due reminder dispatched", dispatches(agent.events()))
    seen = len(flushes_of(host, agent.session_id))
    try:
        agent.call_tool("schedule_list", {})
    except HostStuckError:
        pass
    else:
        pytest.fail(readme("SCH-033", "schedule_list to wait while the due transaction holds "
                           "the queue (its barrier hangs); it answered"))
    flushes = len(flushes_of(host, agent.session_id)) - seen
    assert flushes == 0, readme("SCH-033", "the waiting list not to start its preflight",
                                flushes)


@pytest.mark.spec("SCH-033")
def test_transactions_of_one_agent_do_not_block_another_agent(host, agent):
    other = host.create_agent()
    agent.call_tool("schedule_create", {"prompt": "Due", "after_seconds": 60})
    host.faults.fail_flushes("hang", first=2, count=1)
    host.advance(60)
    value = other.call_tool("schedule_list", {}).value
    assert value == [], readme("SCH-033", "another agent's queue not to be blocked", value)


@pytest.mark.spec("SCH-033", "SCH-044")
def test_model_issued_calls_in_one_step_run_in_order(host, agent):
    agent.script(
        reply_tools(
            ("schedule_create", {"prompt": "a", "after_seconds": 600}),
            ("schedule_list", {}),
            ("schedule_create", {"prompt": "b", "after_seconds": 600}),
            ("schedule_list", {}),
        ),
        reply_text("done"),
    )
    agent.prompt("set two reminders")
    results = [json.loads(tool_result(e["data"])[0][0]["text"]) for e in agent.events()
               if e["type"] == "tool/result"]
    # Ids are the implementation's; the prompts tell which create each record came from.
    assert [view["prompt"] for view in results[1]] == ["a"], readme(
        "SCH-033, SCH-035", "the first list (second call) to see the first create only", results)
    assert [view["prompt"] for view in results[3]] == ["a", "b"], readme(
        "SCH-033, SCH-035", "the list (fourth call) to see the earlier calls' effects", results)


# -- list ----------------------------------------------------------------------------


@pytest.mark.spec("SCH-035")
def test_list_returns_active_records_in_creation_order(agent):
    ids = [agent.call_tool("schedule_create", arguments).value["id"] for arguments in (
        {"prompt": "late", "after_seconds": 900},
        {"prompt": "early", "at": "2026-01-01T00:01:00Z"},
        {"prompt": "gone", "after_seconds": 60},
        {"prompt": "tick", "every_seconds": 300})]
    agent.call_tool("schedule_delete", {"id": ids[2]})
    listed = agent.call_tool("schedule_list", {}).value
    assert listed == [
        {"id": ids[0], "kind": "after", "prompt": "late", "afterSeconds": 900,
         "scheduledAt": "2026-01-01T00:15:00.000Z", "state": "scheduled",
         "deliveryMode": "session-local"},
        {"id": ids[1], "kind": "at", "prompt": "early",
         "scheduledAt": "2026-01-01T00:01:00.000Z", "state": "scheduled",
         "deliveryMode": "session-local"},
        {"id": ids[3], "kind": "every", "prompt": "tick", "everySeconds": 300,
         "scheduledAt": "2026-01-01T00:05:00.000Z", "state": "scheduled",
         "deliveryMode": "session-local"},
    ], readme("SCH-035", "the active records (first, second, fourth; third deleted) in "
              "creation order, not "
              "target order", listed)


@pytest.mark.spec("SCH-035", "SCH-047")
def test_list_marks_a_due_record_that_waits_for_the_agent_as_overdue(host, agent):
    ping = agent.call_tool("schedule_create", {"prompt": "Ping", "after_seconds": 60})
    later = agent.call_tool("schedule_create", {"prompt": "Later", "after_seconds": 6000})
    agent.script(reply_text("long answer", thinking_s=600))
    agent.prompt("work")
    host.advance(120)
    states = [(v["id"], v["state"]) for v in agent.call_tool("schedule_list", {}).value]
    assert states == [(ping.value["id"], "overdue"), (later.value["id"], "scheduled")], readme(
        "SCH-035, SCH-047", "a due record waiting for the busy agent listed as overdue",
        states)


# -- delete --------------------------------------------------------------------------


@pytest.mark.spec("SCH-036")
def test_delete_of_an_active_record_appends_one_delete(agent):
    creation = agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 600})
    created = creation.value["id"]
    result = agent.call_tool("schedule_delete", {"id": created})
    assert result.value == {"id": created, "deleted": True}, readme(
        "SCH-036", "{id, deleted: true} for an active id", result.value)
    assert json.loads(result.text) == result.value, readme(
        "SCH-041", "the rendered content to be JSON of the value", result.text)
    last = changes(agent.events())[-1]
    assert last == {"version": 1, "operation": "delete", "id": created}, readme(
        "SCH-017, SCH-036", "one delete change carrying only the id", last)
    listed = agent.call_tool("schedule_list", {}).value
    assert listed == [], readme("SCH-036", "the deleted record gone from the list", listed)


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
    value = agent.call_tool("schedule_delete", {"id": schedule_id}).value
    assert code_of(value) == "invalid_rule", readme(
        "SCH-036, SCH-039", f"the id {schedule_id!r} rejected before the queue (invalid_rule, "
        "not persistence_uncertain)", value)
    flushes = len(flushes_of(host, agent.session_id)) - seen
    assert flushes == 0, readme("SCH-036", "no flush for a rejected id", flushes)
    operations = [c["operation"] for c in changes(agent.events())]
    assert operations == ["create"], readme("SCH-036", "no delete appended", operations)


@pytest.mark.compat("SCH-ERROR-MESSAGES")
@pytest.mark.spec("SCH-036", "SCH-039")
@pytest.mark.parametrize("schedule_id", ["", " schedule-1", "schedule-1\u2028"])
def test_a_rejected_delete_id_is_the_official_value(agent, schedule_id):
    value = agent.call_tool("schedule_delete", {"id": schedule_id}).value
    assert value == DELETE_ID, pinned("SCH-ERROR-MESSAGES", f"exactly {DELETE_ID}", value)


@pytest.mark.spec("SCH-036")
def test_unknown_deleted_and_dispatched_ids_are_not_found_and_append_nothing(host, agent):
    agent.call_tool("schedule_create", {"prompt": "a", "after_seconds": 60})
    agent.call_tool("schedule_create", {"prompt": "b", "after_seconds": 600})
    agent.call_tool("schedule_delete", {"id": "schedule-2"})
    host.advance(60)  # schedule-1 is dispatched
    before = changes(agent.events())
    for schedule_id in ("schedule-1", "schedule-2", "schedule-3", "Schedule-1", "1"):
        result = agent.call_tool("schedule_delete", {"id": schedule_id})
        assert result.value == _not_found(schedule_id), readme(
            "SCH-036", f"{{id, deleted: false, code: schedule_not_found}} for {schedule_id!r}",
            result.value)
    assert changes(agent.events()) == before, readme(
        "SCH-036", "no change appended for unknown or terminal ids", changes(agent.events()))


@pytest.mark.spec("SCH-036")
def test_not_found_is_answered_only_after_a_successful_preflight(host, agent):
    host.faults.fail_flushes("detached")
    value = agent.call_tool("schedule_delete", {"id": "schedule-9"}).value
    assert code_of(value) == "persistence_uncertain", readme(
        "SCH-010, SCH-036", "persistence_uncertain, not schedule_not_found, when the preflight "
        "fails", value)


# -- recovery through later preflights ------------------------------------------------


@pytest.mark.spec("SCH-037", "SCH-038")
def test_a_create_kept_after_a_barrier_failure_becomes_durable_at_the_next_preflight(
    host, agent
):
    host.faults.fail_flushes("rejected", first=2, count=1)
    value = agent.call_tool("schedule_create", {"prompt": "Kept", "after_seconds": 600}).value
    assert code_of(value) == "persistence_uncertain", readme(
        "SCH-010, SCH-011", "persistence_uncertain when the post-append barrier fails", value)
    listed = agent.call_tool("schedule_list", {}).value
    assert [view["prompt"] for view in listed] == ["Kept"], readme(
        "SCH-037, SCH-038", "the retained create listed after the next preflight", listed)
    durable = changes(host.durable_events(agent.session_id))
    assert durable and durable[0]["schedule"]["prompt"] == "Kept", readme(
        "SCH-038", "the next preflight to make the retained create durable", durable)
    host.advance(600)
    delivered = reminder_texts(agent.events())
    assert len(delivered) == 1, readme("SCH-038", "the recovered reminder delivered once",
                                       delivered)


@pytest.mark.spec("SCH-037", "SCH-038")
def test_a_delete_kept_after_a_barrier_failure_is_honoured(host, agent):
    created = agent.call_tool("schedule_create", {"prompt": "Drop", "after_seconds": 600})
    host.faults.fail_flushes("falsy", first=2, count=1)
    value = agent.call_tool("schedule_delete", {"id": created.value["id"]}).value
    assert code_of(value) == "persistence_uncertain", readme(
        "SCH-010, SCH-011", "persistence_uncertain when the delete's barrier fails", value)
    listed = agent.call_tool("schedule_list", {}).value
    assert listed == [], readme("SCH-037, SCH-038", "the retained delete honoured", listed)
    host.advance(1200)
    assert reminder_texts(agent.events()) == [], readme(
        "SCH-038", "no reminder for the deleted record", reminder_texts(agent.events()))
    assert dispatches(agent.events()) == [], readme(
        "SCH-038", "no dispatch for the deleted record", dispatches(agent.events()))


@pytest.mark.spec("SCH-037", "SCH-085")
def test_a_successful_management_preflight_makes_the_owner_recompute(host, agent):
    created = agent.call_tool("schedule_create", {"prompt": "Stranded", "after_seconds": 60})
    host.faults.fail_flushes("falsy")  # the owner's due preflight
    host.advance(60)
    assert dispatches(agent.events()) == [], readme(
        "SCH-010", "no dispatch when the due preflight fails", dispatches(agent.events()))
    host.advance(3600)  # no private retry timer
    assert dispatches(agent.events()) == [], readme(
        "SCH-038, SCH-085", "no private retry timer", dispatches(agent.events()))
    agent.call_tool("schedule_list", {})
    assert dispatches(agent.events()) == [
        {"version": 1, "operation": "dispatch", "id": created.value["id"]}], readme(
        "SCH-037, SCH-085", "a successful list preflight to make the owner recompute and "
        "dispatch", dispatches(agent.events()))


# -- the closed error codes ------------------------------------------------------------


@pytest.mark.spec("SCH-039")
@pytest.mark.parametrize("tool", ["schedule_create", "schedule_list", "schedule_delete"])
def test_an_aborted_call_is_an_internal_error_and_changes_nothing(agent, tool):
    arguments = {"schedule_create": {"prompt": "x", "after_seconds": 60},
                 "schedule_list": {}, "schedule_delete": {"id": "schedule-1"}}[tool]
    result = agent.call_tool(tool, arguments, aborted=True)
    assert result.is_error is False, readme("SCH-039", "a closed value, not a host error",
                                            result.error)
    assert code_of(result.value) == "internal_error", readme(
        "SCH-039", f"internal_error for an aborted {tool}", result.value)
    assert changes(agent.events()) == [], readme("SCH-039", "no change", changes(agent.events()))


@pytest.mark.spec("SCH-039", "SCH-040")
def test_a_rejected_create_append_is_an_internal_error_without_backend_details(host, agent):
    host.faults.fail_appends(event_type="schedule/change")
    result = agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 60})
    assert code_of(result.value) == "internal_error", readme(
        "SCH-039", "internal_error when the create append is rejected", result.value)
    assert "fault" not in result.text and "append" not in result.text, readme(
        "SCH-040", "a diagnostic that does not expose the backend exception", result.text)
    assert changes(agent.events()) == [], readme("SCH-039", "no change", changes(agent.events()))
    value = agent.call_tool("schedule_create", {"prompt": "y", "after_seconds": 60}).value
    assert isinstance(value, dict) and value.get("kind") == "after", readme(
        "SCH-039", "the next create to succeed (the owner is not broken)", value)


@pytest.mark.spec("SCH-039", "SCH-040")
def test_a_rejected_delete_append_is_an_internal_error(host, agent):
    created = agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 600})
    host.faults.fail_appends(event_type="schedule/change")
    value = agent.call_tool("schedule_delete", {"id": created.value["id"]}).value
    assert code_of(value) == "internal_error", readme(
        "SCH-039", "internal_error when the delete append is rejected", value)
    listed = agent.call_tool("schedule_list", {}).value
    assert len(listed) == 1, readme("SCH-036", "the record still active", listed)


@pytest.mark.spec("SCH-040")
@pytest.mark.parametrize("outcome", ["falsy", "rejected", "detached"])
def test_persistence_diagnostics_do_not_expose_backend_exceptions(host, agent, outcome):
    host.faults.fail_flushes(outcome)
    result = agent.call_tool("schedule_list", {})
    assert code_of(result.value) == "persistence_uncertain", readme(
        "SCH-010", f"persistence_uncertain for a {outcome} flush", result.value)
    for leak in ("listener", "not live", "store", "Error", "session-"):
        assert leak not in result.text, readme(
            "SCH-040", f"a diagnostic that does not expose the backend ({leak!r})", result.text)


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
    value = corrupt.call_tool("schedule_list", {}).value
    assert code_of(value) == "corrupt_schedule_log", readme(
        "SCH-019, SCH-039", "corrupt_schedule_log for a delete of an inactive id", value)
    seen.add("corrupt_schedule_log")
    assert seen == ERROR_CODES, readme("SCH-039", f"exactly the closed codes {ERROR_CODES}",
                                       seen)


@pytest.mark.compat("SCH-ERROR-MESSAGES", "SCH-ERROR-VALUE-SHAPE")
@pytest.mark.spec("SCH-039", "SCH-040")
@pytest.mark.parametrize(
    "case",
    ["aborted-create", "aborted-list", "aborted-delete", "rejected-append", "corrupt",
     "create-preflight", "create-barrier", "list-preflight", "delete-preflight",
     "delete-barrier"],
)
def test_error_values_are_the_official_objects(host, agent, case):
    create = {"prompt": "x", "after_seconds": 600}
    if case.startswith("aborted-"):
        tool = "schedule_" + case.removeprefix("aborted-")
        arguments = {"schedule_create": create, "schedule_list": {},
                     "schedule_delete": {"id": "schedule-1"}}[tool]
        value, expected = agent.call_tool(tool, arguments, aborted=True).value, INTERNAL
    elif case == "rejected-append":
        host.faults.fail_appends(event_type="schedule/change")
        value, expected = agent.call_tool("schedule_create", create).value, INTERNAL
    elif case == "corrupt":
        seed = seed_log({"version": 1, "operation": "delete", "id": "x"})
        value = host.create_agent(seed=seed).call_tool("schedule_list", {}).value
        expected = CORRUPT
    elif case == "create-preflight":
        host.faults.fail_flushes("falsy")
        value, expected = agent.call_tool("schedule_create", create).value, uncertain("create")
    elif case == "create-barrier":
        host.faults.fail_flushes("rejected", first=2, count=1)
        value = agent.call_tool("schedule_create", create).value
        expected = uncertain("create", "schedule-1")
    elif case == "list-preflight":
        host.faults.fail_flushes("detached")
        value, expected = agent.call_tool("schedule_list", {}).value, uncertain("list")
    elif case == "delete-preflight":
        host.faults.fail_flushes("detached")
        value = agent.call_tool("schedule_delete", {"id": "schedule-9"}).value
        expected = uncertain("delete", "schedule-9")
    else:
        agent.call_tool("schedule_create", create)
        host.faults.fail_flushes("falsy", first=2, count=1)
        value = agent.call_tool("schedule_delete", {"id": "schedule-1"}).value
        expected = uncertain("delete", "schedule-1")
    observed = (value, list(value) if isinstance(value, dict) else None)
    assert observed == (expected, list(expected)), pinned(
        "SCH-ERROR-VALUE-SHAPE", f"exactly {expected} in this key order", value)


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
    assert result.is_error is False, readme("SCH-039", "a closed value, not a host error",
                                            result.error)
    assert code_of(result.value) == expected["code"], readme(
        "SCH-034, SCH-039", f"the code {expected['code']} for {arguments!r}", result.value)
    flushes = len(flushes_of(host, agent.session_id)) - seen
    assert flushes == 0, readme("SCH-034", "no flush for a shape failure", flushes)


@pytest.mark.compat("SCH-ERROR-MESSAGES", "SCH-CREATE-ARGUMENT-CHECKS")
@pytest.mark.spec("SCH-034", "SCH-039")
@REUSE_AGENT
@given(case=invalid_create_arguments())
def test_any_shape_failure_is_the_official_value(agent, case):
    arguments, expected = case
    value = agent.call_tool("schedule_create", arguments).value
    assert value == expected, pinned("SCH-ERROR-MESSAGES", f"exactly {expected}", value)


@pytest.mark.spec("SCH-015", "SCH-032", "SCH-034")
@REUSE_AGENT
@given(arguments=create_arguments(now_ms=START_MS))
def test_any_valid_create_stores_the_trimmed_prompt_under_a_fresh_id(agent, arguments):
    before = agent.call_tool("schedule_list", {}).value
    value = agent.call_tool("schedule_create", arguments).value
    assert value["prompt"] == js_trim(arguments["prompt"]), readme(
        "SCH-015", "the trimmed prompt", value)
    assert value["id"] not in {view["id"] for view in before}, readme(
        "SCH-034", "a never-reused id", (value, before))
    assert value["state"] == "scheduled" and value["deliveryMode"] == "session-local", readme(
        "SCH-035", "state scheduled, deliveryMode session-local", value)
    last = changes(agent.events())[-1]
    assert last == {
        "version": 1, "operation": "create",
        "schedule": {k: v for k, v in value.items() if k not in ("state", "deliveryMode")},
    }, readme("SCH-015, SCH-034", "one create change holding the record the view shows", last)

"""README section "Management tools": catalog, values, the per-agent queue,
pre-queue validation, list and delete, recovery and the closed error codes."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings

from dsh_conformance.expect import pinned, readme
from dsh_conformance.layout_free import NOT_FOUND_CODE, mentions, schedule_changes
from dsh_conformance.schedule.session_logs import (
    CORRUPT,
    INTERNAL,
    START_MS,
    UNCERTAIN_MESSAGE,
    flushes_of,
    seed_log,
    tool_result,
    uncertain,
)
from dsh_conformance.schedule.tool_values import (
    changes_since,
    epoch_ms,
    instant_ms,
    instants_in,
    rejection_codes,
    reminder_events,
    value_scalars,
)
from pytest_dsh import HostStuckError, reply_text, reply_tools
from pytest_dsh.strategies.schedule import (
    ANY_TRIM,
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


#: View keys are camelCase (SCH-032): a lower-case word, then capitalised words.
CAMEL_CASE = re.compile(r"[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*", re.ASCII)


def _not_found(schedule_id: str) -> dict[str, object]:
    return {"id": schedule_id, "deleted": False, "code": NOT_FOUND_CODE}


def _refused_by_the_catalog(outcome: Any) -> bool:
    """A host error for arguments outside the declared argument schema."""
    return bool(outcome.is_error) and str(outcome.error).startswith("invalid arguments")


def _change_count(agent: Any) -> int:
    return len(schedule_changes(agent.events()))


# -- the catalog ---------------------------------------------------------------------


@pytest.mark.spec("SCH-031", "SCH-032", "SCH-059")
def test_catalog_declares_the_model_input_of_each_tool(agent):
    specs = {spec["name"]: spec for spec in agent.tool_specs()}
    assert set(specs) == {"schedule_create", "schedule_list", "schedule_delete"}, readme(
        "SCH-031", "the catalog to declare exactly the three tools", sorted(specs))
    for name, spec in specs.items():
        assert spec["parameters"].get("type") == "object", readme(
            "SCH-031, SCH-032", f"{name}'s argument schema to be an object of named model "
            "inputs", spec["parameters"])
    create = specs["schedule_create"]["parameters"].get("properties", {})
    assert {"prompt", "after_seconds", "at", "every_seconds"} <= set(create), readme(
        "SCH-031, SCH-032, SCH-034", "schedule_create to declare the model inputs prompt, "
        "after_seconds, at and every_seconds", sorted(create))
    delete = specs["schedule_delete"]["parameters"].get("properties", {})
    assert "id" in delete, readme("SCH-031, SCH-036", "schedule_delete to declare id",
                                  sorted(delete))


@pytest.mark.compat("SCH-TOOL-ARGUMENT-SCHEMAS")
@pytest.mark.spec("SCH-031", "SCH-059")
def test_catalog_declares_the_official_argument_schemas(agent):
    specs = {spec["name"]: spec for spec in agent.tool_specs()}
    for name, spec in specs.items():
        assert isinstance(spec["description"], str) and spec["description"].strip(), pinned(
            "SCH-TOOL-ARGUMENT-SCHEMAS", f"{name} to have a non-empty description",
            spec.get("description"))
    create = specs["schedule_create"]["parameters"]
    assert "prompt" in create["required"], pinned(
        "SCH-TOOL-ARGUMENT-SCHEMAS", "schedule_create to require prompt", create.get("required"))
    delete = specs["schedule_delete"]["parameters"]
    assert delete["required"] == ["id"], pinned(
        "SCH-TOOL-ARGUMENT-SCHEMAS", "schedule_delete to require exactly id", delete)


OUTSIDE_THE_SCHEMA = [
    ("schedule_create", {"after_seconds": 60}),
    ("schedule_create", {"prompt": 5, "after_seconds": 60}),
    ("schedule_create", {"prompt": "x", "after_seconds": "60"}),
    ("schedule_create", {"prompt": "x", "every_seconds": "300"}),
    ("schedule_delete", {}),
    ("schedule_delete", {"id": 1}),
    ("schedule_list", []),
]


@pytest.mark.compat("SCH-TOOL-ARGUMENT-SCHEMAS")
@pytest.mark.spec("SCH-031")
@pytest.mark.parametrize(("tool", "arguments"), OUTSIDE_THE_SCHEMA)
def test_arguments_outside_the_catalog_schema_are_host_errors(host, agent, tool, arguments):
    seen = len(flushes_of(host, agent.session_id))
    result = agent.call_tool(tool, arguments)
    assert result.is_error is True, pinned(
        "SCH-TOOL-ARGUMENT-SCHEMAS", f"{tool} arguments {arguments!r} outside the catalog "
        "schema to be a host argument error, not a tool value", result.value)
    flushes = len(flushes_of(host, agent.session_id)) - seen
    assert flushes == 0, pinned("SCH-TOOL-ARGUMENT-SCHEMAS", "no flush for refused arguments",
                                flushes)


@pytest.mark.spec("SCH-031", "SCH-034", "SCH-039")
@pytest.mark.parametrize(("tool", "arguments"), OUTSIDE_THE_SCHEMA[:4])
def test_create_arguments_of_the_wrong_shape_are_refused_before_the_queue(
    host, agent, tool, arguments
):
    seen = len(flushes_of(host, agent.session_id))
    result = agent.call_tool(tool, arguments)
    assert _refused_by_the_catalog(result) or rejection_codes(result.value), readme(
        "SCH-031, SCH-034, SCH-039", f"{arguments!r} refused, by the catalog's argument schema "
        "or with a closed code", result)
    flushes = len(flushes_of(host, agent.session_id)) - seen
    assert flushes == 0, readme("SCH-034", "a shape failure answered before the queue, without "
                                "a flush; flushes", flushes)
    assert _change_count(agent) == 0, readme("SCH-034", "nothing appended",
                                             schedule_changes(agent.events()))


@pytest.mark.spec("SCH-031", "SCH-036")
@pytest.mark.parametrize("arguments", [{}, {"id": 1}], ids=["no-id", "number-id"])
def test_delete_arguments_of_the_wrong_shape_delete_nothing(agent, arguments):
    agent.call_tool("schedule_create", {"prompt": "Keep", "after_seconds": 600})
    result = agent.call_tool("schedule_delete", arguments)
    assert _refused_by_the_catalog(result) or rejection_codes(result.value), readme(
        "SCH-031, SCH-036", f"{arguments!r} refused, by the catalog's argument schema or with "
        "a closed code", result)
    assert _change_count(agent) == 1, readme("SCH-036", "no delete appended",
                                             schedule_changes(agent.events()))
    listed = agent.call_tool("schedule_list", {}).value
    assert len(listed) == 1, readme("SCH-036", "the record still listed", listed)


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


@pytest.mark.spec("SCH-032", "SCH-035", "SCH-060")
@VIEW_KEYS
def test_views_use_camel_case_record_fields(agent, arguments, keys):
    created = agent.call_tool("schedule_create", arguments).value
    (listed,) = agent.call_tool("schedule_list", {}).value
    stated = {"id", "scheduledAt", "state", "deliveryMode"} | (
        {"afterSeconds"} if "after_seconds" in arguments else set()) | (
        {"everySeconds"} if "every_seconds" in arguments else set())
    assert stated <= set(listed) and listed["id"] == created.get("id"), readme(
        "SCH-015, SCH-016, SCH-032, SCH-035", f"the listed record to have the fields "
        f"{sorted(stated)} and the id the create returned", (created, listed))
    odd = [key for key in [*created, *listed] if not CAMEL_CASE.fullmatch(key)]
    assert odd == [], readme("SCH-032", "camelCase fields in the create and list values "
                             "(not after_seconds or time_zone)", odd)
    assert mentions(listed, "x"), readme("SCH-015, SCH-035", "the listed record to hold its "
                                         "prompt", listed)


@pytest.mark.compat("SCH-VIEW-FIELDS")
@pytest.mark.spec("SCH-032", "SCH-060")
@VIEW_KEYS
def test_views_are_the_official_fields(agent, arguments, keys):
    created = agent.call_tool("schedule_create", arguments).value
    (listed,) = agent.call_tool("schedule_list", {}).value
    assert (sorted(created), listed) == (sorted(keys), created), pinned(
        "SCH-VIEW-FIELDS", f"the view fields {sorted(keys)}, the same in create and list",
        (created, listed))


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
        "SCH-015, SCH-032", "the create value to hold a stable ScheduleId string", value)
    assert mentions(value, "Stand up") and not mentions(value, " Stand up "), readme(
        "SCH-015, SCH-032", "the create value to hold the trimmed prompt", value)
    observed = (value.get("afterSeconds"), instant_ms(value.get("scheduledAt")))
    assert observed == (90, START_MS + 90_000), readme(
        "SCH-016, SCH-032", "afterSeconds 90 and scheduledAt 2026-01-01T00:01:30Z (an RFC 3339 "
        "UTC instant)", value)
    assert json.loads(result.text) == value, readme(
        "SCH-041", "the rendered content to be JSON of the canonical value", result.text)
    (listed,) = agent.call_tool("schedule_list", {}).value
    observed = (listed.get("id"), listed.get("state"), listed.get("deliveryMode"))
    assert observed == (schedule_id, "scheduled", "session-local"), readme(
        "SCH-035", "the record listed with state scheduled and deliveryMode session-local",
        listed)


@pytest.mark.compat("SCH-RENDERED-JSON", "SCH-VALUE-KEY-ORDER", "SCH-VIEW-FIELDS",
                    "SCH-INSTANT-TEXT")
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
    ids = [view.get("id") for view in json.loads(listed.text)]
    assert json.loads(listed.text) == listed.value and ids == [
        created.value["id"], every.value["id"]], readme(
        "SCH-035, SCH-041", "the list rendered as JSON of its value, both records in creation "
        "order", listed.text)


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
    pytest.param({"prompt": "  "}, SELECTOR, id="selector-before-prompt"),
    pytest.param({"prompt": "", "after_seconds": 60}, PROMPT, id="empty-prompt"),
    # The README says only "trimmed": any trim removes ASCII space, tab and newline.
    pytest.param({"prompt": " \t\n ", "every_seconds": 300}, PROMPT, id="whitespace-prompt"),
    # That JavaScript's trim also removes these is the official build's choice.
    pytest.param({"prompt": " \u00a0\u2028\u3000\ufeff\t", "every_seconds": 300}, PROMPT,
                 id="js-whitespace-prompt", marks=pytest.mark.compat("SCH-TRIM-WHITESPACE")),
    pytest.param({"prompt": " ", "at": "garbage"}, PROMPT, id="prompt-before-at"),
    pytest.param({"prompt": "x", "after_seconds": 0}, AFTER_RULE, id="after-zero"),
    pytest.param({"prompt": "x", "after_seconds": -5}, AFTER_RULE, id="after-negative"),
    pytest.param({"prompt": "x", "after_seconds": 1.5}, AFTER_RULE, id="after-fraction"),
    pytest.param({"prompt": "x", "after_seconds": 1e300}, AFTER_RULE, id="after-huge"),
    pytest.param({"prompt": "x", "after_seconds": 9007199254740992}, AFTER_RULE,
                 id="after-unsafe"),
    # Below five minutes: the README rejects it, whatever the reason given.
    pytest.param({"prompt": "x", "every_seconds": 299.5}, EVERY_RULE, id="every-fraction"),
    # The README asks every_seconds for five minutes or more and states "safe integer"
    # of after_seconds only: refusing 300.5, and 2**60 or 1e300 before the queue (not
    # as out of range after it), is the official build's choice.
    pytest.param({"prompt": "x", "every_seconds": 300.5}, EVERY_RULE, id="every-fraction-300",
                 marks=pytest.mark.compat("SCH-CREATE-ARGUMENT-CHECKS")),
    pytest.param({"prompt": "x", "every_seconds": 2**60}, EVERY_RULE, id="every-unsafe",
                 marks=pytest.mark.compat("SCH-CREATE-ARGUMENT-CHECKS")),
    pytest.param({"prompt": "x", "every_seconds": 1e300}, EVERY_RULE, id="every-huge",
                 marks=pytest.mark.compat("SCH-CREATE-ARGUMENT-CHECKS")),
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
    assert rejection_codes(result.value), readme(
        "SCH-034, SCH-039", f"{arguments!r} rejected with a closed code", result.value)
    flushes = len(flushes_of(host, agent.session_id)) - seen
    assert flushes == 0, readme("SCH-034", "the shape failure answered before the queue, "
                                "without a flush; flushes", flushes)
    assert _change_count(agent) == 0, readme("SCH-034", "no schedule/change",
                                             schedule_changes(agent.events()))


@pytest.mark.compat("SCH-ERROR-MESSAGES", "SCH-ERROR-VALUE-SHAPE", "SCH-CODE-MAPPING",
                    "SCH-CREATE-ARGUMENT-CHECKS")
@pytest.mark.spec("SCH-034", "SCH-039")
@pytest.mark.parametrize(("arguments", "expected"), PRE_QUEUE)
def test_shape_failures_are_the_official_values(agent, arguments, expected):
    value = agent.call_tool("schedule_create", arguments).value
    observed = (value, list(value) if isinstance(value, dict) else None)
    assert observed == (expected, ["code", "message"]), pinned(
        "SCH-CODE-MAPPING, SCH-ERROR-MESSAGES", f"exactly {expected} (keys code, message)",
        value)


@pytest.mark.spec("SCH-034")
@pytest.mark.parametrize(("arguments", "expected"), PRE_QUEUE[::3])
def test_shape_failures_win_over_broken_persistence(host, agent, arguments, expected):
    host.faults.fail_flushes("rejected", count=None)
    codes = rejection_codes(agent.call_tool("schedule_create", arguments).value)
    assert codes and "persistence_uncertain" not in codes, readme(
        "SCH-034", f"{arguments!r} rejected as a shape failure before any flush (not "
        "persistence_uncertain), even with broken persistence", codes)


BEYOND_9999 = pytest.mark.parametrize(
    "arguments",
    [{"prompt": "x", "after_seconds": 9007199254740991},
     {"prompt": "x", "every_seconds": 1_000_000_000_000_000}],
)


@pytest.mark.spec("SCH-039")
@BEYOND_9999
def test_targets_beyond_year_9999_are_rejected(agent, arguments):
    value = agent.call_tool("schedule_create", arguments).value
    assert rejection_codes(value), readme(
        "SCH-015, SCH-039", "a target past year 9999 rejected with a closed code (scheduledAt "
        "has a four-digit year)", value)
    assert _change_count(agent) == 0, readme("SCH-015", "nothing appended",
                                             schedule_changes(agent.events()))


@pytest.mark.compat("SCH-ERROR-MESSAGES", "SCH-CODE-MAPPING")
@pytest.mark.spec("SCH-039")
@BEYOND_9999
def test_out_of_range_is_the_official_value(agent, arguments):
    value = agent.call_tool("schedule_create", arguments).value
    assert value == OUT_OF_RANGE, pinned("SCH-CODE-MAPPING, SCH-ERROR-MESSAGES",
                                         f"exactly {OUT_OF_RANGE}", value)


@pytest.mark.spec("SCH-034")
@pytest.mark.parametrize(
    "arguments",
    [{"prompt": "x", "after_seconds": 9007199254740991},
     {"prompt": "x", "every_seconds": 1_000_000_000_000_000}],
)
def test_range_checks_that_need_now_come_after_the_preflight(host, agent, arguments):
    host.faults.fail_flushes("falsy", count=None)
    value = agent.call_tool("schedule_create", arguments).value
    assert rejection_codes(value) == {"persistence_uncertain"}, readme(
        "SCH-012, SCH-034", "a check that needs now to run after the preflight, so a failed "
        "flush answers persistence_uncertain", value)


# -- the queue -------------------------------------------------------------------------


@pytest.mark.spec("SCH-033")
def test_management_waits_while_a_due_transaction_holds_the_queue(host, agent):
    agent.call_tool("schedule_create", {"prompt": "Due", "after_seconds": 60})
    host.faults.fail_flushes("hang", first=2, count=1)  # the dispatch barrier hangs
    host.advance(60)
    assert (_change_count(agent), len(reminder_events(agent.events()))) == (2, 1), readme(
        "SCH-048", "the due reminder queued and its dispatch appended",
        schedule_changes(agent.events()))
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
    first, second = results[1], results[3]
    assert len(first) == 1 and mentions(first[0], "a"), readme(
        "SCH-033, SCH-035", "the first list (second call) to see the first create only", results)
    assert len(second) == 2 and mentions(second[0], "a") and mentions(second[1], "b"), readme(
        "SCH-033, SCH-035", "the list (fourth call) to see the earlier calls' effects", results)


# -- list ----------------------------------------------------------------------------


LISTED_IN_CREATION_ORDER = (
    {"prompt": "late", "after_seconds": 900},
    {"prompt": "early", "at": "2026-01-01T00:01:00Z"},
    {"prompt": "gone", "after_seconds": 60},
    {"prompt": "tick", "every_seconds": 300},
)


def _list_after_deleting_the_third(agent: Any) -> tuple[list[str], Any]:
    ids = [agent.call_tool("schedule_create", arguments).value["id"]
           for arguments in LISTED_IN_CREATION_ORDER]
    agent.call_tool("schedule_delete", {"id": ids[2]})
    return ids, agent.call_tool("schedule_list", {}).value


@pytest.mark.spec("SCH-035")
def test_list_returns_active_records_in_creation_order(agent):
    ids, listed = _list_after_deleting_the_third(agent)
    observed = [
        (view.get("id"), instant_ms(view.get("scheduledAt")), view.get("state"),
         view.get("deliveryMode"), view.get("afterSeconds"), view.get("everySeconds"))
        for view in listed
    ]
    assert observed == [
        (ids[0], epoch_ms("2026-01-01T00:15:00Z"), "scheduled", "session-local", 900, None),
        (ids[1], epoch_ms("2026-01-01T00:01:00Z"), "scheduled", "session-local", None, None),
        (ids[3], epoch_ms("2026-01-01T00:05:00Z"), "scheduled", "session-local", None, 300),
    ], readme("SCH-035", "the active records (first, second, fourth; third deleted) in "
              "creation order, not target order, with their targets, state and deliveryMode",
              listed)
    prompts = [mentions(view, prompt)
               for view, prompt in zip(listed, ["late", "early", "tick"], strict=True)]
    assert prompts == [True, True, True], readme(
        "SCH-015, SCH-035", "each listed record to hold its prompt", listed)


@pytest.mark.compat("SCH-VIEW-FIELDS", "SCH-INSTANT-TEXT")
@pytest.mark.spec("SCH-035")
def test_list_returns_the_official_views(agent):
    ids, listed = _list_after_deleting_the_third(agent)
    expected = [
        {"id": ids[0], "kind": "after", "prompt": "late", "afterSeconds": 900,
         "scheduledAt": "2026-01-01T00:15:00.000Z", "state": "scheduled",
         "deliveryMode": "session-local"},
        {"id": ids[1], "kind": "at", "prompt": "early",
         "scheduledAt": "2026-01-01T00:01:00.000Z", "state": "scheduled",
         "deliveryMode": "session-local"},
        {"id": ids[3], "kind": "every", "prompt": "tick", "everySeconds": 300,
         "scheduledAt": "2026-01-01T00:05:00.000Z", "state": "scheduled",
         "deliveryMode": "session-local"},
    ]
    assert listed == expected, pinned("SCH-VIEW-FIELDS", f"exactly {expected}", listed)


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


@pytest.mark.spec("SCH-017", "SCH-036", "SCH-041")
@pytest.mark.dsh_probe(
    "delete-appends-one-delete",
    "Deleting an active record appends one delete change",
)
def test_delete_of_an_active_record_appends_one_delete(agent):
    creation = agent.call_tool("schedule_create", {"prompt": "Drop the milk", "after_seconds": 600})
    created = creation.value["id"]
    result = agent.call_tool("schedule_delete", {"id": created})
    assert result.value != _not_found(created) and not rejection_codes(result.value), readme(
        "SCH-036", "an active id deleted (neither not found nor a closed code)", result.value)
    assert json.loads(result.text) == result.value, readme(
        "SCH-041", "the rendered content to be JSON of the value", result.text)
    appended = changes_since(agent, 1)
    assert len(appended) == 1, readme("SCH-036", "exactly one change appended for an active id",
                                      appended)
    carried = value_scalars(appended[0])
    assert created in carried and "Drop the milk" not in carried and not instants_in(
        appended[0]), readme("SCH-017, SCH-036", "the delete change to carry the id and no "
                             "prompt or scheduledAt", appended[0])
    listed = agent.call_tool("schedule_list", {}).value
    assert listed == [], readme("SCH-036", "the deleted record gone from the list", listed)


#: Whitespace beyond ASCII space, tab and newline is JavaScript's trim set: the
#: README says "whitespace-padded" without naming one, so those cases are pinned.
JS_PADDING = pytest.mark.compat("SCH-TRIM-WHITESPACE")
PADDED_IDS = pytest.mark.parametrize(
    "template",
    ["", " ", " {id}", "{id} ", "\t{id}", "{id}\n",
     pytest.param("\u00a0{id}", marks=JS_PADDING), pytest.param("{id}\u3000", marks=JS_PADDING),
     pytest.param("\ufeff{id}", marks=JS_PADDING), pytest.param("{id}\u2028", marks=JS_PADDING)],
    ids=["empty", "space", "leading-space", "trailing-space", "tab", "newline", "nbsp",
         "ideographic-space", "bom", "line-separator"],
)


@pytest.mark.spec("SCH-036", "SCH-039")
@PADDED_IDS
@pytest.mark.dsh_probe(
    "padded-delete-id-rejected",
    "schedule_delete rejects an empty or padded id",
)
def test_delete_rejects_empty_or_padded_ids_before_the_queue(host, agent, template):
    created = agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 600}).value
    schedule_id = template.format(id=created["id"])
    host.faults.fail_flushes("falsy", count=None)
    seen = len(flushes_of(host, agent.session_id))
    value = agent.call_tool("schedule_delete", {"id": schedule_id}).value
    codes = rejection_codes(value)
    assert codes and not codes & {"persistence_uncertain", NOT_FOUND_CODE}, readme(
        "SCH-036, SCH-039", f"the id {schedule_id!r} rejected before the queue with a closed "
        "code (not persistence_uncertain or not found)", value)
    flushes = len(flushes_of(host, agent.session_id)) - seen
    assert flushes == 0, readme("SCH-036", "no flush for a rejected id", flushes)
    assert _change_count(agent) == 1, readme("SCH-036", "no delete appended",
                                             schedule_changes(agent.events()))


@pytest.mark.compat("SCH-ERROR-MESSAGES", "SCH-CODE-MAPPING")
@pytest.mark.spec("SCH-036", "SCH-039")
@pytest.mark.parametrize("schedule_id", ["", " schedule-1", "schedule-1\u2028"])
def test_a_rejected_delete_id_is_the_official_value(agent, schedule_id):
    value = agent.call_tool("schedule_delete", {"id": schedule_id}).value
    assert value == DELETE_ID, pinned("SCH-CODE-MAPPING, SCH-ERROR-MESSAGES",
                                      f"exactly {DELETE_ID}", value)


@pytest.mark.spec("SCH-036")
def test_unknown_deleted_and_dispatched_ids_are_not_found_and_append_nothing(host, agent):
    dispatched = agent.call_tool("schedule_create", {"prompt": "a", "after_seconds": 60})
    deleted = agent.call_tool("schedule_create", {"prompt": "b", "after_seconds": 600})
    first, second = dispatched.value["id"], deleted.value["id"]
    agent.call_tool("schedule_delete", {"id": second})
    host.advance(60)  # the first is dispatched
    before = schedule_changes(agent.events())
    assert len(before) == 4, readme(
        "SCH-034, SCH-036, SCH-049", "two creates, a delete and a dispatch appended; observed "
        "another count, so the terminal ids cannot be told apart", before)
    unknown = [candidate for candidate in ("never-issued", first.swapcase(), "1")
               if candidate not in (first, second)]
    for schedule_id in (first, second, *unknown):
        result = agent.call_tool("schedule_delete", {"id": schedule_id})
        assert result.value == _not_found(schedule_id), readme(
            "SCH-036", f"{{id, deleted: false, code: schedule_not_found}} for {schedule_id!r}",
            result.value)
    assert schedule_changes(agent.events()) == before, readme(
        "SCH-036", "no change appended for unknown or terminal ids",
        schedule_changes(agent.events()))


@pytest.mark.spec("SCH-036")
def test_not_found_is_answered_only_after_a_successful_preflight(host, agent):
    host.faults.fail_flushes("detached")
    value = agent.call_tool("schedule_delete", {"id": "schedule-9"}).value
    assert rejection_codes(value) == {"persistence_uncertain"}, readme(
        "SCH-012, SCH-036", "persistence_uncertain, not schedule_not_found, when the preflight "
        "fails", value)


# -- recovery through later preflights ------------------------------------------------


@pytest.mark.spec("SCH-037", "SCH-038")
def test_a_create_kept_after_a_barrier_failure_becomes_durable_at_the_next_preflight(
    host, agent
):
    host.faults.fail_flushes("rejected", first=2, count=1)
    value = agent.call_tool("schedule_create", {"prompt": "Kept", "after_seconds": 600}).value
    assert rejection_codes(value) == {"persistence_uncertain"}, readme(
        "SCH-012, SCH-013", "persistence_uncertain when the post-append barrier fails", value)
    listed = agent.call_tool("schedule_list", {}).value
    assert len(listed) == 1 and mentions(listed[0], "Kept"), readme(
        "SCH-037, SCH-038", "the retained create listed after the next preflight", listed)
    durable = schedule_changes(host.durable_events(agent.session_id))
    assert len(durable) == 1 and mentions(durable[0], "Kept"), readme(
        "SCH-038", "the next preflight to make the retained create durable", durable)
    host.advance(600)
    delivered = reminder_events(agent.events())
    assert len(delivered) == 1, readme("SCH-038", "the recovered reminder delivered once",
                                       delivered)


@pytest.mark.spec("SCH-037", "SCH-038")
def test_a_delete_kept_after_a_barrier_failure_is_honoured(host, agent):
    created = agent.call_tool("schedule_create", {"prompt": "Drop", "after_seconds": 600})
    host.faults.fail_flushes("falsy", first=2, count=1)
    value = agent.call_tool("schedule_delete", {"id": created.value["id"]}).value
    assert rejection_codes(value) == {"persistence_uncertain"}, readme(
        "SCH-012, SCH-013", "persistence_uncertain when the delete's barrier fails", value)
    listed = agent.call_tool("schedule_list", {}).value
    assert listed == [], readme("SCH-037, SCH-038", "the retained delete honoured", listed)
    host.advance(1200)
    assert reminder_events(agent.events()) == [], readme(
        "SCH-038", "no reminder for the deleted record", reminder_events(agent.events()))
    assert _change_count(agent) == 2, readme(
        "SCH-038", "no dispatch for the deleted record (only the create and the delete)",
        schedule_changes(agent.events()))


@pytest.mark.spec("SCH-037", "SCH-085")
def test_a_successful_management_preflight_makes_the_owner_recompute(host, agent):
    created = agent.call_tool("schedule_create", {"prompt": "Stranded", "after_seconds": 60})
    host.faults.fail_flushes("falsy")  # the owner's due preflight
    host.advance(60)
    assert _change_count(agent) == 1, readme(
        "SCH-012, SCH-046", "no dispatch when the due preflight fails",
        schedule_changes(agent.events()))
    host.advance(3600)  # no private retry timer
    assert _change_count(agent) == 1, readme(
        "SCH-038, SCH-085", "no private retry timer", schedule_changes(agent.events()))
    agent.call_tool("schedule_list", {})
    appended = changes_since(agent, 1)
    carried = [value_scalars(change) for change in appended]
    assert len(carried) == 1 and created.value["id"] in carried[0] and not instants_in(
        appended[0]), readme(
        "SCH-017, SCH-037, SCH-085", "a successful list preflight to make the owner recompute "
        "and append one dispatch carrying the id", appended)
    assert len(reminder_events(agent.events())) == 1, readme(
        "SCH-037, SCH-085", "the recovered reminder queued once", reminder_events(agent.events()))


# -- the closed error codes ------------------------------------------------------------


@pytest.mark.compat("SCH-ABORT-ANSWER")
@pytest.mark.spec("SCH-039")
@pytest.mark.parametrize("tool", ["schedule_create", "schedule_list", "schedule_delete"])
def test_an_aborted_call_is_an_internal_error_and_changes_nothing(agent, tool):
    arguments = {"schedule_create": {"prompt": "x", "after_seconds": 60},
                 "schedule_list": {}, "schedule_delete": {"id": "schedule-1"}}[tool]
    result = agent.call_tool(tool, arguments, aborted=True)
    assert result.is_error is False, pinned("SCH-ABORT-ANSWER", "a closed value, not a host "
                                            "error", result.error)
    assert rejection_codes(result.value) == {"internal_error"}, pinned(
        "SCH-ABORT-ANSWER", f"internal_error for an aborted {tool}", result.value)
    assert _change_count(agent) == 0, pinned("SCH-ABORT-ANSWER", "no change",
                                             schedule_changes(agent.events()))


@pytest.mark.spec("SCH-039", "SCH-040")
def test_a_rejected_create_append_is_a_closed_code_without_backend_details(host, agent):
    host.faults.fail_appends(event_type="schedule/change")
    result = agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 60})
    assert rejection_codes(result.value), readme(
        "SCH-039", "a closed code when the create append is rejected", result.value)
    assert "fault" not in result.text and "append" not in result.text, readme(
        "SCH-040", "a diagnostic that does not expose the backend exception", result.text)
    assert _change_count(agent) == 0, readme("SCH-039", "no change",
                                             schedule_changes(agent.events()))
    value = agent.call_tool("schedule_create", {"prompt": "y", "after_seconds": 60}).value
    listed = agent.call_tool("schedule_list", {}).value
    assert not rejection_codes(value) and len(listed) == 1 and mentions(listed[0], "y"), readme(
        "SCH-039", "the next create to succeed (the owner is not broken)", (value, listed))


@pytest.mark.spec("SCH-039", "SCH-040")
def test_a_rejected_delete_append_is_a_closed_code(host, agent):
    created = agent.call_tool("schedule_create", {"prompt": "x", "after_seconds": 600})
    host.faults.fail_appends(event_type="schedule/change")
    value = agent.call_tool("schedule_delete", {"id": created.value["id"]}).value
    codes = rejection_codes(value)
    assert codes and NOT_FOUND_CODE not in codes, readme(
        "SCH-039", "a closed code when the delete append is rejected", value)
    listed = agent.call_tool("schedule_list", {}).value
    assert len(listed) == 1, readme("SCH-036", "the record still active", listed)


REJECTED_CREATES = [
    {"prompt": "x"}, {"prompt": " ", "after_seconds": 1}, {"prompt": "x", "after_seconds": 0},
    {"prompt": "x", "at": {"date": "2026-01-02", "time": "00:00:00", "time_zone": "X/Y"}},
    {"prompt": "x", "at": "2020-01-01T00:00:00Z"},
    {"prompt": "x", "after_seconds": 9007199254740991}, {"prompt": "x", "every_seconds": 5},
]


def _twice_created(host: Any) -> list[dict[str, Any]]:
    """A log the implementation wrote, with its create event written twice: a reused id."""
    writer = host.create_agent()
    writer.call_tool("schedule_create", {"prompt": "Twice", "after_seconds": 600})
    events = [event for event in writer.events() if event["type"] == "schedule/change"]
    assert len(events) == 1, readme(
        "SCH-014, SCH-034", "a create to append one schedule/change event; observed another "
        "count, so no log with a reused id can be written", events)
    return [{**events[0], "seq": seq} for seq in range(2)]


@pytest.mark.spec("SCH-012", "SCH-019", "SCH-039", "SCH-040")
def test_every_error_value_uses_a_closed_code(host, agent):
    for arguments in REJECTED_CREATES:
        value = agent.call_tool("schedule_create", arguments).value
        assert len(rejection_codes(value)) == 1, readme(
            "SCH-039", f"{arguments!r} rejected with one of the closed codes", value)
    corrupt = host.create_agent(seed=_twice_created(host))
    value = corrupt.call_tool("schedule_list", {}).value
    assert not isinstance(value, list) and len(rejection_codes(value)) == 1, readme(
        "SCH-019, SCH-039", "a closed code, not a list, for a log whose create reuses an id",
        value)
    host.faults.fail_flushes("falsy")
    value = agent.call_tool("schedule_list", {}).value
    assert rejection_codes(value) == {"persistence_uncertain"}, readme(
        "SCH-012", "persistence_uncertain when the flush fails", value)


@pytest.mark.compat("SCH-CODE-MAPPING", "SCH-ABORT-ANSWER", "SCH-LOG-INTEROP",
                    "SCH-ERROR-VALUE-SHAPE")
@pytest.mark.spec("SCH-039")
def test_every_closed_code_is_reachable(host, agent):
    seen = {agent.call_tool("schedule_create", arguments).value["code"]
            for arguments in REJECTED_CREATES}
    host.faults.fail_flushes("falsy")
    seen.add(agent.call_tool("schedule_list", {}).value["code"])
    seen.add(agent.call_tool("schedule_list", {}, aborted=True).value["code"])
    corrupt = host.create_agent(seed=seed_log({"version": 1, "operation": "delete", "id": "x"}))
    seen.add(corrupt.call_tool("schedule_list", {}).value["code"])
    assert seen == ERROR_CODES, pinned("SCH-CODE-MAPPING", f"exactly the closed codes "
                                       f"{sorted(ERROR_CODES)}", sorted(seen))


@pytest.mark.compat("SCH-ERROR-MESSAGES", "SCH-ERROR-VALUE-SHAPE", "SCH-CODE-MAPPING",
                    "SCH-ABORT-ANSWER", "SCH-LOG-INTEROP")
@pytest.mark.spec("SCH-039", "SCH-040")
@pytest.mark.parametrize(
    "case",
    ["aborted-create", "aborted-list", "aborted-delete", "rejected-append", "corrupt",
     "rejected-delete-append", "create-preflight", "create-barrier", "list-preflight",
     "delete-preflight", "delete-barrier"],
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
    elif case == "rejected-delete-append":
        agent.call_tool("schedule_create", create)
        host.faults.fail_appends(event_type="schedule/change")
        value = agent.call_tool("schedule_delete", {"id": "schedule-1"}).value
        expected = INTERNAL
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
@given(case=invalid_create_arguments(readme_only=True))
def test_any_shape_failure_is_a_closed_value_without_a_flush(host, agent, case):
    arguments, _ = case
    seen = len(flushes_of(host, agent.session_id))
    result = agent.call_tool("schedule_create", arguments)
    assert result.is_error is False, readme("SCH-039", "a closed value, not a host error",
                                            result.error)
    assert rejection_codes(result.value), readme(
        "SCH-034, SCH-039", f"{arguments!r} rejected with a closed code", result.value)
    flushes = len(flushes_of(host, agent.session_id)) - seen
    assert flushes == 0, readme("SCH-034", "no flush for a shape failure", flushes)


@pytest.mark.compat("SCH-ERROR-MESSAGES", "SCH-CREATE-ARGUMENT-CHECKS", "SCH-CODE-MAPPING")
@pytest.mark.spec("SCH-034", "SCH-039")
@REUSE_AGENT
@given(case=invalid_create_arguments())
def test_any_shape_failure_is_the_official_value(agent, case):
    arguments, expected = case
    value = agent.call_tool("schedule_create", arguments).value
    assert value == expected, pinned("SCH-CODE-MAPPING, SCH-ERROR-MESSAGES",
                                     f"exactly {expected}", value)


@pytest.mark.spec("SCH-015", "SCH-032", "SCH-034", "SCH-035")
@REUSE_AGENT
@given(arguments=create_arguments(now_ms=START_MS, padding=ANY_TRIM))
# Known minimal failing examples (docs/reproducibility.md): the shortest
# interval the README allows, once answered frequency_too_high (tests/mutants).
@example(arguments={"prompt": "p", "every_seconds": 300})
def test_any_valid_create_stores_the_trimmed_prompt_under_a_fresh_id(agent, arguments):
    before = agent.call_tool("schedule_list", {}).value
    count = _change_count(agent)
    value = agent.call_tool("schedule_create", arguments).value
    prompt = js_trim(arguments["prompt"])
    assert not rejection_codes(value) and mentions(value, prompt), readme(
        "SCH-015, SCH-032", f"the create accepted with the trimmed prompt {prompt!r}", value)
    assert value["id"] not in {view["id"] for view in before}, readme(
        "SCH-034", "a never-reused id", (value, before))
    listed = agent.call_tool("schedule_list", {}).value
    view = next((view for view in listed if view["id"] == value["id"]), None)
    assert view is not None and (view["state"], view["deliveryMode"]) == (
        "scheduled", "session-local"), readme(
        "SCH-035", "the new record listed with state scheduled and deliveryMode session-local",
        listed)
    appended = changes_since(agent, count)
    target = instant_ms(value.get("scheduledAt"))
    assert len(appended) == 1 and mentions(appended[0], value["id"]) and mentions(
        appended[0], prompt) and target in instants_in(appended[0]), readme(
        "SCH-015, SCH-034", "one create change holding the id, the trimmed prompt and the "
        "scheduledAt the value shows", (value, appended))

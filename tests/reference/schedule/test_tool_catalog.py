"""The tool catalog as data: argument schemas let Schedule errors through; outputs are closed."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from dsh_reference.schedule.core import ERROR_CODES, tool_definitions


def definition(name):
    (found,) = [tool for tool in tool_definitions() if tool.name == name]
    return found


def accepts(schema, value):
    return Draft202012Validator(schema).is_valid(value)


def walk(schema):
    yield schema
    for value in schema.values():
        if isinstance(value, dict):
            yield from walk(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    yield from walk(item)


def test_tools_come_in_registration_order():
    assert [tool.name for tool in tool_definitions()] == [
        "schedule_create",
        "schedule_list",
        "schedule_delete",
    ]


@pytest.mark.parametrize("tool", tool_definitions(), ids=lambda tool: tool.name)
def test_every_schema_is_valid_json_schema(tool):
    Draft202012Validator.check_schema(tool.parameters)
    Draft202012Validator.check_schema(tool.output_schema)


@pytest.mark.parametrize(
    ("name", "phrases"),
    [
        (
            "schedule_create",
            ["after_seconds", "at", "every_seconds", "300", "exactly one", "session", "overdue"],
        ),
        ("schedule_list", ["active", "id", "UTC", "scheduled", "overdue", "session-local"]),
        ("schedule_delete", ["exact id", "schedule_create", "schedule_list", "deleted: false"]),
    ],
)
def test_descriptions_state_the_tool_contract(name, phrases):
    description = definition(name).description
    for phrase in phrases:
        assert phrase in description


@pytest.mark.parametrize(
    "arguments",
    [
        {"prompt": "p", "at": None},
        {"prompt": "p", "at": 5},
        {"prompt": "p", "at": []},
        {"prompt": "p", "at": True},
        {"prompt": "p", "at": {"date": "2026-01-02", "time": "09:30:00"}},
        {"prompt": "p", "at": {"date": 1, "time": None, "time_zone": 2, "extra": 3}},
        {"prompt": "p", "at": "2026-01-02T09:30:00Z"},
        {"prompt": "p", "bogus": 1},
        {"prompt": "p", "after_seconds": 1.5, "every_seconds": -1},
        {"prompt": ""},
    ],
)
def test_create_arguments_the_plugin_must_judge_pass_the_host_schema(arguments):
    assert accepts(definition("schedule_create").parameters, arguments)


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"after_seconds": 60},
        {"prompt": 5, "after_seconds": 60},
        {"prompt": "p", "after_seconds": "60"},
        {"prompt": "p", "every_seconds": True},
        "not an object",
    ],
)
def test_create_arguments_of_the_wrong_json_type_fail_the_host_schema(arguments):
    assert not accepts(definition("schedule_create").parameters, arguments)


def test_list_accepts_any_object():
    assert accepts(definition("schedule_list").parameters, {"extra": [1, 2]})


@pytest.mark.parametrize(
    ("arguments", "valid"), [({"id": "x", "extra": 1}, True), ({}, False), ({"id": 1}, False)]
)
def test_delete_requires_a_string_id_and_ignores_extra_keys(arguments, valid):
    assert accepts(definition("schedule_delete").parameters, arguments) is valid


@pytest.mark.parametrize("tool", tool_definitions(), ids=lambda tool: tool.name)
def test_every_output_object_is_closed(tool):
    objects = [node for node in walk(tool.output_schema) if node.get("type") == "object"]
    assert objects
    assert all(node["additionalProperties"] is False for node in objects)


VIEW = {
    "id": "schedule-1",
    "kind": "after",
    "prompt": "p",
    "afterSeconds": 90,
    "scheduledAt": "2026-01-01T00:01:30.000Z",
    "state": "scheduled",
    "deliveryMode": "session-local",
}
AT_VIEW = {
    "id": "schedule-2",
    "kind": "at",
    "prompt": "p",
    "scheduledAt": "2026-01-01T00:01:30.000Z",
    "state": "overdue",
    "deliveryMode": "session-local",
}
EVERY_VIEW = {**AT_VIEW, "kind": "every", "everySeconds": 300}
PERSISTENCE = {"code": "persistence_uncertain", "message": "m", "operation": "create"}
ERRORS = [{"code": code, "message": "m"} for code in ERROR_CODES if code != "persistence_uncertain"]


@pytest.mark.parametrize(
    ("name", "value", "valid"),
    [
        ("schedule_create", VIEW, True),
        ("schedule_create", AT_VIEW, True),
        ("schedule_create", EVERY_VIEW, True),
        ("schedule_create", PERSISTENCE, True),
        ("schedule_create", {**PERSISTENCE, "id": "schedule-1"}, True),
        ("schedule_create", {**VIEW, "extra": 1}, False),
        ("schedule_create", {**VIEW, "afterSeconds": 1.5}, False),
        ("schedule_create", {**VIEW, "state": "done"}, False),
        ("schedule_create", {**VIEW, "deliveryMode": "push"}, False),
        ("schedule_create", {**AT_VIEW, "afterSeconds": 90}, False),
        ("schedule_create", {"code": "unknown", "message": "m"}, False),
        ("schedule_create", {"code": "not_future"}, False),
        ("schedule_create", {**PERSISTENCE, "operation": "update"}, False),
        ("schedule_create", {"code": "schedule_not_found", "message": "m"}, False),
        ("schedule_list", [], True),
        ("schedule_list", [VIEW, AT_VIEW, EVERY_VIEW], True),
        ("schedule_list", {**PERSISTENCE, "operation": "list"}, True),
        ("schedule_list", VIEW, False),
        ("schedule_list", [{**VIEW, "extra": 1}], False),
        ("schedule_delete", {"id": "schedule-1", "deleted": True}, True),
        ("schedule_delete", {"id": "x", "deleted": False, "code": "schedule_not_found"}, True),
        ("schedule_delete", {**PERSISTENCE, "operation": "delete", "id": "x"}, True),
        ("schedule_delete", {"id": "x", "deleted": False}, False),
        ("schedule_delete", {"id": "x", "deleted": True, "code": "schedule_not_found"}, False),
    ],
)
def test_output_schemas_accept_exactly_the_documented_values(name, value, valid):
    assert accepts(definition(name).output_schema, value) is valid


@pytest.mark.parametrize("name", ["schedule_create", "schedule_list", "schedule_delete"])
@pytest.mark.parametrize("error", ERRORS, ids=lambda error: error["code"])
def test_every_tool_may_return_every_basic_error(name, error):
    assert accepts(definition(name).output_schema, error)


def test_the_shared_catalog_cannot_be_changed_by_one_caller() -> None:
    """The catalog is built once and shared: a caller that tries to change a
    schema is refused, so the next agent still registers the same tools."""
    first = tool_definitions()
    with pytest.raises(TypeError):
        first[0].parameters["properties"]["prompt"] = {}  # type: ignore[index]
    with pytest.raises(TypeError):
        first[0].parameters["properties"].clear()
    with pytest.raises(TypeError):
        first[0].parameters["required"].append("x")  # type: ignore[union-attr]
    assert tool_definitions() == first

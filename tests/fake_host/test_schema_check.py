"""The host's compiled schema check gives ``jsonschema``'s verdict.

Tool arguments and values are validated by a check compiled once per schema
(pytest_dsh.fake_host.schema_check); ``jsonschema`` is asked only for the messages of an
invalid value. These tests pin the detail that makes the speed-up safe: on
every schema of the fast dialect and every plain JSON value, the compiled check
and ``Draft202012Validator.is_valid`` agree (host contract: "the host
validates arguments against parameters ... the returned value is validated
too"). A wrong fast check would accept what the host must refuse, so the
differential runs both ways, on generated schemas and on the plugins' own.
"""

from __future__ import annotations

import math
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dsh_reference.schedule.core.tool_catalog import tool_definitions
from pytest_dsh import FakeHost
from pytest_dsh.contract import ToolDefinition, hookimpl
from pytest_dsh.contract.frozen_json import freeze
from pytest_dsh.fake_host.schema_check import Undecided, compile_check
from pytest_dsh.fake_host.tools import AbortSignal

NAMES = ["a", "b", "id", "kind"]
TYPES = ["object", "array", "string", "integer", "number", "boolean", "null"]

finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-4, max_value=4)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([1.0, -0.0, 2.5, 0.0, 3.0, 2**53 + 0.0])
    | finite
    | st.sampled_from(["", "a", "b", "ab", "id", "after"])
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(NAMES), inner,
                                                                max_size=3),
    max_leaves=8,
)
# What a model may send: plain JSON plus NaN and the infinities (the host lets
# those through to the schema).
instances = st.recursive(
    scalars | st.sampled_from([math.nan, math.inf, -math.inf]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(NAMES), inner,
                                                                max_size=3),
    max_leaves=8,
)

counts = st.integers(0, 3)
bounds = st.integers(-2, 3) | finite


def _schema(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    keywords = {
        "type": st.sampled_from(TYPES) | st.lists(st.sampled_from(TYPES), min_size=1,
                                                  max_size=3, unique=True),
        "const": json_values,
        "enum": st.lists(json_values, min_size=1, max_size=3),
        "properties": st.dictionaries(st.sampled_from(NAMES), children, max_size=3),
        "required": st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
        "additionalProperties": children,
        "items": children,
        "oneOf": st.lists(children, min_size=1, max_size=3),
        "anyOf": st.lists(children, min_size=1, max_size=3),
        "allOf": st.lists(children, min_size=1, max_size=3),
        "not": children,
        "minimum": bounds,
        "maximum": bounds,
        "exclusiveMinimum": bounds,
        "exclusiveMaximum": bounds,
        "minLength": counts,
        "maxLength": counts,
        "pattern": st.sampled_from(["^a", "b$", "a|b", "", "^$"]),
        "minItems": counts,
        "maxItems": counts,
        "minProperties": counts,
        "maxProperties": counts,
        "description": st.just("annotations change nothing"),
        "format": st.sampled_from(["date-time", "email"]),
    }
    return st.booleans() | st.fixed_dictionaries({}, optional=keywords)


schemas = st.recursive(st.booleans() | st.just({}), _schema, max_leaves=6)


def _agree(schema: Any, value: Any) -> None:
    jsonschema.Draft202012Validator.check_schema(schema)
    check = compile_check(schema)
    assert check is not None, "every keyword drawn belongs to the fast dialect"
    expected = jsonschema.Draft202012Validator(schema).is_valid(value)
    assert check(value) is expected


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(schema=schemas, value=instances)
@example(schema={"type": "integer"}, value=1.0)
@example(schema={"type": "integer"}, value=True)
@example(schema={"type": "number"}, value=False)
@example(schema={"const": 1}, value=True)
@example(schema={"const": 1}, value=1.0)
@example(schema={"const": [1]}, value=[True])
@example(schema={"enum": [False]}, value=0)
@example(schema={"const": {"a": 1}}, value={"a": 1.0})
@example(schema={"minimum": 0}, value=math.nan)
@example(schema={"oneOf": [{}, True]}, value=None)
@example(schema={"properties": {"a": False}}, value={"b": 1})
@example(schema={"additionalProperties": {"type": "string"}, "properties": {"a": {}}},
         value={"a": 1, "b": "x"})
def test_generated_schemas_agree_with_jsonschema(schema: Any, value: Any) -> None:
    _agree(schema, value)


@given(schema=schemas, value=json_values)
@settings(max_examples=300, deadline=None)
def test_frozen_values_are_judged_like_plain_ones(schema: Any, value: Any) -> None:
    # A plugin may return pieces of the (read-only) log as its value.
    check = compile_check(schema)
    assert check is not None
    assert check(freeze(value)) is jsonschema.Draft202012Validator(schema).is_valid(value)


def _vocabulary(schema: Any, names: set[str], constants: list[Any]) -> None:
    if isinstance(schema, dict):
        for key, sub in schema.items():
            if key == "properties":
                names.update(sub)
                for child in sub.values():
                    _vocabulary(child, names, constants)
            elif key == "required":
                names.update(sub)
            elif key == "const":
                constants.append(sub)
            elif key == "enum":
                constants.extend(sub)
            else:
                _vocabulary(sub, names, constants)
    elif isinstance(schema, list):
        for sub in schema:
            _vocabulary(sub, names, constants)


def _near(schema: Any) -> st.SearchStrategy[Any]:
    """Values built from the schema's own names and constants, so that many
    of them are valid or invalid by one detail."""
    names: set[str] = set()
    constants: list[Any] = []
    _vocabulary(schema, names, constants)
    leaves = scalars | st.sampled_from(constants or [None]) | st.sampled_from(
        ["2026-01-01T00:00:00.000Z", "schedule-1", "scheduled", "overdue"])
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(sorted(names) or NAMES), inner, min_size=1,
                                             max_size=8),
        max_leaves=12,
    )


PLUGIN_SCHEMAS = {
    f"{tool.name} {part}": schema
    for tool in tool_definitions()
    for part, schema in (("parameters", tool.parameters), ("output", tool.output_schema))
}


@pytest.mark.parametrize("name", sorted(PLUGIN_SCHEMAS))
def test_the_plugins_schemas_compile_to_the_fast_check(name: str) -> None:
    assert compile_check(PLUGIN_SCHEMAS[name]) is not None


@pytest.mark.parametrize("name", sorted(PLUGIN_SCHEMAS))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_plugins_schemas_agree_with_jsonschema(name: str, data: st.DataObject) -> None:
    schema = PLUGIN_SCHEMAS[name]
    _agree(schema, data.draw(_near(schema)))


def test_a_valid_view_and_an_error_value_pass_and_a_wrong_one_fails() -> None:
    # Not only random agreement: the checks accept the plugin's real shapes.
    check = compile_check(PLUGIN_SCHEMAS["schedule_create output"])
    assert check is not None
    view = {"id": "schedule-1", "kind": "after", "prompt": "p", "afterSeconds": 60,
            "scheduledAt": "2026-01-01T00:01:00.000Z", "state": "scheduled",
            "deliveryMode": "session-local"}
    assert check(view) is True
    assert check({"code": "invalid_rule", "message": "m"}) is True
    assert check({**view, "state": "done"}) is False
    assert check({**view, "extra": 1}) is False


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#/$defs/x", "$defs": {"x": {}}},
        {"patternProperties": {"^a": {}}},
        {"prefixItems": [{}]},
        {"properties": {"a": {"unevaluatedProperties": False}}},
        {"multipleOf": 2},
        {"if": {}, "then": {}},
        {"$schema": "https://json-schema.org/draft/2020-12/schema"},
    ],
)
def test_schemas_outside_the_fast_dialect_are_left_to_jsonschema(schema: dict[str, Any]) -> None:
    assert compile_check(schema) is None


@pytest.mark.parametrize("value", [(1,), {"a": (1,)}, b"x", 1 + 2j])
def test_values_outside_plain_json_are_undecided(value: Any) -> None:
    schema = {"type": ["array", "object", "number"], "properties": {"a": {"type": "array"}}}
    check = compile_check(schema)
    assert check is not None
    with pytest.raises(Undecided):
        check(value)


class _TuplePlugin:
    """A tool whose value is a tuple: no JSON type, so jsonschema must decide."""

    @hookimpl
    async def dsh_agent_created(self, agent):
        async def tuple_value(args, call):
            return ("a",)

        agent.tools.register(ToolDefinition(
            name="tuple", description="returns a tuple",
            parameters={"type": "object"}, handler=tuple_value,
            output_schema={"type": "array"}, render=lambda value: "tuple"))


class _TupleFactory:
    name = "tuple"
    requires: frozenset[str] = frozenset()

    def load(self, services, config):
        return _TuplePlugin()


def test_an_undecided_value_gets_jsonschemas_verdict_and_message() -> None:
    host = FakeHost({"tuple": _TupleFactory()})
    try:
        host.load_plugin("tuple")
        agent = host.create_agent()
        outcome = host.run_to_completion(agent.execute_tool("tuple", {}, "t-1", AbortSignal()))
        assert outcome.is_error
        assert outcome.error == (
            "tool 'tuple' returned a value outside its output schema: "
            "(root): ('a',) is not of type 'array'"
        )
    finally:
        host.close()


def _tagged(name: str, const: str, extra: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": [name, *extra], "additionalProperties": False,
            "properties": {name: {"const": const}, **extra}}


tagged_branches = st.lists(
    st.builds(_tagged, st.sampled_from(["kind", "code"]), st.sampled_from(["a", "b", "ab"]),
              st.dictionaries(st.sampled_from(["id", "b"]), st.just({"type": "string"}),
                              max_size=1))
    | st.just({}) | st.just({"type": "string"}),
    min_size=1, max_size=4,
)
tagged_values = st.dictionaries(
    st.sampled_from(["kind", "code", "id", "b"]),
    st.sampled_from(["a", "b", "ab", 1, 1.0, True, None, ["a"], {"a": "a"}]),
    max_size=3,
) | scalars


@settings(max_examples=300, deadline=None)
@given(branches=tagged_branches, combinator=st.sampled_from(["oneOf", "anyOf"]),
       value=tagged_values)
@example(branches=[_tagged("kind", "a", {}), _tagged("kind", "a", {})], combinator="oneOf",
         value={"kind": "a"})
@example(branches=[_tagged("kind", "a", {}), {}], combinator="oneOf", value={"kind": 1})
def test_branches_tagged_by_a_constant_agree_with_jsonschema(
        branches: list[Any], combinator: str, value: Any) -> None:
    # oneOf/anyOf skip a branch whose tag property the value lacks or holds
    # another string: the verdict must stay jsonschema's, frozen values too.
    schema = {combinator: branches}
    _agree(schema, value)
    check = compile_check(schema)
    assert check is not None
    assert check(freeze(value)) is jsonschema.Draft202012Validator(schema).is_valid(value)

"""A fast validity check for the JSON Schemas that tools declare.

The host validates every tool call's arguments and, when declared, its value
against JSON Schema (draft 2020-12). ``jsonschema`` does that faithfully but
walks the schema anew on every call (and builds an error object for every
failed ``oneOf`` branch), which made validation the largest cost of a tool call.

:func:`compile_check` turns a schema, once, into a closure that answers
"valid?" for the common part of the dialect:

    type, properties, required, additionalProperties (boolean or schema),
    items (without prefixItems), const, enum, oneOf, anyOf, allOf, not,
    minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength,
    maxLength, pattern, minItems, maxItems, minProperties, maxProperties,
    boolean schemas, and the annotations (description, title, $comment,
    default, examples, deprecated, readOnly, writeOnly, format).

Each keyword means exactly what ``jsonschema``'s Draft 2020-12 validator makes
of it (``format`` is an annotation there too: no format checker is given).
A schema using anything else gets no closure and ``jsonschema`` validates it.
A value holding anything but plain JSON types (dict, list, str, int, float,
bool, None, or the host's read-only dict and list) where the check looks is
*undecided* (:class:`Undecided`): ``jsonschema`` decides, as before. The host
also asks ``jsonschema`` for the messages whenever the closure says "invalid",
so messages never change and a disagreement could only cost time, never a
verdict; tests/fake_host/test_schema_check.py checks the two agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from pytest_dsh.contract.frozen_json import FrozenDict, FrozenEvent, FrozenList

__all__ = ["Check", "Undecided", "compile_check"]

Check = Callable[[Any], bool]


class Undecided(Exception):
    """The value holds a type the fast check does not judge."""


class _Unsupported(Exception):
    """The schema uses something outside the fast dialect."""


# Kinds start at 1, so that ``_KINDS.get(type(value)) or _kind(value)`` looks
# the type up inline and calls _kind (which raises Undecided) only on a miss.
_OBJECT, _ARRAY, _STRING, _INT, _FLOAT, _BOOL, _NULL = range(1, 8)

#: Exact type -> JSON kind. Subclasses are left out on purpose (an ``int``
#: subclass may compare or format differently): they are undecided.
_KINDS: Final[dict[type, int]] = {
    dict: _OBJECT,
    FrozenDict: _OBJECT,
    FrozenEvent: _OBJECT,
    list: _ARRAY,
    FrozenList: _ARRAY,
    str: _STRING,
    int: _INT,
    float: _FLOAT,
    bool: _BOOL,
    type(None): _NULL,
}

_ANNOTATIONS: Final = frozenset(
    {
        "description",
        "title",
        "$comment",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
    }
)
_KEYWORDS: Final = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "const",
        "enum",
        "oneOf",
        "anyOf",
        "allOf",
        "not",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
    }
)


def compile_check(schema: Any) -> Check | None:
    """A closure equivalent to ``Draft202012Validator(schema).is_valid`` on
    plain JSON values (it raises :class:`Undecided` on others), or None when
    ``schema`` uses a keyword outside the fast dialect. ``schema`` must
    already have passed ``Draft202012Validator.check_schema``."""
    try:
        return _compile(schema)
    except (_Unsupported, RecursionError, TypeError, re.error):
        return None


def _kind(value: Any) -> int:
    kind = _KINDS.get(type(value))
    if kind is None:
        raise Undecided(type(value).__name__)
    return kind


def _always(value: Any) -> bool:
    return True


def _never(value: Any) -> bool:
    return False


def _compile(schema: Any) -> Check:
    if schema is True:
        return _always
    if schema is False:
        return _never
    if not isinstance(schema, dict):  # a read-only (frozen) schema is a dict too
        raise _Unsupported
    if not schema.keys() <= _KEYWORDS | _ANNOTATIONS:
        raise _Unsupported
    checks: list[Check] = []
    if "type" in schema:
        checks.append(_type_check(schema["type"]))
    if "const" in schema:
        checks.append(_const_check(schema["const"]))
    if "enum" in schema:
        checks.append(_enum_check(list(schema["enum"])))
    object_check = _object_check(schema)
    if object_check is not None:
        checks.append(object_check)
    array_check = _array_check(schema)
    if array_check is not None:
        checks.append(array_check)
    string_check = _string_check(schema)
    if string_check is not None:
        checks.append(string_check)
    number_check = _number_check(schema)
    if number_check is not None:
        checks.append(number_check)
    checks.extend(_combinator_checks(schema))
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    every = tuple(checks)

    def all_of_keywords(value: Any) -> bool:
        # A plain loop: all() over a generator costs more on this hot path.
        for check in every:  # noqa: SIM110
            if not check(value):
                return False
        return True

    return all_of_keywords


# -- type, const, enum --------------------------------------------------------------

_TYPE_NAMES: Final[dict[str, frozenset[int]]] = {
    "object": frozenset({_OBJECT}),
    "array": frozenset({_ARRAY}),
    "string": frozenset({_STRING}),
    "boolean": frozenset({_BOOL}),
    "null": frozenset({_NULL}),
    "number": frozenset({_INT, _FLOAT}),
    "integer": frozenset({_INT}),  # and integral floats, below
}


def _type_check(types: Any) -> Check:
    names = [types] if isinstance(types, str) else list(types)
    if not all(isinstance(name, str) and name in _TYPE_NAMES for name in names):
        raise _Unsupported
    kinds: frozenset[int] = frozenset().union(*(_TYPE_NAMES[name] for name in names))
    integral_floats = "integer" in names and _FLOAT not in kinds

    def type_check(value: Any) -> bool:
        kind = _KINDS.get(type(value)) or _kind(value)
        if kind in kinds:
            return True
        # Draft 2020-12 counts 1.0 as an integer.
        return integral_floats and kind == _FLOAT and value.is_integer()

    return type_check


def _equal(one: Any, two: Any) -> bool:
    """``jsonschema._utils.equal`` on plain JSON values: ``True`` is not ``1``,
    ``1`` is ``1.0``, containers compare element by element."""
    if one is two:
        return True
    first, second = _kind(one), _kind(two)
    if first == _STRING or second == _STRING:
        return bool(one == two)
    if first == _ARRAY and second == _ARRAY:
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two, strict=True))
    if first == _OBJECT and second == _OBJECT:
        return len(one) == len(two) and all(
            key in two and _equal(value, two[key]) for key, value in one.items()
        )
    if first == _BOOL or second == _BOOL:
        return False  # distinct booleans, or a boolean against a number
    return bool(one == two)


def _const_check(const: Any) -> Check:
    def const_check(value: Any) -> bool:
        return _equal(value, const)

    if type(const) is not str:
        return const_check

    def string_const_check(value: Any) -> bool:
        # A string equals only the same string (_equal's first rule that applies).
        return value == const if type(value) is str else _equal(value, const)

    return string_const_check


def _enum_check(choices: list[Any]) -> Check:
    def enum_check(value: Any) -> bool:
        return any(_equal(choice, value) for choice in choices)

    strings = frozenset(choice for choice in choices if type(choice) is str)

    def enum_or_string_check(value: Any) -> bool:
        # A string is one of the choices exactly when it is one of the string choices.
        return value in strings if type(value) is str else enum_check(value)

    return enum_or_string_check


# -- objects ------------------------------------------------------------------------


def _object_check(schema: Mapping[str, Any]) -> Check | None:
    properties: dict[str, Check] = {
        name: _compile(sub) for name, sub in (schema.get("properties") or {}).items()
    }
    required = tuple(schema.get("required", ()))
    additional = schema.get("additionalProperties", True)
    extra_check: Check | None
    if additional is True:
        extra_check = None
    elif additional is False:
        extra_check = _never
    else:
        extra_check = _compile(additional)
    min_properties = schema.get("minProperties")
    max_properties = schema.get("maxProperties")
    if (
        not properties
        and not required
        and extra_check is None
        and min_properties is None
        and max_properties is None
    ):
        return None
    named = tuple(properties.items())

    def object_check(value: Any) -> bool:
        if (_KINDS.get(type(value)) or _kind(value)) != _OBJECT:
            return True
        for name in required:
            if name not in value:
                return False
        for name, check in named:
            if name in value and not check(value[name]):
                return False
        if extra_check is not None:
            for key in value:
                if key not in properties and not extra_check(value[key]):
                    return False
        if min_properties is not None and len(value) < min_properties:
            return False
        return not (max_properties is not None and len(value) > max_properties)

    return object_check


# -- arrays -------------------------------------------------------------------------


def _array_check(schema: Mapping[str, Any]) -> Check | None:
    items = schema.get("items", True)
    item_check = None if items is True else _compile(items)
    min_items = schema.get("minItems")
    max_items = schema.get("maxItems")
    if item_check is None and min_items is None and max_items is None:
        return None

    def array_check(value: Any) -> bool:
        if (_KINDS.get(type(value)) or _kind(value)) != _ARRAY:
            return True
        if min_items is not None and len(value) < min_items:
            return False
        if max_items is not None and len(value) > max_items:
            return False
        if item_check is not None:
            for item in value:
                if not item_check(item):
                    return False
        return True

    return array_check


# -- strings and numbers --------------------------------------------------------------


def _string_check(schema: Mapping[str, Any]) -> Check | None:
    min_length = schema.get("minLength")
    max_length = schema.get("maxLength")
    pattern = schema.get("pattern")
    if pattern is not None:
        re.compile(pattern)  # an invalid pattern is jsonschema's to report
    if min_length is None and max_length is None and pattern is None:
        return None

    def string_check(value: Any) -> bool:
        if (_KINDS.get(type(value)) or _kind(value)) != _STRING:
            return True
        if min_length is not None and len(value) < min_length:
            return False
        if max_length is not None and len(value) > max_length:
            return False
        # jsonschema calls re.search with the pattern text (re caches it).
        return pattern is None or re.search(pattern, value) is not None

    return string_check


def _number_check(schema: Mapping[str, Any]) -> Check | None:
    bounds = [
        (schema[name], name)
        for name in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
        if name in schema
    ]
    if not bounds:
        return None
    minimum = schema.get("minimum")
    maximum = schema.get("maximum")
    exclusive_minimum = schema.get("exclusiveMinimum")
    exclusive_maximum = schema.get("exclusiveMaximum")

    def number_check(value: Any) -> bool:
        if (_KINDS.get(type(value)) or _kind(value)) not in (_INT, _FLOAT):
            return True
        # The same comparisons as jsonschema, so NaN passes as it does there.
        if minimum is not None and value < minimum:
            return False
        if maximum is not None and value > maximum:
            return False
        if exclusive_minimum is not None and value <= exclusive_minimum:
            return False
        return not (exclusive_maximum is not None and value >= exclusive_maximum)

    return number_check


# -- combinators ----------------------------------------------------------------------


def _combinator_checks(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    if "allOf" in schema:
        all_of = tuple(_compile(sub) for sub in schema["allOf"])

        def all_of_check(value: Any) -> bool:
            return all(check(value) for check in all_of)

        checks.append(all_of_check)
    if "anyOf" in schema:
        any_of = _branch_selector(schema["anyOf"])

        def any_of_check(value: Any) -> bool:
            for check in any_of(value):  # noqa: SIM110 (a plain loop, as above)
                if check(value):
                    return True
            return False

        checks.append(any_of_check)
    if "oneOf" in schema:
        one_of = _branch_selector(schema["oneOf"])

        def one_of_check(value: Any) -> bool:
            matched = False
            for check in one_of(value):
                if check(value):
                    if matched:
                        return False
                    matched = True
            return matched

        checks.append(one_of_check)
    if "not" in schema:
        negated = _compile(schema["not"])

        def not_check(value: Any) -> bool:
            return not negated(value)

        checks.append(not_check)
    return checks


def _branches(schemas: Any) -> tuple[tuple[Check, str | None, str | None], ...]:
    """Each branch's check and, when it has one, its discriminator (below)."""
    return tuple((_compile(sub), *_discriminator(sub)) for sub in schemas)


def _branch_selector(schemas: Any) -> Callable[[Any], tuple[Check, ...]]:
    """The checks of the branches a value may pass, in schema order: every
    branch but those an object's tag rules out (:func:`_rejects`).

    When the tagged branches share one property name, the branches left for
    each tag value are listed once, so a value's tag picks them with one
    lookup instead of a test per branch."""
    branches = _branches(schemas)
    every = tuple(check for check, _, _ in branches)
    names = {name for _, name, _ in branches if name is not None}
    if not names:
        return lambda value: every
    if len(names) > 1:
        def in_order(value: Any) -> tuple[Check, ...]:
            if _KINDS.get(type(value)) != _OBJECT:
                return every
            return tuple(check for check, name, const in branches
                         if name is None or not _rejects(value, name, const))

        return in_order
    (tag,) = names
    untagged = tuple(check for check, name, _ in branches if name is None)
    by_const = {
        const: tuple(check for check, name, other in branches if name is None or other == const)
        for _, name, const in branches if const is not None
    }

    def by_tag(value: Any) -> tuple[Check, ...]:
        if _KINDS.get(type(value)) != _OBJECT:
            return every
        if tag not in value:
            return untagged
        found = value[tag]
        if type(found) is not str:
            return every  # only a string tag rules a branch out
        return by_const.get(found, untagged)

    return by_tag


def _discriminator(schema: Any) -> tuple[str | None, str | None]:
    """``(name, const)`` when the schema requires the property ``name`` and
    says its value is the string ``const``: an object without that property,
    or whose property is another string, fails the branch. A oneOf of tagged
    objects (a tool's values: kind, code) is then decided by looking at the
    tag of each branch, not at every keyword of every branch."""
    if not isinstance(schema, dict):
        return None, None
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return None, None
    for name in schema.get("required", ()):
        sub = properties.get(name)
        if isinstance(sub, dict) and type(sub.get("const")) is str:
            return name, sub["const"]
    return None, None


def _rejects(value: Any, name: str, const: str | None) -> bool:
    """Whether the object ``value`` certainly fails a branch tagged ``name: const``
    (a value of another type is left to the branch's own check)."""
    if name not in value:
        return True
    found = value[name]
    return type(found) is str and found != const

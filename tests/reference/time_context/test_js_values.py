"""JavaScript String() and JSON.stringify renderings used in config errors."""

from __future__ import annotations

import pytest

from dsh_reference.time_context.core import is_safe_integer, js_json_text, js_string


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (-1, "-1"),
        (0.5, "0.5"),
        (2**53, "9007199254740992"),
        (2**53 + 1, "9007199254740992"),
        (2**60, "1152921504606847000"),
        (10**400, "Infinity"),
        (-(10**400), "-Infinity"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
        (float("nan"), "NaN"),
        (-0.0, "0"),
        (1e21, "1e+21"),
        (1.5e-7, "1.5e-7"),
        (0.000001, "0.000001"),
        (123.0, "123"),
        (True, "true"),
        (False, "false"),
        (None, "null"),
        ("60000", "60000"),
        ([1, None, "a"], "1,,a"),
        ({"a": 1}, "[object Object]"),
    ],
)
def test_js_string_renders_like_ecmascript_string(value, expected):
    assert js_string(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Not/A_Real_Zone", '"Not/A_Real_Zone"'),
        ("", '""'),
        ('a"b\\c', '"a\\"b\\\\c"'),
        ("\n\x01", '"\\n\\u0001"'),
        ("caf\u00e9", '"caf\u00e9"'),
        ("\ud800", '"\\ud800"'),
        (5, "5"),
        (float("nan"), "null"),
        (None, "null"),
        ([1, "x"], '[1,"x"]'),
        ({"k": True}, '{"k":true}'),
    ],
)
def test_js_json_text_renders_like_json_stringify(value, expected):
    assert js_json_text(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, True),
        (2**53 - 1, True),
        (-(2**53 - 1), True),
        (2**53, False),
        (60000.0, True),
        (0.5, False),
        (float("inf"), False),
        (float("nan"), False),
        (True, False),
        ("1", False),
        (None, False),
    ],
)
def test_safe_integers_follow_number_is_safe_integer(value, expected):
    assert is_safe_integer(value) is expected

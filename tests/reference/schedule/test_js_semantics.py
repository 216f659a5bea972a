"""JavaScript trim, safe-integer and JSON.stringify semantics (notes §12)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_reference.schedule.core import is_safe_integer, js_trim, to_js_json

# -- js_trim ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  hello  ", "hello"),
        ("\ufeffx", "x"),
        ("x\ufeff", "x"),
        ("\t\n\x0b\x0c\r x", "x"),
        ("\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000x", "x"),
        ("\u0085x\u001c", "\u0085x\u001c"),
        ("\x1dx\x1e\x1f", "\x1dx\x1e\x1f"),
        ("\u200bx\u200b", "\u200bx\u200b"),
        (" a b ", "a b"),
        ("", ""),
        ("\u3000", ""),
    ],
)
def test_js_trim_strips_exactly_the_ecmascript_whitespace_set(text, expected):
    assert js_trim(text) == expected


# -- is_safe_integer ------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, True),
        (60, True),
        (60.0, True),
        (-5, True),
        (9007199254740991, True),
        (-9007199254740991, True),
        (9007199254740991.0, True),
        (9007199254740992, False),
        (9007199254740992.0, False),
        (60.5, False),
        (1e300, False),
        (math.inf, False),
        (math.nan, False),
        (True, False),
        (False, False),
        ("1", False),
        (None, False),
    ],
)
def test_is_safe_integer_follows_number_is_safe_integer(value, expected):
    assert is_safe_integer(value) is expected


# -- to_js_json: strings ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('schedule-"1"', '"schedule-\\"1\\""'),
        ('Say "hi"\n\u2028é😀\x07 </x>', '"Say \\"hi\\"\\n\u2028é😀\\u0007 </x>"'),
        ("\b\f\n\r\t", '"\\b\\f\\n\\r\\t"'),
        ("\x00\x01\x1f", '"\\u0000\\u0001\\u001f"'),
        ("\x0b", '"\\u000b"'),
        ("\x7f", '"\x7f"'),
        ("\\", '"\\\\"'),
        ("/", '"/"'),
        ("\u0085", '"\u0085"'),
        ("\ud800", '"\\ud800"'),
        ("a\udfffb", '"a\\udfffb"'),
        ("\udc00\ud800", '"\\udc00\\ud800"'),
        ("\ud83d\ude00", '"😀"'),
        ("😀", '"😀"'),
    ],
)
def test_to_js_json_escapes_strings_like_json_stringify(text, expected):
    assert to_js_json(text) == expected


# -- to_js_json: numbers ----------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "expected"),
    [
        (60, "60"),
        (60.0, "60"),
        (-0.0, "0"),
        (0.0, "0"),
        (-2.5, "-2.5"),
        (0.1, "0.1"),
        (123456789.125, "123456789.125"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1.2345e25, "1.2345e+25"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (-1.5e-7, "-1.5e-7"),
        (math.inf, "null"),
        (-math.inf, "null"),
        (math.nan, "null"),
        (9007199254740991, "9007199254740991"),
        (2**53, "9007199254740992"),
        (2**64, "18446744073709552000"),
        (10**400, "null"),
    ],
)
def test_to_js_json_formats_numbers_like_javascript(number, expected):
    assert to_js_json(number) == expected


# -- to_js_json: structures --------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        ([], "[]"),
        ({}, "{}"),
        ((1, "a"), '[1,"a"]'),
        ({"b": 1, "a": [True, None, "x"]}, '{"b":1,"a":[true,null,"x"]}'),
        ({"z": {"y": []}, "é": "ü"}, '{"z":{"y":[]},"é":"ü"}'),
    ],
)
def test_to_js_json_renders_compactly_in_insertion_order(value, expected):
    assert to_js_json(value) == expected


@pytest.mark.parametrize("value", [{1: "a"}, {1, 2}, b"bytes", object()])
def test_to_js_json_rejects_values_json_cannot_express(value):
    with pytest.raises(TypeError):
        to_js_json(value)


_JSON_WITHOUT_SURROGATES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53 - 1), max_value=2**53 - 1)
    | st.text(st.characters(exclude_categories=["Cs"])),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(st.characters(exclude_categories=["Cs"])), children, max_size=4)
    ),
    max_leaves=20,
)


@given(_JSON_WITHOUT_SURROGATES)
def test_to_js_json_matches_compact_json_dumps_without_surrogates_or_floats(value):
    assert to_js_json(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_to_js_json_numbers_round_trip_to_the_same_double(number):
    assert float(to_js_json(number)) == number


_TEXT_WITH_LONE_SURROGATES = st.lists(
    st.characters() | st.integers(0xD800, 0xDFFF).map(chr), max_size=12
).map("".join)


@given(_TEXT_WITH_LONE_SURROGATES)
def test_to_js_json_strings_parse_back_to_the_same_utf16_text(text):
    # JavaScript strings are UTF-16: an adjacent high/low pair *is* the astral character.
    as_utf16 = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    assert json.loads(to_js_json(text)) == as_utf16


def _escape_one_character_at_a_time(text: str) -> str:
    """The former character-by-character escape, kept as the oracle of the regex one."""
    short = {
        '"': '\\"',
        "\\": "\\\\",
        "\b": "\\b",
        "\f": "\\f",
        "\n": "\\n",
        "\r": "\\r",
        "\t": "\\t",
    }
    out = ['"']
    index = 0
    while index < len(text):
        char = text[index]
        code = ord(char)
        if char in short:
            out.append(short[char])
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        elif (
            0xD800 <= code <= 0xDBFF
            and index + 1 < len(text)
            and 0xDC00 <= ord(text[index + 1]) <= 0xDFFF
        ):
            low = ord(text[index + 1])
            out.append(chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)))
            index += 1
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
        index += 1
    out.append('"')
    return "".join(out)


# Weighted towards what is escaped: quotes, backslashes, C0 controls, surrogate halves.
_ESCAPE_PRONE_TEXT = st.lists(
    st.characters()
    | st.integers(0xD800, 0xDFFF).map(chr)
    | st.integers(0, 0x20).map(chr)
    | st.sampled_from(['"', "\\", "\x7f", "\u2028", "😀"]),
    max_size=40,
).map("".join)


@given(_ESCAPE_PRONE_TEXT | st.text())
def test_to_js_json_string_escape_equals_the_character_by_character_escape(text):
    # Pins the regex escape (a performance change) to the former implementation.
    literal = _escape_one_character_at_a_time(text)
    assert to_js_json(text) == literal
    assert to_js_json({text: [text]}) == "{" + literal + ":[" + literal + "]}"

"""The bridge channel's JSON text: what ``JSON.stringify`` writes, and reading
it back, at any depth.

Kit-internal: a scripted model call travels as the text a model sends, a
request too deep for ``json.dumps`` is still written, and a reply too deep for
``json.loads`` is still read (docs/reliability.md).
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_dsh.npm.bridge.json_text import _COMPACT, STRICT, _parse_iteratively, parse, stringify


def nested(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(depth - 1):
        node["a"] = node = {}
    return root


SHALLOW: Any = {"a": [1, 2.5, None, True, False, "é\"\n", {"b": []}, {}], "c": 10**30, "d": ()}


def test_a_shallow_value_is_written_as_json_dumps_writes_it_compactly():
    assert stringify(SHALLOW) == json.dumps(SHALLOW, separators=(",", ":"))


@given(value=st.recursive(
    st.none() | st.booleans() | st.integers() | st.text() | st.floats(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
))
def test_the_shared_encoders_write_and_refuse_as_json_dumps(value: Any) -> None:
    # The request line and a mirrored event, both with the options json.dumps is given.
    for encoder, options in ((STRICT, {}), (_COMPACT, {"separators": (",", ":")})):
        try:
            expected: str | type[Exception] = json.dumps(value, allow_nan=False, **options)
        except ValueError:
            expected = ValueError
        if expected is ValueError:
            with pytest.raises(ValueError):
                encoder.encode(value)
        else:
            assert encoder.encode(value) == expected


def test_the_strict_encoder_refuses_a_value_deeper_than_its_recursion_limit():
    # The channel catches this refusal and writes the value with stringify.
    with pytest.raises(RecursionError):
        STRICT.encode(nested(100_000))


def test_a_deep_value_is_written_with_no_recursion_limit():
    text = stringify({"prompt": nested(100_000), "after_seconds": 60})
    assert text.startswith('{"prompt":{"a":{"a":')
    assert text.endswith('{}' + "}" * 99_999 + ',"after_seconds":60}')


def test_the_deep_writer_agrees_with_json_dumps_where_both_can_write():
    # A non-finite float sends the value to the explicit-stack writer.
    with_nan = {**SHALLOW, "n": math.nan}
    assert stringify(with_nan) == json.dumps({**SHALLOW, "n": None}, separators=(",", ":"))


@pytest.mark.parametrize(
    ("value", "spelled"),
    [(math.nan, "NaN"), (math.inf, "Infinity"), (-math.inf, "-Infinity")],
)
def test_non_finite_floats_are_null_or_the_bridges_revivable_spelling(value, spelled):
    assert stringify([value]) == "[null]"  # as JSON.stringify writes them
    assert json.loads(stringify([value], revivable=True)) == [{"$number": spelled}]


def test_what_json_cannot_hold_is_refused():
    with pytest.raises(TypeError):
        stringify({"a": {1, 2}, "n": math.nan})
    with pytest.raises(TypeError):
        stringify({1: "x", "n": math.nan})


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@given(JSON_VALUES, st.sampled_from([None, 0, 2]), st.booleans())
def test_the_deep_reader_agrees_with_json_loads_where_both_can_read(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert _parse_iteratively(text) == json.loads(text)
    assert _parse_iteratively(f" \n{text}\t ") == json.loads(text)


def test_a_reply_deeper_than_json_loads_reads_is_read() -> None:
    text = stringify({"ok": True, "result": nested(100_000)})
    with pytest.raises(RecursionError):
        json.loads(text)
    value = parse(text.encode("utf-8"))
    depth, node = 0, value["result"]
    while node:
        depth, node = depth + 1, node["a"]
    assert depth == 99_999 and value["ok"] is True
    assert stringify(value) == text


def test_deep_arrays_and_every_scalar_are_read() -> None:
    text = "[" * 5_000 + '1,-2.5e3,"x\\u00e9",true,false,null,{},[],{"k":[NaN]}' + "]" * 5_000
    value = parse(text)
    for _ in range(4_999):
        value = value[0]
    assert value[:7] == [1, -2500.0, "xé", True, False, None, {}]
    assert value[7] == [] and math.isnan(value[8]["k"][0])


@pytest.mark.parametrize(
    "text",
    ["", "[", "[1,]", "[1 2]", '{"a"}', '{"a":1,}', "{1:2}", "tru", "[]x", '"open', "01"],
)
def test_text_json_loads_refuses_the_deep_reader_refuses_too(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        _parse_iteratively(text)

"""The bridge channel's JSON text: what ``JSON.stringify`` writes, at any depth.

Kit-internal: a scripted model call travels as the text a model sends, and a
request too deep for ``json.dumps`` is still written (docs/reliability.md).
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from pytest_dsh.npm.bridge.json_text import stringify


def nested(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(depth - 1):
        node["a"] = node = {}
    return root


SHALLOW: Any = {"a": [1, 2.5, None, True, False, "é\"\n", {"b": []}, {}], "c": 10**30, "d": ()}


def test_a_shallow_value_is_written_as_json_dumps_writes_it_compactly():
    assert stringify(SHALLOW) == json.dumps(SHALLOW, separators=(",", ":"))


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

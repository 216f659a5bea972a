"""The quick acceptance walk of tool arguments agrees with the full walk that
names the offending path (the quick one is a performance shortcut: the README
leaves the host's argument limits open; pytest_dsh/driving/json_limits.py pins them)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_dsh.driving.json_limits import (
    MAX_JSON_INT_BITS,
    _first_problem,
    _plainly_acceptable,
    json_value_problem,
)


class _Text(str):
    pass


class _Flag(int):
    pass


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([2**MAX_JSON_INT_BITS - 1, 2**MAX_JSON_INT_BITS, -(2**1500)])
    | st.floats(allow_nan=True)
    | st.text(max_size=3)
    | st.builds(_Text, st.text(max_size=3))
    | st.builds(_Flag, st.integers(0, 3))
    | st.sampled_from([b"x", {1}, object()])
)
_KEYS = st.text(max_size=3) | st.integers(0, 2) | st.builds(_Text, st.text(max_size=2))
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(_KEYS, inner, max_size=3)
    ),
    max_leaves=12,
)


@given(_VALUES, st.integers(0, 4))
def test_quick_walk_accepts_only_what_the_full_walk_accepts(value, max_depth):
    if _plainly_acceptable(value, max_depth):
        assert _first_problem(value, max_depth) is None
    assert json_value_problem(value, max_depth=max_depth) == _first_problem(value, max_depth)


@given(_VALUES, st.integers(0, 4))
def test_quick_walk_accepts_every_acceptable_value_of_plain_types(value, max_depth):
    def plain(item):
        if type(item) is dict:
            return all(type(k) is str and plain(v) for k, v in item.items())
        if type(item) in (list, tuple):
            return all(plain(v) for v in item)
        return type(item) in (str, int, float, bool, type(None))

    if plain(value) and _first_problem(value, max_depth) is None:
        assert _plainly_acceptable(value, max_depth)


def test_problems_still_name_their_path():
    assert json_value_problem({"a": [1, {"b": {1}}]}) == "a/1/b: set is not a JSON value"
    assert json_value_problem({"a": [[[]]]}, max_depth=2) == "a/0: nested deeper than 2 levels"
    assert json_value_problem({3: 1}) == "(root): object key int is not a string"

"""The fake host's copy of direct tool-call arguments is ``copy.deepcopy``'s
result, made faster for plain JSON (a performance change: the copy keeps a
plugin's edits to its arguments away from the caller's value, and back)."""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st

from pytest_dsh.driving.tool_outcomes import argument_error
from pytest_dsh.fake_host.driver import _copy_arguments, _copy_arguments_plain


class _Text(str):
    pass


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=3)
    | st.builds(_Text, st.text(max_size=3))
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(
            st.text(max_size=3) | st.builds(_Text, st.text(max_size=2)), inner, max_size=3
        )
    ),
    max_leaves=12,
)


def _shape(value, seen):
    """Types, values and which containers are the same object, in walk order."""
    if isinstance(value, dict | list | tuple):
        if id(value) in seen:
            return ("alias", seen[id(value)])
        seen[id(value)] = len(seen)
        items = value.items() if isinstance(value, dict) else enumerate(value)
        return (type(value), [(type(k), k, _shape(v, seen)) for k, v in items])
    return (type(value), value)


def _assert_fresh(original, copied):
    if isinstance(original, dict | list):
        assert copied is not original
        items = original.items() if isinstance(original, dict) else enumerate(original)
        for key, item in items:
            _assert_fresh(item, copied[key])


@given(_VALUES, st.data())
def test_argument_copy_equals_deepcopy_aliases_included(value, data):
    # Put one container in twice, as a caller may: both copies share one copy.
    shared = data.draw(st.lists(_SCALARS, max_size=2))
    arguments = {"a": value, "b": shared, "c": [shared, value]}
    copied = _copy_arguments(arguments)
    assert _shape(copied, {}) == _shape(copy.deepcopy(arguments), {})
    assert copied["b"] is copied["c"][0]
    _assert_fresh(arguments, copied)


def _plain(value) -> bool:
    """Built of plain dicts (string keys), lists and exact scalar types only."""
    if type(value) is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if type(value) is list:
        return all(_plain(v) for v in value)
    return type(value) in (str, int, float, bool, type(None))


@given(_VALUES)
def test_a_copy_is_called_plain_exactly_when_the_value_is_plain(value):
    # A plain copy has the original's types, keys and depth: the host's
    # argument check (argument_error) then need not run again on it.
    arguments = {"a": value, "b": [value]}
    copied, plain = _copy_arguments_plain(arguments)
    assert _shape(copied, {}) == _shape(copy.deepcopy(arguments), {})
    assert plain is _plain(arguments)
    if plain:
        assert argument_error(copied) == argument_error(arguments)

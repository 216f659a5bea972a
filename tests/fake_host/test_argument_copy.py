"""The fake host's copy of direct tool-call arguments is ``copy.deepcopy``'s
result, made faster for plain JSON (a performance change: the copy keeps a
plugin's edits to its arguments away from the caller's value, and back).

The one walk for plain arguments (``fake_host.plain_arguments``) answers
exactly what the three walks it replaces answer: ``argument_error`` accepts
the value, the copy is ``copy.deepcopy``'s, and ``lossless`` is
``losslessly_serializable``'s verdict; anything it declines goes to the three
walks, so the host's answers to a call do not move."""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st

from pytest_dsh.driving.json_limits import MAX_JSON_DEPTH, losslessly_serializable
from pytest_dsh.driving.tool_outcomes import argument_error
from pytest_dsh.fake_host.driver import _copy_arguments, _copy_arguments_plain
from pytest_dsh.fake_host.plain_arguments import plain_copy


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
class _Mapping(dict):
    pass


def _json_like(scalars, more=lambda inner: st.nothing()):
    """Nested lists, tuples and dicts of ``scalars``, and whatever ``more``
    builds of them."""
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.lists(inner, max_size=3).map(tuple)
            | st.dictionaries(
                st.text(max_size=3) | st.builds(_Text, st.text(max_size=2)), inner, max_size=3
            )
            | more(inner)
        ),
        max_leaves=12,
    )


_VALUES = _json_like(_SCALARS)
#: Also what only the host's separate checks may judge: NaN, the infinities
#: and -0.0, integers about as wide as a JSON number, dict subclasses, keys
#: that are not strings.
_WIDER_VALUES = _json_like(
    _SCALARS | st.floats() | st.integers(min_value=2**1020, max_value=2**1030),
    lambda inner: (
        st.dictionaries(st.text(max_size=3), inner, max_size=2).map(_Mapping)
        | st.dictionaries(st.integers(0, 3), inner, max_size=2)
    ),
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


@given(_WIDER_VALUES)
def test_the_one_walk_answers_what_the_three_walks_answer(value):
    arguments = {"a": value}
    walked = plain_copy(arguments)
    # Taken exactly when the value is plain and the host's check accepts it.
    accepted = argument_error(arguments) is None
    assert (walked is not None) == (_plain(arguments) and accepted), walked
    if walked is not None:
        copied, lossless = walked
        # Floats compare by identity here (the copy keeps them), so NaN and -0.0 count too.
        assert _shape(copied, {}) == _shape(copy.deepcopy(arguments), {})
        _assert_fresh(arguments, copied)
        assert lossless == losslessly_serializable(arguments)


def test_plain_json_takes_the_one_walk():
    arguments = {"prompt": "tick", "at": {"date": "2027-03-28", "time": "02:30"},
                 "n": [1, 2.5, None, True]}
    assert plain_copy(arguments) == (arguments, True)
    assert plain_copy({"x": [-0.0]}) == ({"x": [-0.0]}, False)
    assert plain_copy({"x": float("nan")})[1] is False  # type: ignore[index]


def test_what_the_three_walks_must_judge_is_declined():
    shared = [1]
    cyclic: list = []
    cyclic.append(cyclic)
    deep: list = []
    for _ in range(MAX_JSON_DEPTH):
        deep = [deep]
    for declined in (
        {"a": shared, "b": shared},  # kept shared by deepcopy
        cyclic,  # a cycle: too deep for the host
        deep,  # nested to the limit
        {1: "key"},  # not a string key
        {"a": (1, 2)},  # a tuple: no JSON array's type
        {"a": _Text("x")},  # a str subclass
        _Mapping(a=1),  # a dict subclass
        {"a": 2**1100},  # wider than a JSON number
    ):
        assert plain_copy(declined) is None, declined
    assert plain_copy(deep[0]) is not None  # one level less is plain

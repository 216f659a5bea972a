"""The one-walk path for a direct tool call's plain arguments
(``fake_host.plain_arguments``) answers exactly what the three walks it
replaces answer: ``argument_error`` accepts the value, the copy is
``copy.deepcopy``'s, and ``lossless`` is ``losslessly_serializable``'s
verdict. Anything it declines goes to the three walks (a performance change:
the host's answers to a call do not move)."""

from __future__ import annotations

import copy
import math

from hypothesis import given
from hypothesis import strategies as st

from pytest_dsh.driving.json_limits import MAX_JSON_DEPTH, losslessly_serializable
from pytest_dsh.driving.tool_outcomes import argument_error
from pytest_dsh.fake_host.plain_arguments import plain_copy


class _Text(str):
    pass


class _Mapping(dict):
    pass


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**1020, max_value=2**1030)  # about the widest JSON number
    | st.floats()  # NaN, the infinities and -0.0 included
    | st.text(max_size=3)
    | st.builds(_Text, st.text(max_size=3))
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=3), inner, max_size=3)
        | st.dictionaries(st.text(max_size=3), inner, max_size=2).map(_Mapping)
        | st.dictionaries(st.integers(0, 3), inner, max_size=2)
    ),
    max_leaves=12,
)


def _typed(value):
    """Every type and value, containers included, in walk order (floats by
    their bits, so that -0.0 and NaN compare as themselves)."""
    if isinstance(value, dict):
        return (type(value), [(type(k), k, _typed(v)) for k, v in value.items()])
    if isinstance(value, list | tuple):
        return (type(value), [_typed(v) for v in value])
    if isinstance(value, float):
        return (float, math.copysign(1.0, value), repr(value))
    return (type(value), value)


def _fresh(original, copied) -> bool:
    if isinstance(original, dict):
        return copied is not original and all(_fresh(v, copied[k]) for k, v in original.items())
    if isinstance(original, list):
        pairs = zip(original, copied, strict=True)
        return copied is not original and all(_fresh(v, c) for v, c in pairs)
    return True


def _plain(value, depth: int = 0) -> bool:
    """Built of exact dicts (string keys), lists and JSON scalars, an integer
    no wider than a JSON number, nested less deep than the host's limit."""
    if type(value) is dict:
        return depth < MAX_JSON_DEPTH and all(
            type(k) is str and _plain(v, depth + 1) for k, v in value.items())
    if type(value) is list:
        return depth < MAX_JSON_DEPTH and all(_plain(v, depth + 1) for v in value)
    if type(value) is int:
        return value.bit_length() <= 1024
    return type(value) in (str, float, bool, type(None))


@given(_VALUES)
def test_the_one_walk_answers_what_the_three_walks_answer(value):
    arguments = {"a": value}
    walked = plain_copy(arguments)
    assert (walked is not None) == _plain(arguments), walked
    if walked is not None:
        copied, lossless = walked
        assert argument_error(arguments) is None
        assert _typed(copied) == _typed(copy.deepcopy(arguments))
        assert _fresh(arguments, copied)
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

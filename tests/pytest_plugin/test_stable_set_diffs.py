"""A suite test's set comparison explained alike in every process
(pytest_plugin.stable_set_diffs).

Pins the kit's behaviour: the explanation sorts each side's extra items, so a
failure's message in the reports does not change with the hash seed; tests
outside the suite keep pytest's explanation."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import textwrap
from typing import NamedTuple

import kit_child_processes as children

from pytest_dsh.driving.stable_repr import stable_repr
from pytest_dsh.pytest_plugin.stable_set_diffs import explain

#: The reference, with two of its tools under other names.
RENAMED_IMPL = textwrap.dedent(
    """
    import dsh_reference.schedule.tools as tools
    from dsh_reference.implementation import IMPLEMENTATION

    _original = tools.ToolDefinition
    _RENAMED = {"schedule_list": "schedule_lst", "schedule_delete": "schedule_del"}

    def _renamed(**fields):
        fields["name"] = _RENAMED.get(fields["name"], fields["name"])
        return _original(**fields)

    tools.ToolDefinition = _renamed
    """
)
CATALOG_TEST = ("dsh_conformance.schedule.model_experience.test_model_experience",
                "test_schemas_are_identical_for_every_root_and_stable_while_installed")


def test_the_explanation_sorts_each_side_s_extra_items():
    assert explain("==", {"d", "b", "c", "a"}, {"c", "a", "z"}) == [
        "{'a', 'b', 'c', 'd'} == {'a', 'c', 'z'}",
        "Extra items in the left set:", "'b'", "'d'",
        "Extra items in the right set:", "'z'",
    ]
    assert explain("<=", frozenset({"b", "a"}), frozenset({"a"})) == [
        "frozenset({'a', 'b'}) <= frozenset({'a'})", "Extra items in the left set:", "'b'"]
    assert explain(">=", set(), {"x"}) == [
        "set() >= {'x'}", "Extra items in the right set:", "'x'"]
    assert explain("!=", {1}, {1})[-1] == "Both sets are equal"
    long = explain("==", {f"item-{n:03}" for n in range(40)}, set())[0]
    assert len(long) < 80 and "..." in long
    assert len(explain("==", {f"item-{n:03}" for n in range(40)}, set(), verbose=2)[0]) > 400


def test_a_suite_test_s_message_is_the_same_under_every_hash_seed(pytester, monkeypatch):
    pytester.makepyfile(renamed=RENAMED_IMPL)
    messages = set()
    for seed in ("1", "2", "3", "4", "5"):
        monkeypatch.setenv("PYTHONHASHSEED", seed)
        result = children.runpytest_subprocess(
            pytester, "-p", "no:randomly", "-p", "no:cacheprovider",
            "--dsh-impl=renamed:IMPLEMENTATION", f"--dsh-report=out-{seed}.json",
            "--pyargs", CATALOG_TEST[0], "-k", CATALOG_TEST[1],
        )
        assert result.ret == 1, result.stdout.str()[-3000:]
        document = json.loads((pytester.path / f"out-{seed}.json").read_text("utf-8"))
        (test,) = [t for t in document["tests"] if CATALOG_TEST[1] in t["id"]]
        messages.add(test["message"])
    assert len(messages) == 1, messages
    message = messages.pop()
    # The kit's own part (the observed names) and pytest's explanation, both sorted.
    assert "observed {'schedule_create', 'schedule_del', 'schedule_lst'}" in message, message
    assert ("Extra items in the left set:\n  'schedule_del'\n  'schedule_lst'\n"
            "  Extra items in the right set:\n  'schedule_delete'\n  'schedule_list'") in message, (
        message)


def test_a_test_outside_the_suite_keeps_pytest_s_explanation(pytester):
    pytester.makepyfile(test_own="def test_sets():\n    assert {'a', 'b'} == {'a'}\n")
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=1)
    # pytest's own explanation of a set comparison ends with its full diff (under
    # CI) or the hint to ask for it; the kit's explanation has neither.
    result.stdout.fnmatch_lines(["*Extra items in the left set:*"])
    text = result.stdout.str()
    assert "Full diff:" in text or "Use -v to get more diff" in text, text


def test_the_stable_repr_sorts_sets_wherever_they_sit():
    value = {"b": [frozenset({"y", "x"}), ({"q", "p"},)], "a": set(), 3: frozenset()}
    assert stable_repr(value) == (
        "{'b': [frozenset({'x', 'y'}), ({'p', 'q'},)], 'a': set(), 3: frozenset()}")
    plain = {"k": [1, (2, 3), "s", None, 1.5]}
    assert stable_repr(plain) == repr(plain)


@dataclasses.dataclass
class _Observed:
    names: set[str]
    hidden: set[str] = dataclasses.field(default_factory=set, repr=False)


class _Pair(NamedTuple):
    codes: frozenset[str]
    count: int


class _Names(set[str]):
    """Keeps set's repr: ``_Names({...})``."""


class _OwnRepr(set[str]):
    def __repr__(self) -> str:
        return "own:" + ",".join(self)


def test_sets_inside_dataclasses_named_tuples_and_subclasses_are_sorted_too():
    assert stable_repr(_Observed({"c", "a", "b"}, {"z"})) == "_Observed(names={'a', 'b', 'c'})"
    assert stable_repr(_Pair(frozenset({"y", "x"}), 2)) == (
        "_Pair(codes=frozenset({'x', 'y'}), count=2)")
    assert stable_repr(_Names({"q", "p"})) == "_Names({'p', 'q'})"
    assert stable_repr(_Names()) == "_Names()"
    assert stable_repr([_Observed({"e", "d"})]) == "[_Observed(names={'d', 'e'})]"
    # A set subclass explained by the hook reads as its stable repr, sorted alike.
    assert explain("==", _Names({"b", "a"}), {"a"})[0] == "_Names({'a', 'b'}) == {'a'}"


def test_a_class_with_a_repr_of_its_own_keeps_it():
    own = _OwnRepr({"only"})
    assert stable_repr(own) == "own:only"

    @dataclasses.dataclass
    class Custom:
        names: set[str]

        def __repr__(self) -> str:
            return "custom"

    assert stable_repr(Custom({"b", "a"})) == "custom"


def test_the_stable_repr_is_the_same_under_every_hash_seed():
    script = textwrap.dedent(
        """
        import dataclasses
        from pytest_dsh.driving.stable_repr import stable_repr

        @dataclasses.dataclass
        class Seen:
            names: set

        print(stable_repr([Seen({f"name-{n}" for n in range(12)})]))
        """
    )
    outputs = {
        children.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                     env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1, outputs

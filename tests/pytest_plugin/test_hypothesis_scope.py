"""Installing the kit changes nothing for other projects (issue item 4): the
suite's Hypothesis profile applies to the suite's own tests only. The header
names the seed the suite's tests actually use (issue item 8), and that seed
is the kit's fixed one unless the run asks otherwise (docs/reproducibility.md)."""

from __future__ import annotations

import re

UNRELATED = """
from hypothesis import given, settings, strategies as st

settings.register_profile("mine", max_examples=7, deadline=1234)
settings.load_profile("mine")

seen = []

@given(st.integers())
def test_uses_my_profile(x):
    seen.append(x)

def test_profile_is_mine():
    assert settings.get_current_profile_name() == "mine"
    assert settings.default.max_examples == 7
    assert settings.default.deadline.total_seconds() == 1.234

def test_given_ran_with_my_example_count():
    assert len(seen) <= 7
"""


def test_an_unrelated_project_keeps_its_own_profile(pytester):
    pytester.makepyfile(test_unrelated=UNRELATED)
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=3)


def test_its_profile_survives_a_run_of_the_suite_in_the_same_session(pytester):
    pytester.makepyfile(test_unrelated=UNRELATED)
    result = pytester.runpytest(
        "-p", "no:randomly", "--dsh-impl=reference", "test_unrelated.py",
        "--pyargs", "dsh_conformance.time_context", "-k",
        "unrelated or test_timestamps_match_an_independent_rendering "
        "or test_both_keys_are_optional",
    )
    result.assert_outcomes(passed=5)


def test_the_suite_runs_under_its_own_profile(pytester, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    pytester.makepyfile(
        profileprobe="""
        import pytest
        from hypothesis import settings
        settings.register_profile("mine", max_examples=7)
        settings.load_profile("mine")
        seen = {}
        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_call(item):
            seen[item.name] = settings.get_current_profile_name()
            return (yield)
        def pytest_sessionfinish(session):
            print("PROFILES", ",".join(sorted(set(seen.values()))), "AFTER",
                  settings.get_current_profile_name())
        """
    )
    pytester.syspathinsert()
    result = pytester.runpytest(
        "-p", "profileprobe", "-s", "--dsh-impl=reference",
        "--pyargs", "dsh_conformance.time_context",
        "-k", "test_timestamps_match_an_independent_rendering",
    )
    result.stdout.fnmatch_lines(["*PROFILES dsh AFTER mine*"])


def test_the_suite_shrinks_a_failure_but_does_not_explain_it(pytester):
    """The explain phase only comments a shrunk example, at the cost of
    hundreds more runs (docs/reproducibility.md); shrinking stays."""
    pytester.makepyfile(
        phaseprobe="""
        import pytest
        from hypothesis import Phase, settings
        seen = set()
        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_call(item):
            phases = settings.default.phases
            seen.add((Phase.shrink in phases, Phase.explain in phases))
            return (yield)
        def pytest_sessionfinish(session):
            print("PHASES", sorted(seen))
        """
    )
    pytester.syspathinsert()
    result = pytester.runpytest(
        "-p", "phaseprobe", "-s", "--dsh-impl=reference",
        "--pyargs", "dsh_conformance.time_context",
        "-k", "test_timestamps_match_an_independent_rendering",
    )
    result.stdout.re_match_lines([r".*PHASES \[\(True, False\)\]$"])


def test_the_header_names_the_seed_the_suite_uses(pytester, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("--dsh-impl=reference")
    line = next(x for x in result.stdout.lines if "hypothesis profile" in x)
    seed = re.search(r"seed (\d+) \(reproduce with --hypothesis-seed=(\d+)\)", line)
    assert seed and seed.group(1) == seed.group(2), line
    assert "random per run" not in result.stdout.str()


def _seed_line(result) -> str:
    return next(x for x in result.stdout.lines if "hypothesis profile" in x)


def test_ci_in_the_environment_changes_nothing(pytester, monkeypatch):
    # A verdict is the same on every machine: a CI runner draws the examples
    # a laptop draws (the profile used to derandomize under CI).
    pytester.makepyfile("def test_x():\n    pass\n")
    monkeypatch.setenv("CI", "true")
    under_ci = _seed_line(pytester.runpytest("--dsh-impl=reference"))
    monkeypatch.delenv("CI")
    assert _seed_line(pytester.runpytest("--dsh-impl=reference")) == under_ci
    assert "hypothesis profile dsh for the suite's tests" in under_ci

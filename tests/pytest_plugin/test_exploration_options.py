"""The options that choose the suite's examples (docs/reproducibility.md):
``--dsh-explore`` and ``--dsh-explore-examples`` with their ini twins and
``dsh-conformance`` flags; the kit's fixed seed; what a rerun repeats."""

from __future__ import annotations

import pytest

from pytest_dsh import __version__
from pytest_dsh.pytest_plugin.conformance_cli import pytest_arguments
from pytest_dsh.pytest_plugin.exploration import replay_command
from pytest_dsh.pytest_plugin.hypothesis_scope import SuiteHypothesis, kit_seed


def test_the_kit_seed_depends_on_the_kit_version_alone():
    assert kit_seed() == kit_seed(__version__)
    assert kit_seed("0.1.0") != kit_seed("0.1.1")
    assert 0 <= kit_seed() < 2**32
    # A fixed value, the same on every machine (a hash, never a random draw).
    assert kit_seed("0.1.0") == 2173431777  # sha256("pytest-dsh 0.1.0")[:4]


def test_without_options_the_suite_uses_the_kit_seed():
    chosen = SuiteHypothesis.choose(user_profile=None, user_seed=None)
    assert (chosen.profile, chosen.seed, chosen.chosen, chosen.examples) == (
        "dsh", kit_seed(), "kit", None)


def test_a_given_seed_wins_over_exploring_and_is_read_as_hypothesis_reads_it():
    given = SuiteHypothesis.choose(user_profile=None, user_seed="42", explore=True)
    assert (given.seed, given.chosen) == (42, "given")
    text = SuiteHypothesis.choose(user_profile=None, user_seed="abc")
    assert (text.seed, text.chosen) == ("abc", "given")


def test_exploring_draws_a_fresh_seed():
    drawn = {SuiteHypothesis.choose(user_profile=None, user_seed=None, explore=True).seed
             for _ in range(5)}
    assert len(drawn) > 1


def test_the_suite_profile_reads_no_example_database():
    from hypothesis import settings

    SuiteHypothesis.choose(user_profile=None, user_seed=None)
    assert settings.get_profile("dsh").database is None
    assert settings.get_profile("dsh").derandomize is False


def test_cli_flags_map_onto_pytest_options():
    args, _ = pytest_arguments(
        ["--impl", "reference", "--seed", "9", "--explore", "--explore-examples", "500",
         "--workers", "1"]
    )
    assert args[-3:] == ["--hypothesis-seed=9", "--dsh-explore", "--dsh-explore-examples=500"]


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_cli_refuses_a_bad_example_count(value, capsys):
    with pytest.raises(SystemExit) as stopped:
        pytest_arguments(["--impl", "reference", "--explore-examples", value])
    assert stopped.value.code == 4
    assert "--explore-examples" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "x"])
def test_a_bad_example_count_is_a_usage_error(pytester, value):
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("--dsh-impl=reference", f"--dsh-explore-examples={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--dsh-explore-examples: expected a whole number >= 1*"])


def test_the_ini_twins_explore_with_more_examples(pytester):
    pytester.makeini("[pytest]\ndsh_explore = true\ndsh_explore_examples = 77\n")
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("--dsh-impl=reference")
    result.stdout.fnmatch_lines([
        "*seed * (reproduce with --hypothesis-seed=*), random (--dsh-explore); "
        "77 examples per property test",
        "*dsh exploration*",
        "no property test failed with this seed",
    ])


def test_the_header_says_the_seed_is_the_kits(pytester):
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("--dsh-impl=reference")
    seed = kit_seed()
    result.stdout.fnmatch_lines([
        f"dsh: tzdata * hypothesis profile dsh for the suite's tests (Hypothesis *, no example "
        f"database), seed {seed} (reproduce with --hypothesis-seed={seed}), the fixed seed of "
        f"pytest-dsh {__version__}",
    ])
    assert "dsh exploration" not in result.stdout.str()


def test_a_replay_names_the_seed_instead_of_exploring():
    hypothesis = SuiteHypothesis("dsh", 5, "explore", 300)
    command = replay_command(
        ["--dsh-impl=x", "--dsh-explore", "--dsh-explore-examples", "300",
         "--hypothesis-seed", "1", "-k", "zone"],
        hypothesis,
    )
    assert command == (
        "pytest --dsh-impl=x -k zone --hypothesis-seed=5 --dsh-explore-examples=300"
    )


def test_a_rerun_command_replaces_the_explore_options(pytester):
    pytester.makepyfile(
        "import pytest\n"
        "@pytest.mark.spec('TC-012')\n"
        "def test_x(dsh_implementation):\n    assert False\n"
    )
    result = pytester.runpytest(
        "--dsh-impl=reference", "--dsh-explore", "--dsh-explore-examples=3", "-p", "no:randomly",
    )
    rerun = next(x for x in result.stdout.lines if "rerun: pytest" in x)
    assert "--dsh-explore " not in rerun + " "
    assert rerun.count("--dsh-explore-examples=3") == 1
    assert "--hypothesis-seed=" in rerun

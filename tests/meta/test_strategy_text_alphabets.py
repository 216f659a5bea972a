"""The suite's strategies draw text without asking Hypothesis for a codec.

``st.text()``'s default alphabet is ``st.characters(codec="utf-8")``: the
first such strategy a process draws from makes Hypothesis encode and decode
every one of the 1.1M code points (about 1.2 s of CPU) unless the run's
folder already holds its ``.hypothesis`` cache, which a run from a new folder
does not. Every code point but a surrogate is what UTF-8 encodes, so the
suite spells the same alphabet as ``exclude_categories=["Cs"]``: the same
characters and the same draws, without the scan."""

from __future__ import annotations

import sys
import textwrap

import kit_child_processes as children
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

_ALPHABET = st.characters(exclude_categories=["Cs"])


def _draws(strategy: st.SearchStrategy[object], at: int) -> list[object]:
    drawn: list[object] = []

    @seed(at)
    @settings(max_examples=200, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.one_of(st.integers(), strategy, st.none()))
    def draw(value: object) -> None:
        drawn.append(value)

    draw()
    return drawn


def test_the_alphabet_without_a_codec_draws_what_the_default_one_draws() -> None:
    for at in (1, 2173431777):
        assert _draws(st.text(alphabet=_ALPHABET, max_size=5), at) == _draws(
            st.text(max_size=5), at
        )


_CHILD = textwrap.dedent(
    """
    from hypothesis import HealthCheck, given, settings
    from hypothesis.internal import charmap

    def refuse(codec):
        raise AssertionError(f"a strategy asked for the codec {codec!r}")

    charmap.intervals_from_codec = refuse
    from pytest_dsh.strategies.schedule import invalid_create_arguments

    @settings(max_examples=300, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(invalid_create_arguments())
    def draw(case):
        pass

    draw()
    """
)


def test_the_shape_failure_strategy_asks_for_no_codec(tmp_path) -> None:
    # A fresh process: in this one another test may have built the codec's
    # intervals already, and a strategy that asked for them would pass unseen.
    done = children.run([sys.executable, "-c", _CHILD], cwd=tmp_path, capture_output=True,
                        text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]

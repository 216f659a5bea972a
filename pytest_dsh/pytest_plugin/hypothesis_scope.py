"""Hypothesis settings for the conformance suite's own tests, and nothing else.

The kit registers two profiles: ``dsh`` (no deadline: virtual time makes speed
irrelevant to correctness, and a slow CI core must not turn into flaky deadline
errors) and ``dsh-ci`` (the same, derandomized, used when ``CI`` is set). A
profile is *loaded* only around the suite's tests: while their modules are
imported (``@given`` reads the default settings then) and while each runs. Any
other test in the same run, and every pytest run of another project, keeps its
own profile. ``--hypothesis-profile`` wins everywhere.

Without ``--hypothesis-seed``, a run against an implementation picks a seed,
prints it in the header and gives it to the suite's tests, so
``--hypothesis-seed=N`` reproduces the run. A parallel run picks it once, on
the controller, and every worker runs with that one (:meth:`SuiteHypothesis.inheriting`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["SuiteHypothesis", "register_profiles"]


def register_profiles() -> None:
    from hypothesis import HealthCheck, settings

    # derandomize is explicit: Hypothesis's own CI detection must not decide
    # whether the seed in the header is the one used.
    settings.register_profile(
        "dsh", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=False
    )
    settings.register_profile(
        "dsh-ci", parent=settings.get_profile("dsh"), derandomize=True, print_blob=True
    )


@dataclass(frozen=True)
class SuiteHypothesis:
    """What the suite's tests run with: a profile (``None``: the user chose
    one with ``--hypothesis-profile``) and a seed (``None``: the user's seed,
    or derandomized)."""

    profile: str | None
    seed: int | None
    user_seed: str | None

    @classmethod
    def choose(
        cls, *, user_profile: str | None, user_seed: object, pick_seed: bool
    ) -> SuiteHypothesis:
        register_profiles()
        profile = None if user_profile else ("dsh-ci" if os.environ.get("CI") else "dsh")
        seed_text = None if user_seed is None else str(user_seed)
        seed = None
        if pick_seed and seed_text is None and not cls._derandomized(profile):
            seed = random.SystemRandom().randrange(2**32)
        return cls(profile, seed, seed_text)

    def inheriting(self, seed: int | None) -> SuiteHypothesis:
        """The same settings with the seed the run's controller picked (a
        worker of a parallel run must not pick its own)."""
        return dataclasses.replace(self, seed=seed)

    @staticmethod
    def _derandomized(profile: str | None) -> bool:
        from hypothesis import settings

        active = settings.get_profile(profile) if profile else settings.default
        return bool(active is not None and active.derandomize)

    @property
    def profile_name(self) -> str:
        from hypothesis import settings

        _ = settings.default  # makes sure a current profile exists
        return self.profile or settings.get_current_profile_name()

    def describe(self) -> str:
        """``hypothesis profile dsh, seed 1234 (...)`` for the header."""
        if self.user_seed is not None:
            seed_text = f"seed {self.user_seed}"
        elif self.seed is not None:
            seed_text = f"seed {self.seed} (reproduce with --hypothesis-seed={self.seed})"
        elif self._derandomized(self.profile):
            seed_text = "derandomized (each test derives its seed from its name)"
        else:
            seed_text = "a random seed per test (give --hypothesis-seed to fix one)"
        scope = " for the suite's tests" if self.profile else ""
        return f"hypothesis profile {self.profile_name}{scope}, {seed_text}"

    @contextlib.contextmanager
    def applied(self) -> Iterator[None]:
        """Load the suite's profile and seed for the duration of the block."""
        if self.profile is None and self.seed is None:
            yield
            return
        from hypothesis import core, settings

        _ = settings.default  # makes sure a current profile exists
        previous_profile = settings.get_current_profile_name()
        previous_seed = getattr(core, "global_force_seed", None)
        if self.profile is not None:
            settings.load_profile(self.profile)
        if self.seed is not None:
            # What --hypothesis-seed sets (Hypothesis's own pytest plugin does
            # the same), here only for the suite's tests.
            setattr(core, "global_force_seed", self.seed)  # noqa: B010
        try:
            yield
        finally:
            settings.load_profile(previous_profile)
            setattr(core, "global_force_seed", previous_seed)  # noqa: B010

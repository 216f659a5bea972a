"""Hypothesis settings for the conformance suite's own tests, and nothing else.

A verdict is a fact about the implementation, not about the run: by default
the suite's property tests run one fixed example set, the same on every run,
machine, worker count and test order (docs/reproducibility.md):

* the seed is the kit's own (:func:`kit_seed`, derived from the kit's version
  alone), set as ``--hypothesis-seed`` sets it, so every test starts from it
  whatever ran before and on whichever worker;
* no example database: with a fixed seed Hypothesis neither reads nor writes
  one, and the profiles say ``database=None`` besides, so a local
  ``.hypothesis/`` folder changes nothing;
* the profile is the same with or without ``CI`` in the environment;
* nothing that depends on the machine's speed decides: no deadline and no
  speed health check, even for a test whose own ``@settings`` name others.

``--hypothesis-seed=N`` runs another fixed set; exploration (``--dsh-explore``)
draws a random seed, printed so the run can be replayed with
``--hypothesis-seed``; ``--dsh-explore-examples=N`` runs N examples per
``@given`` test instead of each test's own count. The seed actually used,
however chosen, is in the header and every report.

The kit registers two profiles: ``dsh`` (no deadline: virtual time makes speed
irrelevant to correctness; no example database; failures print their
``@reproduce_failure`` blob; a failure is shrunk but not explained) and
``dsh-ci`` (the same, derandomized; loaded only when named with
``--hypothesis-profile``). The profile is *loaded* only around
the suite's tests: while their modules are imported (``@given`` reads the
default settings then) and while each runs. Any other test in the same run,
and every pytest run of another project, keeps its own profile.
``--hypothesis-profile`` wins everywhere.

A parallel run chooses once, on the controller, and every worker runs with
that choice (:meth:`SuiteHypothesis.inheriting`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final, Literal

from pytest_dsh import __version__

__all__ = ["CHOICES", "SuiteHypothesis", "kit_seed", "property_test", "register_profiles"]

#: How the seed was chosen: the kit's fixed seed, the user's ``--hypothesis-seed``,
#: a random one for ``--dsh-explore``, or none (a derandomized profile).
Chosen = Literal["kit", "given", "explore", "derandomized"]
CHOICES: Final[tuple[Chosen, ...]] = ("kit", "given", "explore", "derandomized")


def kit_seed(version: str = __version__) -> int:
    """The seed of the kit's fixed example set: a hash of the kit's version and
    nothing else, so a new release may draw new examples but no machine does."""
    digest = hashlib.sha256(f"pytest-dsh {version}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def register_profiles() -> None:
    from hypothesis import HealthCheck, Phase, settings

    # derandomize is explicit: Hypothesis's own CI detection must not decide
    # which examples a verdict rests on. The explain phase is left out: it
    # replays a shrunk failure hundreds of times only to comment which of its
    # arguments could vary, and through a bridge each replay is a host in Node
    # (seconds for one failing test). The outcome and the shrunk example are
    # the same without it.
    settings.register_profile(
        "dsh", deadline=None, suppress_health_check=[HealthCheck.too_slow],
        derandomize=False, database=None, print_blob=True,
        phases=tuple(phase for phase in Phase if phase is not Phase.explain),
    )
    settings.register_profile("dsh-ci", parent=settings.get_profile("dsh"), derandomize=True)


def property_test(test: object) -> object | None:
    """The function object of a ``@given`` test (``None`` for any other)."""
    function = getattr(test, "__func__", test)
    return function if getattr(function, "is_hypothesis_test", False) else None


@dataclass(frozen=True)
class SuiteHypothesis:
    """What the suite's tests run with: a profile (``None``: the user chose
    one with ``--hypothesis-profile``), the seed (``None``: derandomized), how
    it was chosen, and an example count for every ``@given`` test (``None``:
    each test's own)."""

    profile: str | None
    seed: int | str | None
    chosen: Chosen
    examples: int | None = None

    @classmethod
    def choose(
        cls, *, user_profile: str | None, user_seed: object, explore: bool = False,
        examples: int | None = None,
    ) -> SuiteHypothesis:
        register_profiles()
        profile = None if user_profile else "dsh"
        if cls._derandomized(profile):
            # Hypothesis lets derandomize win over any seed: say so.
            return cls(profile, None, "derandomized", examples)
        if user_seed is not None:
            return cls(profile, _as_seed(user_seed), "given", examples)
        if explore:
            return cls(profile, random.SystemRandom().randrange(2**32), "explore", examples)
        return cls(profile, kit_seed(), "kit", examples)

    def inheriting(self, seed: int | str | None, chosen: str | None) -> SuiteHypothesis:
        """The same settings with the seed the run's controller chose (a
        worker of a parallel run must not choose its own)."""
        how: Chosen = next((c for c in CHOICES if c == chosen), self.chosen)
        return dataclasses.replace(self, seed=seed, chosen=how)

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

    @staticmethod
    def hypothesis_version() -> str:
        import hypothesis

        return str(hypothesis.__version__)

    def replay_args(self) -> list[str]:
        """The options that run the same examples again."""
        args = [] if self.seed is None else [f"--hypothesis-seed={self.seed}"]
        if self.examples is not None:
            args.append(f"--dsh-explore-examples={self.examples}")
        return args

    def describe(self) -> str:
        """``hypothesis profile dsh for the suite's tests (...), seed 1234 (...)``
        for the header and the reports."""
        replay = f"(reproduce with --hypothesis-seed={self.seed})"
        seed_text = {
            "kit": f"seed {self.seed} {replay}, the fixed seed of pytest-dsh {__version__}",
            "explore": f"seed {self.seed} {replay}, random (--dsh-explore)",
            "given": f"seed {self.seed}",
            "derandomized": "derandomized (each test derives its seed from its name)",
        }[self.chosen]
        if self.examples is not None:
            seed_text += f"; {self.examples} examples per property test"
        scope = " for the suite's tests" if self.profile else ""
        return (
            f"hypothesis profile {self.profile_name}{scope} "
            f"(Hypothesis {self.hypothesis_version()}, no example database), {seed_text}"
        )

    @contextlib.contextmanager
    def applied(self, test: object = None) -> Iterator[None]:
        """Load the suite's profile and seed for the duration of the block;
        with ``test`` (a test's function), its example count too."""
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
            with self._test_settings(property_test(test)):
                yield
        finally:
            settings.load_profile(previous_profile)
            setattr(core, "global_force_seed", previous_seed)  # noqa: B010

    @contextlib.contextmanager
    def _test_settings(self, function: object | None) -> Iterator[None]:
        """A suite test's own ``@settings`` replace the profile's health-check
        list and may set a deadline: under the kit's profile nothing that
        depends on the machine's speed decides a verdict, so the speed health
        check and the deadline are off for every property test; with
        ``examples``, its example count is that one."""
        if function is None or (self.profile is None and self.examples is None):
            yield
            return
        from hypothesis import HealthCheck, settings

        # A @given test reads these settings each time it is called; its own
        # are put back afterwards.
        own = getattr(function, "_hypothesis_internal_use_settings", None)
        if not isinstance(own, settings):
            yield
            return
        changes: dict[str, Any] = {}
        if self.profile is not None:
            changes["deadline"] = None
            changes["suppress_health_check"] = sorted(
                {*own.suppress_health_check, HealthCheck.too_slow}, key=lambda c: c.value
            )
        if self.examples is not None:
            changes["max_examples"] = self.examples
        setattr(function, "_hypothesis_internal_use_settings", settings(own, **changes))  # noqa: B010
        try:
            yield
        finally:
            setattr(function, "_hypothesis_internal_use_settings", own)  # noqa: B010


def _as_seed(value: object) -> int | str:
    """``--hypothesis-seed`` as Hypothesis's own plugin reads it: a number
    when it is one, else the text."""
    text = str(value)
    try:
        return int(text)
    except ValueError:
        return text

"""A pytest plugin for a variant's whole-suite run (``-p unshrunk_failures``):
a property test that fails reports the first failing example Hypothesis
found, without shrinking it or explaining it.

A test's outcome does not depend on it: Hypothesis fails a test in the phase
that generates examples, and shrinking only looks for a smaller example that
fails too. The variants' runs read each test's outcome, level and pins from
the report, never its example; a variant fails hundreds of compat tests, and
shrinking and explaining the failing property tests was about a tenth of
such a run's CPU."""

from __future__ import annotations

from hypothesis import Phase, settings

from pytest_dsh.pytest_plugin import hypothesis_scope

_register_profiles = hypothesis_scope.register_profiles


def _without_shrinking() -> None:
    _register_profiles()
    kit = settings.get_profile("dsh")
    settings.register_profile(
        "dsh", parent=kit, phases=[p for p in kit.phases if p not in (Phase.shrink, Phase.explain)]
    )


# The kit registers its profile when the run is configured, after this
# plugin is imported: it registers this one in its place.
hypothesis_scope.register_profiles = _without_shrinking

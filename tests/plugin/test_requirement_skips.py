"""A requirement the driver API finds missing is the test's skip, in every
phase and under Hypothesis: ``pytest_dsh.driving`` raises
``RequirementMissing`` (it imports no pytest) and the plugin reports it as a
skip with its message, never a pass or a failure. Kit behaviour: no README
sentence."""

from __future__ import annotations

import textwrap

import pytest

MISSING = textwrap.dedent(
    """
    import pytest
    from hypothesis import given, strategies as st
    from pytest_dsh.driving.seams import require_seam

    @pytest.mark.dsh_requires("schedule")
    def test_in_the_body(dsh_host):
        require_seam(dsh_host, "export-shape")
        raise AssertionError("never reached")

    @pytest.fixture
    def needs_the_queue(dsh_host):
        require_seam(dsh_host, "transaction-queue")

    @pytest.mark.dsh_requires("schedule")
    def test_in_a_fixture(needs_the_queue):
        raise AssertionError("never reached")

    @pytest.mark.dsh_requires("schedule")
    @given(st.integers())
    def test_under_hypothesis(dsh_implementation, n):
        host = dsh_implementation.open_host(start_ms=0)
        try:
            require_seam(host, "durable-change-observer")
        finally:
            host.close()
        raise AssertionError("never reached")

    @pytest.mark.dsh_requires("schedule")
    def test_present(dsh_host):
        require_seam(dsh_host, "per-event-durability")  # the fake host has it
        dsh_host.set_durability("per-event")
    """
)


@pytest.mark.parametrize("unittest_plugin", ["on", "off"])
def test_a_missing_seam_is_a_skip_with_the_hosts_reason(impls, unittest_plugin):
    impls.makepyfile(test_missing=MISSING)
    extra = ["-p", "no:unittest"] if unittest_plugin == "off" else []
    result = impls.runpytest(
        "--dsh-impl=impls:FULL", "-rs", "-p", "no:randomly", "-p", "no:cacheprovider", *extra
    )
    result.assert_outcomes(passed=1, skipped=3)
    out = result.stdout.str()
    for seam in ("export-shape", "transaction-queue", "durable-change-observer"):
        assert f"the full host cannot provide the '{seam}' seam: " in out

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


MARKED = textwrap.dedent(
    """
    import pytest

    @pytest.mark.dsh_requires("schedule", "export-shape")
    def test_a_seam_the_fake_host_lacks(dsh_host):
        raise AssertionError("never reached")

    @pytest.mark.dsh_requires("per-event-durability")
    def test_a_seam_the_fake_host_has(dsh_host):
        dsh_host.set_durability("per-event")

    @pytest.mark.dsh_requires("inject-into-the-step")
    def test_a_host_behaviour_runs(dsh_host):
        pass
    """
)


def test_dsh_requires_names_seams_and_host_behaviours_too(impls):
    impls.makepyfile(test_marked=MARKED)
    result = impls.runpytest("--dsh-impl=impls:FULL", "-rs", "-p", "no:randomly")
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(["*the full host cannot provide the 'export-shape' seam: *"])


@pytest.mark.parametrize(
    ("marker", "error"),
    [
        ('dsh_requires("time-travel")', "unknown requirement 'time-travel'"),
        (
            'dsh_needs_host("schedule")',
            "dsh_needs_host('schedule'): 'schedule' is a capability, not a host behaviour",
        ),
    ],
)
def test_a_name_that_is_no_requirement_of_its_kind_is_a_usage_error(impls, marker, error):
    impls.makepyfile(
        test_wrong=f"import pytest\n\n@pytest.mark.{marker}\ndef test_x():\n    pass\n"
    )
    result = impls.runpytest("--dsh-impl=impls:FULL", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"test_wrong.py::test_x: {error}" in result.stderr.str()


def test_a_seam_named_by_a_test_without_a_host_is_a_usage_error(impls):
    impls.makepyfile(
        test_hostless='import pytest\n\n@pytest.mark.dsh_requires("export-shape")\n'
        "def test_x():\n    pass\n"
    )
    result = impls.runpytest("--dsh-impl=impls:FULL", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "needs the seam ['export-shape'] but not the dsh_host fixture" in result.stderr.str()

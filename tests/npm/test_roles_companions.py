"""An npm author may leave out the optional ``./invariant`` companion: say
so (``--dsh-npm-no-invariant`` / ini), or let the package check find the
export missing; either way the companion's tests are skipped with the
reason and the header says why. Kit behaviour: no README sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_dsh.npm import NodeImplementation
from pytest_dsh.npm._specs import PackageSpec, parse_spec
from pytest_dsh.npm.errors import NotADshPluginError

PACKAGES = {"time-context": "@x/tc@1.0.0"}


def _specs(implementation: NodeImplementation) -> list[PackageSpec]:
    return [parse_spec(role, spec, base=Path.cwd()) for role, spec in PACKAGES.items()]


def test_a_package_without_the_export_is_tested_without_its_companion() -> None:
    implementation = NodeImplementation("tc", "1.0.0", PACKAGES)
    assert "time-context-invariant" in implementation.capabilities
    implementation._settle_companions(
        _specs(implementation), {"time-context": {"package": "@x/tc", "invariant": False}}
    )
    assert implementation.capabilities == frozenset({"time-context", "process-zone"})
    assert implementation.notes() == (
        "time-context companion ./invariant: not provided, its tests skipped",
    )


def test_a_package_with_the_export_keeps_its_companion() -> None:
    implementation = NodeImplementation("tc", "1.0.0", PACKAGES)
    implementation._settle_companions(
        _specs(implementation), {"time-context": {"package": "@x/tc", "invariant": True}}
    )
    assert "time-context-invariant" in implementation.capabilities
    assert implementation.notes() == ()


def test_a_declared_companion_the_package_lacks_is_refused() -> None:
    implementation = NodeImplementation(
        "tc", "1.0.0", PACKAGES,
        capabilities=frozenset({"time-context", "time-context-invariant"}),
    )
    with pytest.raises(NotADshPluginError, match=r"has no \./invariant export"):
        implementation._settle_companions(
            _specs(implementation), {"time-context": {"invariant": False}}
        )


def test_no_invariant_leaves_the_companions_out_and_says_so() -> None:
    implementation = NodeImplementation("tc", "1.0.0", PACKAGES, companions=False)
    assert implementation.capabilities == frozenset({"time-context", "process-zone"})
    assert implementation.notes() == (
        "time-context companion ./invariant: not tested (--dsh-npm-no-invariant), "
        "its tests skipped",
    )


@pytest.mark.parametrize(
    ("args", "ini"),
    [(["--dsh-npm-no-invariant"], ""), ([], "[pytest]\ndsh_npm_no_invariant = true\n")],
)
def test_the_option_and_its_ini_twin_build_the_implementation_without_companions(
    pytester: pytest.Pytester, args: list[str], ini: str
) -> None:
    from pytest_dsh.pytest_plugin.npm_options import implementation_for

    if ini:
        pytester.makeini(ini)
    config = pytester.parseconfig("--dsh-npm", "time-context=@x/tc@1.0.0", *args)
    implementation = implementation_for(config, "npm")
    assert implementation is not None
    assert "time-context-invariant" not in implementation.capabilities


def test_no_invariant_needs_the_npm_implementation(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--dsh-impl=reference", "--dsh-npm-no-invariant")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--dsh-npm-no-invariant only applies with --dsh-impl=npm*"])

"""The package-shape check: does every package export a DSH plugin?

The bridge imports the packages when it starts and reports, per role, what it
found (``lib/packages.mjs``): the package and version and whether it has an
``./invariant`` companion, or the problem. One bridge start answers for all
packages; the process then serves the first test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_dsh.npm._install import BridgeRuntime
from pytest_dsh.npm._specs import PackageSpec
from pytest_dsh.npm.errors import NotADshPluginError

__all__ = ["check_packages", "describe_problem"]


def describe_problem(spec: PackageSpec, report: Mapping[str, Any] | None) -> str | None:
    """The sentence for ``spec``'s report, or None when the package is usable."""
    if report is not None and "problem" not in report:
        return None
    if report is None:
        return f"{spec.role}={spec.text}: the bridge did not load it"
    package = report.get("package") or spec.name
    version = report.get("version")
    shown = f"{package}@{version}" if version else str(package)
    text = f"{spec.role}={spec.text} (package {shown}) {report['problem']}"
    if "expected" in report:
        text += f"\n  expected: {report['expected']}\n  found: {report.get('found', '?')}"
    return text


def check_packages(
    runtime: BridgeRuntime, specs: Sequence[PackageSpec]
) -> Mapping[str, Mapping[str, Any]]:
    """Start a bridge on ``runtime`` and raise
    :class:`~pytest_dsh.npm.errors.NotADshPluginError` listing every package
    that is not a usable DSH plugin; else return the bridge's report per role
    (``invariant`` says whether it has an ``./invariant`` companion)."""
    from pytest_dsh.npm.bridge.process import acquire_process, release_process

    process = acquire_process(runtime)
    try:
        reports = process.packages
        problems = [
            text
            for spec in specs
            if (text := describe_problem(spec, reports.get(spec.role))) is not None
        ]
    finally:
        release_process(process)
    if problems:
        raise NotADshPluginError("not a DSH plugin package:\n" + "\n".join(problems))
    return reports

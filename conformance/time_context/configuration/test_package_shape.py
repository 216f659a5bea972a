"""The time-context package as a Cordis loader imports it: the README's
loader entry names the package and hands it a config (TC-004 to TC-008), and
a separately published ./invariant companion checks its readings (TC-028).
This expresses the official build's runtime test PG-01
(docs/official-runtime-tests.md); the exact exports are pinned to the
official build (TC-EXPORT-SHAPE).
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned, readme
from pytest_dsh.driving.seams import require_seam

pytestmark = [pytest.mark.dsh_requires("time-context")]


@pytest.mark.spec("TC-004", "TC-006")
def test_the_package_main_is_a_plugin_the_loader_configures(dsh_host):
    require_seam(dsh_host, "export-shape")
    shape = dsh_host.export_shape("time-context")
    assert shape.form != "none", readme(
        "TC-004", "the package main to export a Cordis plugin the loader entry can name",
        shape)


@pytest.mark.compat("TC-EXPORT-SHAPE")
@pytest.mark.spec("TC-004", "TC-028")
def test_the_package_exports_match_the_official_build(dsh_host):
    require_seam(dsh_host, "export-shape")
    main = dsh_host.export_shape("time-context")
    assert (main.form, main.name, main.inject, main.has_config) == (
        "named-apply", "time-context", ("agents",), True
    ), pinned("TC-EXPORT-SHAPE", "named apply, name, inject and a Config schema", main)
    assert "default" not in main.exports, pinned(
        "TC-EXPORT-SHAPE", "no default export", main.exports)
    if "time-context-invariant" not in dsh_host.available_plugins():
        pytest.skip("the implementation has no time-context ./invariant companion")
    companion = dsh_host.export_shape("time-context-invariant")
    assert (companion.form, companion.name, companion.inject) == (
        "named-apply", "time-context-invariant", ("invariants",)
    ), pinned("TC-EXPORT-SHAPE", "the ./invariant companion's apply, name and inject",
              companion)

"""The tests run against the installed wheel, and the wheel ships every package."""

from __future__ import annotations

import importlib
import importlib.metadata
import pathlib
import sysconfig

import pytest

import pytest_dsh

ROOT = pathlib.Path(__file__).parents[2]
FOLDERS = {
    "pytest_dsh": "pytest_dsh",
    "reference": "dsh_reference",
    "conformance": "dsh_conformance",
    "fixtures": "dsh_fixtures",
    "specification": "dsh_spec",
}


def _source_packages() -> set[str]:
    names = set()
    for folder, import_name in FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            names.add(".".join([import_name, *relative.parts]))
    return names


SITE = pathlib.Path(sysconfig.get_paths()["purelib"]).resolve()


def test_the_kit_is_imported_from_site_packages_not_the_checkout() -> None:
    assert SITE in pathlib.Path(pytest_dsh.__file__).resolve().parents


@pytest.mark.parametrize("package", sorted(_source_packages()))
def test_every_source_package_is_installed(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__file__ is not None
    assert SITE in pathlib.Path(module.__file__).resolve().parents


def test_entry_points_register_the_plugin_and_the_reference() -> None:
    pytest11 = {p.name: p.value for p in importlib.metadata.entry_points(group="pytest11")}
    impls = {p.name: p.value for p in importlib.metadata.entry_points(group="dsh.impl")}
    assert pytest11["dsh"] == "pytest_dsh.pytest_plugin.plugin"
    assert impls["reference"] == "dsh_reference.implementation:IMPLEMENTATION"


def test_installed_version_matches_the_package() -> None:
    assert importlib.metadata.version("pytest-dsh") == pytest_dsh.__version__

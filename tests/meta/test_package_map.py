"""``docs/package-map.md`` is the one-page map of the code: every module of the
kit, the spec room and the bridge is named in it, so a new module cannot be
added without a place on the map. Level: project docs (no README sentence)."""

from __future__ import annotations

import pathlib

import pytest

ROOT = pathlib.Path(__file__).parents[2]
MAP = (ROOT / "docs" / "package-map.md").read_text("utf-8")


def _modules() -> list[pathlib.Path]:
    found = [*ROOT.glob("pytest_dsh/**/*.py"), *ROOT.glob("specification/*.py"),
             *ROOT.glob("bridge/*.mjs"), *ROOT.glob("bridge/lib/*.mjs")]
    return sorted(path for path in found if path.name != "__init__.py")


def test_there_are_modules_to_check() -> None:
    assert len(_modules()) > 80


@pytest.mark.parametrize("path", _modules(), ids=lambda path: str(path.relative_to(ROOT)))
def test_every_module_is_on_the_map(path: pathlib.Path) -> None:
    stem = path.stem
    forms = (f"`{stem}`", f"{stem}{path.suffix}", f"/{stem}`", f".{stem}`")
    named = any(form in MAP for form in forms)
    assert named, f"{path.relative_to(ROOT)} is not named in docs/package-map.md"

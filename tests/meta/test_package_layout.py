"""The kit's rooms depend on each other in one direction only
(docs/package-map.md). Read from the import statements of the installed
package, lazy ones inside functions included, so a shortcut taken in a
function body is caught as surely as one at the top of a module.
Level: kit structure (no README sentence)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import pytest_dsh

PACKAGE = Path(pytest_dsh.__file__).parent
REFERENCE = Path(__import__("dsh_reference").__file__).parent

#: Room -> the rooms its modules may import. A room is a subpackage, or one of
#: the top-level modules (errors, expectations, implementations, the package
#: root itself for ``__version__``).
ALLOWED: dict[str, set[str]] = {
    "contract": set(),
    "errors": set(),
    "expectations": {"errors"},
    "driving": {"contract", "errors"},
    "fake_host": {"contract", "driving", "errors"},
    "npm": {"root", "contract", "driving", "errors", "expectations"},
    "official": {"npm", "contract", "driving", "errors", "expectations"},
    "implementations": {"contract", "driving", "errors", "fake_host"},
    "strategies": {"contract"},
    "pytest_plugin": {
        "root", "contract", "driving", "errors", "expectations", "fake_host", "implementations",
        "npm", "official", "strategies",
    },
    # The package root imports lazily (module __getattr__) what it exports.
    "root": {
        "contract", "driving", "errors", "fake_host", "implementations", "npm",
    },
}


def _room(module: str) -> str:
    parts = module.split(".")
    if parts == ["pytest_dsh"]:
        return "root"
    return parts[1]


def _module_name(path: Path, root: Path, package: str) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def _imports(path: Path, module: str) -> Iterator[tuple[int, str]]:
    """(line, imported module) for every import in ``path``, relative ones resolved."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                yield node.lineno, ".".join(base + ([node.module] if node.module else []))
            elif node.module is not None:
                yield node.lineno, node.module
                # ``from pytest_dsh import npm`` imports the room npm.
                if node.module == "pytest_dsh":
                    for alias in node.names:
                        name = alias.name
                        if (PACKAGE / name).exists() or (PACKAGE / f"{name}.py").exists():
                            yield node.lineno, f"pytest_dsh.{name}"


def _kit_modules() -> list[tuple[str, Path]]:
    return sorted(
        (_module_name(path, PACKAGE, "pytest_dsh"), path) for path in PACKAGE.rglob("*.py")
    )


def test_the_rooms_the_layout_names_are_all_there() -> None:
    rooms = {_room(module) for module, _ in _kit_modules()}
    assert rooms == set(ALLOWED)


def test_each_room_imports_only_the_rooms_below_it() -> None:
    crossings = []
    for module, path in _kit_modules():
        room = _room(module)
        for line, imported in _imports(path, module):
            if not imported.startswith("pytest_dsh"):
                continue
            target = _room(imported)
            if target != room and target not in ALLOWED[room]:
                crossings.append(f"{path.relative_to(PACKAGE)}:{line} ({room}) imports {imported}")
    assert crossings == []


#: Rooms that never import pytest: pytest is the pytest side's business, so a
#: module that runs without it (the version matrix, an npm install, a host)
#: lives outside ``pytest_plugin``.
PYTEST_FREE = {
    "contract", "errors", "expectations", "fake_host", "implementations", "npm", "official",
    "strategies",
}


def test_only_the_pytest_side_imports_pytest() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{line} imports {imported}"
        for module, path in _kit_modules()
        if _room(module) in PYTEST_FREE
        for line, imported in _imports(path, module)
        if imported.split(".")[0] in ("pytest", "_pytest")
    ]
    assert found == []


def test_the_rooms_form_no_cycle() -> None:
    # The root is the facade: it exports from the rooms on first use, and a
    # room that names it reads only ``__version__``. Without it, no room may
    # reach itself through the rooms it is allowed to import.
    def reach(room: str) -> set[str]:
        seen: set[str] = set()
        todo = [room]
        while todo:
            for other in ALLOWED[todo.pop()] - {"root"}:
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        return seen

    assert [room for room in ALLOWED if room != "root" and room in reach(room)] == []


@pytest.mark.parametrize(
    "path", sorted(REFERENCE.rglob("*.py")), ids=lambda p: str(p.relative_to(REFERENCE))
)
def test_the_reference_plugins_import_only_the_contract(path: Path) -> None:
    """A plugin depends on the contract, never on the test kit: the reference's
    plugin modules import ``pytest_dsh.contract`` (and its small pieces) only.
    Its implementation descriptor is the one module that names the kit."""
    module = _module_name(path, REFERENCE, "dsh_reference")
    kit = {imported for _, imported in _imports(path, module) if imported.startswith("pytest_dsh")}
    if module == "dsh_reference.implementation":
        assert kit == {"pytest_dsh"}
    else:
        assert {_room(imported) for imported in kit} <= {"contract"}, kit


CONFORMANCE = Path(__import__("dsh_conformance").__file__).parent


@pytest.mark.parametrize(
    "path", sorted(CONFORMANCE.rglob("*.py")), ids=lambda p: str(p.relative_to(CONFORMANCE))
)
def test_the_suite_talks_to_the_driver_api_never_to_a_host(path: Path) -> None:
    """The same suite runs on every host, so it imports the contract, the
    driver API and the public names, never a host's own modules."""
    module = _module_name(path, CONFORMANCE, "dsh_conformance")
    rooms = {
        _room(imported)
        for _, imported in _imports(path, module)
        if imported.startswith("pytest_dsh")
    }
    assert rooms <= {"root", "contract", "driving", "errors", "implementations", "strategies"}

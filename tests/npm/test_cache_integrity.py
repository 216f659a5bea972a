"""The npm cache is the operator's folder: a file truncated or removed in a
cached install, a damaged host base or a malformed install record is found
when the install is reused (its content manifest) and the install is built
again, never reported as the author's fault and never copied into a new
install. Pins the kit's own behaviour (no README sentence covers the cache).

Real installs are slow: the module installs the host and one package once;
each test damages that cache and lets the kit repair it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from pytest_dsh.npm import (
    NodeImplementation,
    NpmInstallError,
    NpmSetupError,
    install_host,
    install_packages,
    parse_spec,
)
from pytest_dsh.npm._install import CONTENT, MANIFEST, _locked, _pinned, write_records

pytestmark = pytest.mark.dsh_wall_budget(900)

PACKAGE = "acme-cache-integrity"
ENTRY = Path("node_modules", PACKAGE, "index.js")
HOST_FILE = Path("node_modules", "@deepseek-ai", "dsh-agent", "lib", "index.js")
_PLUGIN = """\
export const name = 'acme-cache-integrity'
export function apply(ctx) {
  // Long enough that half of it is not a module.
  ctx.on('ready', () => {})
}
"""


def _plugin(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    manifest = {"name": name, "version": "1.0.0", "type": "module", "main": "index.js"}
    (folder / "package.json").write_text(json.dumps(manifest))
    (folder / "index.js").write_text(_PLUGIN.replace("acme-cache-integrity", name))
    return folder


@pytest.fixture(scope="module")
def cache(tmp_path_factory, kit) -> tuple[Path, Path]:
    """A cache with the default host and one folder package installed."""
    kit.require_npm()
    root = tmp_path_factory.mktemp("npm-cache")
    install_host(cache_root=root)
    plugin = _plugin(tmp_path_factory.mktemp("plugin"), PACKAGE)
    install_packages([parse_spec("schedule", str(plugin))], cache_root=root)
    return root, plugin


def _prepared(root: Path, plugin: Path) -> tuple[NodeImplementation, list[str]]:
    said: list[str] = []
    implementation = NodeImplementation(
        "acme", "1.0.0", packages={"schedule": str(plugin)}, cache_dir=root,
        capabilities=frozenset({"schedule", "process-zone"}),
    )
    implementation.prepare(progress=said.append)
    return implementation, said


def _install_of(root: Path, plugin: Path) -> Path:
    return install_packages([parse_spec("schedule", str(plugin))], cache_root=root).folder


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    assert len(data) > 20
    path.write_bytes(data[: len(data) // 2])


def test_a_sound_cached_install_is_reused_without_npm(cache):
    root, plugin = cache
    folder = _install_of(root, plugin)
    before = (folder / CONTENT).stat().st_mtime_ns
    _, said = _prepared(root, plugin)
    assert said == []
    assert (folder / CONTENT).stat().st_mtime_ns == before


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda folder: _truncate(folder / ENTRY), "truncated"),
        (lambda folder: (folder / ENTRY).unlink(), "missing"),
        (lambda folder: shutil.rmtree(folder / HOST_FILE.parent.parent), "missing"),
    ],
    ids=["truncated-package-file", "removed-package-file", "removed-host-package"],
)
def test_a_damaged_cached_install_is_built_again_never_blamed_on_the_package(
    cache, damage, problem
):
    root, plugin = cache
    folder = _install_of(root, plugin)
    sound = (folder / ENTRY).read_bytes()
    damage(folder)
    _, said = _prepared(root, plugin)  # no NotADshPluginError: the cache was at fault
    assert (folder / ENTRY).read_bytes() == sound
    assert (folder / HOST_FILE).is_file()
    damaged = [line for line in said if "is damaged" in line]
    assert len(damaged) == 1 and str(folder) in damaged[0] and problem in damaged[0], said


@pytest.mark.parametrize(
    "record",
    [b"[]", b'{"format": 3, "host": "0.1.0-rc.8", "packages": []}', b'{"format":', b"\xff\xfe"],
    ids=["list", "packages-not-a-map", "truncated", "not-utf-8"],
)
def test_a_malformed_install_record_is_an_absent_install(tmp_path, record):
    folder = tmp_path / "acme-0123456789abcdef"
    folder.mkdir()
    (folder / MANIFEST).write_bytes(record)
    assert _pinned(folder) is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_an_install_record_that_is_a_fifo_is_an_absent_install(tmp_path):
    folder = tmp_path / "acme-0123456789abcdef"
    folder.mkdir()
    os.mkfifo(folder / MANIFEST)
    assert _pinned(folder) is None


def test_a_complete_record_without_its_content_manifest_is_an_absent_install(tmp_path):
    folder = tmp_path / "acme-0123456789abcdef"
    folder.mkdir()
    (folder / "index.js").write_text("export {}\n")
    write_records(folder, {"format": 3, "host": "0.1.0-rc.8", "packages": {}})
    assert _pinned(folder) is not None
    _pins_release(folder)
    (folder / CONTENT).unlink()
    assert _pinned(folder) is None
    write_records(folder, {"format": 3, "host": "0.1.0-rc.8", "packages": {}})
    (folder / CONTENT).write_text('{"format": 1, "files": {"../outside": ["f", 1, "00", 0]}}')
    assert _pinned(folder) is None


def test_a_file_edited_in_place_is_damage_and_a_file_only_touched_is_not(tmp_path):
    folder = tmp_path / "acme-0123456789abcdef"
    folder.mkdir()
    (folder / "index.js").write_text("export const a = 1\n")
    write_records(folder, {"format": 3, "host": "0.1.0-rc.8", "packages": {}})
    stamp = (folder / "index.js").stat().st_mtime_ns
    os.utime(folder / "index.js", ns=(stamp + 10**9, stamp + 10**9))
    assert _pinned(folder) is not None, "same content, new time: sound"
    _pins_release(folder)
    (folder / "index.js").write_text("export const a = 2\n")  # the same size
    assert _pinned(folder) is None


def test_an_install_served_by_a_missing_or_damaged_base_is_damaged_with_it(tmp_path):
    base = tmp_path / "base-0.1.0-rc.8-0123456789abcdef"
    base.mkdir()
    (base / "host.mjs").write_text("export {}\n")
    write_records(base, {"format": 3, "base": True, "host": "0.1.0-rc.8"})
    folder = tmp_path / "acme-0123456789abcdef"
    folder.mkdir()
    record = {"format": 3, "host": "0.1.0-rc.8", "packages": {}, "runtime": str(base)}
    write_records(folder, record)
    assert _pinned(folder) is not None
    _pins_release(folder)
    (base / "host.mjs").unlink()
    assert _pinned(folder) is None
    # A record naming itself as its base is checked once, not for ever.
    write_records(folder, {**record, "runtime": str(folder)})
    assert _pinned(folder) is not None
    _pins_release(folder)


def _pins_release(folder: Path) -> None:
    from pytest_dsh.npm import _install

    handle = _install._pins.pop(folder)
    handle.close()


def test_a_malformed_record_in_the_cache_is_installed_again(cache):
    root, plugin = cache
    folder = _install_of(root, plugin)
    (folder / MANIFEST).write_text("[]")
    _, said = _prepared(root, plugin)
    assert json.loads((folder / MANIFEST).read_text())["packages"] == {"schedule": PACKAGE}
    assert any("is damaged" in line and MANIFEST in line for line in said), said


def test_a_damaged_base_is_built_again_before_a_new_install_copies_it(cache, tmp_path):
    root, _ = cache
    base = install_host(cache_root=root)
    sound = (base / HOST_FILE).read_bytes()
    _truncate(base / HOST_FILE)
    other = _plugin(tmp_path, "acme-cache-integrity-other")
    _, said = _prepared(root, other)
    assert (base / HOST_FILE).read_bytes() == sound
    installed = _install_of(root, other)
    assert (installed / HOST_FILE).read_bytes() == sound
    assert any("is damaged" in line and str(base) in line for line in said), said


def test_a_cache_root_that_is_a_file_is_one_closed_error_naming_it(tmp_path):
    root = tmp_path / "not-a-folder"
    root.write_text("x")
    folder = tmp_path / "plugin"
    folder.mkdir()
    (folder / "package.json").write_text(json.dumps({"name": "acme", "version": "1.0.0"}))
    with pytest.raises(NpmInstallError, match=f"the npm cache {root} cannot be used: it is not "
                       r"a folder \(it is a regular file\)"):
        install_packages([parse_spec("schedule", str(folder))], cache_root=root)
    assert root.read_text() == "x"


def test_a_lock_file_planted_as_a_symlink_never_writes_its_target(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    lock = tmp_path / "cache" / ".0123456789abcdef.lock"
    lock.parent.mkdir()
    lock.symlink_to(victim)
    with _locked(lock):
        pass
    assert victim.read_text() == "keep me"
    assert lock.is_file() and not lock.is_symlink()


def test_a_package_that_ends_the_process_on_import_is_one_closed_error(cache, tmp_path):
    root, _ = cache
    plugin = _plugin(tmp_path, "acme-cache-integrity-exits")
    (plugin / "index.js").write_text("process.exit(3)\n")
    implementation = NodeImplementation(
        "acme", "1.0.0", packages={"schedule": str(plugin)}, cache_dir=root
    )
    with pytest.raises(NpmSetupError, match=r"the bridge could not start with schedule=.*"
                       r"ends the process.*exited \(code 3\)"):
        implementation.prepare()

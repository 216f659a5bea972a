"""A parallel run (pytest-xdist) loads one install: the one its controller
resolved. A worker never resolves its own, so a package folder edited after
the controller resolved (in the seconds before the workers start) cannot give
the workers other code. Pins the kit's own behaviour (no README sentence
covers installs).

The edit happens in ``pytest_xdist_setupnodes``, the controller's hook after
it configured (and resolved the install) and before any worker starts:
deterministic, no sleep."""

from __future__ import annotations

import json
import os
import sys

import kit_child_processes as children
import pytest

pytestmark = pytest.mark.dsh_wall_budget(900)

NAME = "worker-probe-plugin"

#: Loaded with -p on the controller (and the workers, where it does nothing).
_EDIT = """
import os, pathlib

def pytest_xdist_setupnodes(config, specs):
    index = pathlib.Path(os.environ["DSH_TEST_PLUGIN"]) / "index.js"
    index.write_text(index.read_text().replace("edition one", "edition two"))
"""

#: Each test records the install its worker loads and the plugin code in it.
_PROBE = """
import json, os, pathlib
import pytest

@pytest.mark.parametrize("n", range(20))
def test_probe(dsh_implementation, n):
    runtime = dsh_implementation.prepare()
    code = (runtime.folder / "node_modules" / "NAME" / "index.js").read_text()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    out = pathlib.Path(os.environ["DSH_TEST_OUT"]) / f"{worker}-{n}.json"
    out.write_text(json.dumps({"folder": str(runtime.folder), "code": code}))
""".replace("NAME", NAME)


def test_workers_load_the_install_the_controller_resolved(kit, tmp_path):
    kit.require_npm()
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "package.json").write_text(json.dumps(
        {"name": NAME, "version": "1.0.0", "type": "module", "main": "index.js"}
    ))
    (plugin / "index.js").write_text("// edition one\nexport function apply() {}\n")
    (tmp_path / "edit_after_resolve.py").write_text(_EDIT)
    (tmp_path / "test_probe.py").write_text(_PROBE)
    out = tmp_path / "out"
    out.mkdir()
    cache = tmp_path / "cache"
    env = kit.user_env(
        DSH_TEST_PLUGIN=str(plugin), DSH_TEST_OUT=str(out),
        PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])),
    )
    done = children.run(
        [sys.executable, "-m", "pytest", "test_probe.py", "-p", "no:randomly",
         "-p", "edit_after_resolve", "-n", "2", "--dsh-impl=npm",
         "--dsh-npm=schedule=./plugin", f"--dsh-npm-cache={cache}"],
        cwd=tmp_path, env=env, capture_output=True, text=True,
    )
    output = done.stdout + done.stderr
    assert done.returncode in (0, 6), output[-3000:]
    assert "edition two" in (plugin / "index.js").read_text()  # the edit did happen
    records = [json.loads(path.read_text()) for path in sorted(out.iterdir())]
    workers = {path.name.split("-")[0] for path in out.iterdir()}
    assert workers == {"gw0", "gw1"}, workers
    assert len(records) == 20
    assert {record["folder"] for record in records} == {
        str(next(cache.glob(f"{NAME}-*")))
    }
    assert all("edition one" in record["code"] for record in records)
    # Nothing installed the edited folder: one install of the package.
    assert len(list(cache.glob(f"{NAME}-*"))) == 1

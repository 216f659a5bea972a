"""Every set-up problem of the npm path stops the run once, as a usage error
naming the problem, before any test runs (never one error per test). Pins the
kit's own behaviour; no README sentence covers it."""

from __future__ import annotations

import json
import os
import stat
import sys

import kit_child_processes as children
import pytest

from pytest_dsh.npm import BridgeRuntime, NodeTooOldError, NotADshPluginError, PackageSpec
from pytest_dsh.npm._shape import check_packages
from pytest_dsh.npm.bridge import checked_node, locate_bridge

USAGE_ERROR = 4
SELECTION = ["--pyargs", "dsh_conformance.schedule.management_tools.test_management_tools"]


def _plugin_folder(root, name, *, index="export function apply() {}\n", peers=None):
    folder = root / name
    folder.mkdir(parents=True)
    manifest = {"name": name, "version": "1.0.0", "type": "module", "main": "index.js"}
    if peers:
        manifest["peerDependencies"] = peers
    (folder / "package.json").write_text(json.dumps(manifest))
    (folder / "index.js").write_text(index)
    return folder


def _pytest(args, *, cwd, env):
    done = children.run(
        [sys.executable, "-m", "pytest", *SELECTION, "-p", "no:randomly", *args],
        cwd=cwd, env=env, capture_output=True, text=True,
    )
    return done.returncode, done.stdout + done.stderr


def _assert_one_usage_error(returncode, output, *fragments):
    assert returncode == USAGE_ERROR, output[-3000:]
    assert output.count("ERROR: --dsh-impl:") == 1, output[-3000:]
    assert " passed" not in output and " failed" not in output
    for fragment in fragments:
        assert fragment in output, output[-3000:]


def test_npm_missing_is_one_usage_error(tmp_path, kit):
    folder = _plugin_folder(tmp_path, "acme-dsh-schedule")
    empty = tmp_path / "bin"
    empty.mkdir()
    env = kit.user_env(PATH=str(empty), DSH_NPM_CACHE=str(tmp_path / "cache"))
    env.pop("DSH_NPM", None)
    returncode, output = _pytest(
        ["--dsh-impl=npm", "--dsh-npm", f"schedule={folder}"], cwd=tmp_path, env=env
    )
    _assert_one_usage_error(returncode, output, "npm was not found on PATH")


def test_a_missing_local_package_is_one_usage_error(tmp_path, kit):
    returncode, output = _pytest(
        ["--dsh-impl=npm", "--dsh-npm", "schedule=./no-such-plugin"],
        cwd=tmp_path,
        env=kit.user_env(),
    )
    _assert_one_usage_error(returncode, output, "schedule=./no-such-plugin: no such folder")


def test_npm_options_need_the_npm_implementation(tmp_path, kit):
    returncode, output = _pytest(["--dsh-impl=npm"], cwd=tmp_path, env=kit.user_env())
    _assert_one_usage_error(returncode, output, "--dsh-npm schedule=SPEC")
    returncode, output = _pytest(
        ["--dsh-impl=reference", "--dsh-npm", "schedule=x"], cwd=tmp_path, env=kit.user_env()
    )
    _assert_one_usage_error(returncode, output, "--dsh-npm only applies with --dsh-impl=npm")


@pytest.mark.parametrize(
    ("case", "fragments"),
    [
        ("registry-404", ["npm cannot find a package", "dsh-no-such-plugin-for-pytest-dsh"]),
        ("peer-conflict", ["incompatible peer version", "@deepseek-ai/dsh-session"]),
        ("not-a-plugin", ["is not a DSH plugin", "expected: a Cordis plugin",
                          "found: exports answer (number)"]),
    ],
)
def test_npm_install_problems_are_one_usage_error(tmp_path, kit, case, fragments):
    kit.require_npm()
    if case == "registry-404":
        spec = "@deepseek-ai/dsh-no-such-plugin-for-pytest-dsh@1.0.0"
    elif case == "peer-conflict":
        peers = {"@deepseek-ai/dsh-session": "^9.0.0"}
        spec = str(_plugin_folder(tmp_path, "acme-peers", peers=peers))
    else:
        spec = str(_plugin_folder(tmp_path, "acme-answer", index="export const answer = 42\n"))
    returncode, output = _pytest(
        ["--dsh-impl=npm", "--dsh-npm", f"schedule={spec}"], cwd=tmp_path, env=kit.user_env()
    )
    _assert_one_usage_error(returncode, output, *fragments)


def test_the_shape_check_quotes_the_expected_and_the_found_exports(kit):
    """On the prebuilt bridge: a host package that is no plugin, and one that is."""
    try:
        folder = locate_bridge()
    except Exception as exc:  # the checkout's bridge is not installed
        if os.environ.get("CI"):
            raise
        pytest.skip(str(exc))
    not_a_plugin = "@sinonjs/fake-timers"
    runtime = BridgeRuntime(folder, (("schedule", not_a_plugin),))
    spec = PackageSpec("schedule", "x", not_a_plugin, None, "x", "")
    with pytest.raises(NotADshPluginError) as caught:
        check_packages(runtime, [spec])
    text = str(caught.value)
    assert f"schedule=x (package {not_a_plugin}@15.5.0) is not a DSH plugin" in text
    assert "expected: a Cordis plugin" in text
    assert "found: exports createClock (function), default (object), install" in text
    official = "@deepseek-ai/dsh-schedule"
    usable = BridgeRuntime(folder, (("schedule", official),))
    check_packages(usable, [PackageSpec("schedule", "y", official, None, "y", "")])


def _fake_node(tmp_path, version):
    node = tmp_path / "node"
    node.write_text(f"#!/bin/sh\necho {version}\n")
    node.chmod(node.stat().st_mode | stat.S_IEXEC)
    return node


def test_a_too_old_node_is_refused_with_its_version(tmp_path, monkeypatch):
    monkeypatch.setenv("DSH_NODE", str(_fake_node(tmp_path, "v18.19.1")))
    with pytest.raises(NodeTooOldError, match=r"is 18\.19\.1; the bridge needs >= 20\.0\.0"):
        checked_node(tmp_path)


def test_a_too_old_node_is_one_usage_error(tmp_path, kit):
    kit.require_npm()
    env = kit.user_env(DSH_NODE=str(_fake_node(tmp_path, "v16.20.2")))
    returncode, output = _pytest(
        ["--dsh-impl=npm", "--dsh-npm", f"schedule={kit.EXAMPLE}"], cwd=tmp_path, env=env
    )
    _assert_one_usage_error(returncode, output, "is 16.20.2; the bridge needs >= 20.0.0")


def test_the_ini_twins_name_the_packages_relative_to_the_ini_file(tmp_path, kit):
    project = tmp_path / "project"
    project.mkdir()
    (project / "pytest.ini").write_text(
        "[pytest]\ndsh_impl = npm\ndsh_npm =\n    schedule=./no-such-plugin\n"
    )
    returncode, output = _pytest([], cwd=project, env=kit.user_env())
    _assert_one_usage_error(
        returncode, output, f"no such folder or tarball ({project / 'no-such-plugin'})"
    )

"""DSH host profiles (``--dsh-host``): one pinned table, a lockfile per
profile that installs exactly it, and the official build run on a host other
than the one the bridge pins. Pins the kit's own behaviour (no README
sentence covers the host the plugins run on)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import kit_child_processes as children
import pytest

from pytest_dsh.npm import (
    DEFAULT_HOST,
    HOST_PROFILES,
    UnknownHostError,
    host_profile,
    install_host,
)
from pytest_dsh.npm.hosts import lock_path, profile_manifest

pytestmark = pytest.mark.dsh_wall_budget(900)

BRIDGE = Path(__file__).resolve().parents[2] / "bridge"
NEWER = "0.1.1-rc.2"


def _locked_versions(lock: dict) -> dict[str, str]:
    return {
        path.removeprefix("node_modules/"): entry["version"]
        for path, entry in lock["packages"].items()
        if path.startswith("node_modules/") and "/node_modules/" not in path[len("node_modules/"):]
    }


def test_the_default_profile_is_what_the_bridge_pins():
    profile = host_profile()
    assert profile.version == DEFAULT_HOST == "0.1.0-rc.8"
    manifest = json.loads((BRIDGE / "package.json").read_text())
    assert profile_manifest(profile, manifest) == manifest
    pinned = {name: version for name, version in manifest["dependencies"].items()
              if name in profile.packages}
    assert pinned.items() <= profile.packages.items()


@pytest.mark.parametrize("version", sorted(HOST_PROFILES))
def test_each_profile_lock_installs_exactly_the_table(version):
    profile = HOST_PROFILES[version]
    lock = json.loads(lock_path(profile, BRIDGE).read_text())
    manifest = profile_manifest(profile, json.loads((BRIDGE / "package.json").read_text()))
    # npm ci refuses a lock that does not match its package.json.
    assert lock["packages"][""]["dependencies"] == manifest["dependencies"]
    assert lock["packages"][""].get("optionalDependencies") == manifest.get(
        "optionalDependencies"
    )
    installed = _locked_versions(lock)
    assert {name: installed.get(name) for name in profile.packages} == dict(profile.packages)
    # Every DSH package in the tree is a host package of the table (or a plugin
    # the default bridge serves itself).
    dsh = {name for name in installed if name.startswith("@deepseek-ai/dsh-")}
    assert dsh - set(profile.packages) <= {
        "@deepseek-ai/dsh-schedule", "@deepseek-ai/dsh-time-context"
    }


def test_the_newer_profile_moves_only_the_packages_published_at_its_version():
    profile = host_profile(NEWER)
    newer = {name for name, version in profile.packages.items() if version == NEWER}
    assert newer == {f"@deepseek-ai/dsh-{name}" for name in ("agent", "session", "llm",
                                                              "invariants")}
    assert profile.peer_overrides and not host_profile().peer_overrides
    assert profile.describe() == (
        "DSH host 0.1.1-rc.2 (dsh-agent, dsh-invariants, dsh-llm, dsh-session; "
        "others 0.1.0-rc.8)"
    )
    assert host_profile().describe() == "DSH host 0.1.0-rc.8"


def test_the_older_profiles_take_the_newest_package_not_newer_than_the_host():
    rc6, rc7 = host_profile("0.1.0-rc.6"), host_profile("0.1.0-rc.7")
    jsonl = "@deepseek-ai/dsh-session-persistence-jsonl"
    # dsh-session-persistence-jsonl was first published at rc.8: the one exception.
    assert {name for name, version in rc6.packages.items() if version != "0.1.0-rc.6"} == {
        "@deepseek-ai/cordis", jsonl
    }
    assert rc6.describe() == "DSH host 0.1.0-rc.6 (except dsh-session-persistence-jsonl 0.1.0-rc.8)"
    assert rc7.describe() == (
        "DSH host 0.1.0-rc.7 (except dsh-agent-loop, dsh-session-persistence, dsh-settings "
        "0.1.0-rc.6; dsh-session-persistence-jsonl 0.1.0-rc.8)"
    )
    # jsonl rc.8 asks ^0.1.0-rc.8 of its peers: only overrides install it on these hosts.
    assert rc6.peer_overrides and rc7.peer_overrides


def test_an_unknown_host_names_the_known_ones():
    with pytest.raises(UnknownHostError, match=r"no DSH host profile '0\.9'; known profiles: "
                       r"0\.1\.0-rc\.6, 0\.1\.0-rc\.7, 0\.1\.0-rc\.8, 0\.1\.1-rc\.2"):
        host_profile("0.9")


def test_the_table_matches_the_registry(kit):
    """Every pinned version exists on the registry (``npm view``)."""
    npm = kit.require_npm()
    wanted: dict[str, set[str]] = {}
    for profile in HOST_PROFILES.values():
        for name, version in profile.packages.items():
            wanted.setdefault(name, set()).add(version)
    for name, versions in sorted(wanted.items()):
        done = children.run([npm, "view", name, "versions", "--json"],
                            capture_output=True, text=True, timeout=300, check=True)
        published = set(json.loads(done.stdout))
        assert versions <= published, (name, versions - published)


def _pytest(args: list[str], *, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    done = children.run(
        [sys.executable, "-m", "pytest", "--pyargs",
         "dsh_conformance.schedule.management_tools.test_management_tools", "-p", "no:randomly",
         *args],
        cwd=cwd, env=env, capture_output=True, text=True,
    )
    return done.returncode, done.stdout + done.stderr


def test_the_official_build_runs_on_the_newer_host_and_the_header_names_it(kit, tmp_path):
    kit.require_npm()
    returncode, output = _pytest(
        ["--dsh-impl=official", f"--dsh-host={NEWER}"], cwd=tmp_path, env=kit.user_env()
    )
    assert returncode == 0, output[-3000:]
    assert (
        "dsh: implementation official 0.1.0-rc.8 on DSH host 0.1.1-rc.2 "
        "(dsh-agent, dsh-invariants, dsh-llm, dsh-session; others 0.1.0-rc.8)"
    ) in output
    assert "verdict: conforms" in output


def test_a_host_for_a_python_implementation_is_a_usage_error(kit, tmp_path):
    returncode, output = _pytest(
        ["--dsh-impl=reference", f"--dsh-host={NEWER}"], cwd=tmp_path, env=kit.user_env()
    )
    assert returncode == 4, output[-3000:]
    assert "--dsh-host only applies to an npm implementation" in output


@pytest.mark.parametrize("version", sorted(set(HOST_PROFILES) - {DEFAULT_HOST}))
def test_install_host_returns_a_ready_host_folder(kit, tmp_path, version):
    kit.require_npm()
    folder = install_host(version, cache_root=tmp_path)
    assert install_host(version, cache_root=tmp_path) == folder
    for name, pinned in HOST_PROFILES[version].packages.items():
        installed = json.loads((folder / "node_modules" / name / "package.json").read_text())
        assert installed["version"] == pinned, name
    assert (folder / "server.mjs").is_file()


def test_dsh_conformance_passes_the_host_and_the_scripts_switch_to_pytest():
    from pytest_dsh.pytest_plugin.conformance_cli import pytest_arguments

    args, _ = pytest_arguments(["--impl", "official", "--host", NEWER, "--npm-scripts"], cpus=1)
    assert f"--dsh-host={NEWER}" in args and "--dsh-npm-scripts" in args
    plain, _ = pytest_arguments(["--impl", "official"], cpus=1)
    assert not any(arg.startswith(("--dsh-host", "--dsh-npm-scripts")) for arg in plain)

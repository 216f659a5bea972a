"""Peer ranges of the packages under test against the DSH host profile: an
excluding range is an error where nothing overrides the peers, and is named
in the header and the reports where a profile or the implementation forces
the run. Pins the kit's own behaviour (no README sentence covers the host).

The packages are crafted ``package.json`` files in a fake install folder
(the check reads what was installed); the end-to-end run installs one for real."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import kit_child_processes as children
import pytest

from pytest_dsh.npm import PeerConflictError, host_profile
from pytest_dsh.npm._peers import check_peers, npm_semver, peer_mismatches

pytestmark = pytest.mark.dsh_wall_budget(900)

NEWER = "0.1.1-rc.2"
AGENT = "@deepseek-ai/dsh-agent"
SESSION = "@deepseek-ai/dsh-session"


@pytest.fixture
def node(kit) -> Path:
    kit.require_npm()  # npm's semver package answers, run by a node
    found = shutil.which("node")
    if found is None or npm_semver() is None:
        pytest.skip("no node, or no semver package inside npm")
    return Path(found)


def _installed(folder: Path, name: str, peers: dict[str, str]) -> Path:
    package = folder / "node_modules" / name
    package.mkdir(parents=True)
    manifest = {"name": name, "version": "1.0.0", "peerDependencies": peers}
    (package / "package.json").write_text(json.dumps(manifest))
    return folder


@pytest.mark.parametrize(
    ("wanted", "version", "fits"),
    [
        # A prerelease matches only ranges naming a prerelease of its own major.minor.patch.
        ("^0.1.0-rc.8", "0.1.1-rc.2", False),
        (">=0.1.0-rc.8", "0.1.1-rc.2", False),
        ("^0.1.1-rc.2", "0.1.1-rc.2", True),
        ("^0.1.0-rc.6", "0.1.0-rc.8", True),
        ("^0.1.0-rc.8", "0.1.0-rc.6", False),
        ("^0.0.1-rc.1", "0.1.0-rc.8", False),
        ("0.1.0-rc.6 || ^0.1.1-rc.1", "0.1.1-rc.2", True),
        ("*", "0.1.1-rc.2", True),
        ("^4.0.1", "4.0.4", True),
    ],
)
def test_ranges_follow_npm_semantics(tmp_path, node, wanted, version, fits):
    folder = _installed(tmp_path, "plugin", {AGENT: wanted})
    profile = host_profile(NEWER)
    forced = type(profile)(profile.version, {AGENT: version}, profile.lock, True, "")
    found = peer_mismatches(folder, ["plugin"], forced, {}, node=node,
                            semver=npm_semver() or Path())
    assert (found == []) is fits


def test_an_excluding_range_on_an_overridden_profile_is_named(tmp_path, node):
    folder = _installed(tmp_path, "my-plugin", {AGENT: "^0.1.0-rc.8", SESSION: "^0.1.0-rc.8",
                                                "@deepseek-ai/dsh-tools": "^0.1.0-rc.8",
                                                "left-pad": "^1.0.0"})
    notes = check_peers(folder, ["my-plugin"], host_profile(NEWER), {}, node=node)
    assert notes == [
        "peer range ^0.1.0-rc.8 of my-plugin excludes dsh-agent 0.1.1-rc.2, dsh-session "
        "0.1.1-rc.2: run forced by the host profile"
    ]


def test_an_excluding_range_on_the_default_profile_is_an_error(tmp_path, node):
    folder = _installed(tmp_path, "my-plugin", {AGENT: "^0.1.1-rc.2"})
    with pytest.raises(PeerConflictError, match=(
        r"cannot run on DSH host 0\.1\.0-rc\.8: a peer dependency range excludes it "
        r"\(incompatible peer version\):\n  peer range \^0\.1\.1-rc\.2 of my-plugin excludes "
        r"@deepseek-ai/dsh-agent 0\.1\.0-rc\.8"
    )):
        check_peers(folder, ["my-plugin"], host_profile(), {}, node=node)


def test_ranges_the_implementation_overrides_are_named_not_refused(tmp_path, node):
    folder = _installed(tmp_path, "old-plugin", {AGENT: "^0.0.1-rc.1", SESSION: "^0.1.0-rc.8"})
    overrides = {"old-plugin": {AGENT: f"${AGENT}"}}
    assert check_peers(folder, ["old-plugin"], host_profile(), overrides, node=node) == [
        "peer range ^0.0.1-rc.1 of old-plugin excludes dsh-agent 0.1.0-rc.8: run forced by "
        "the implementation's npm overrides"
    ]


def test_fitting_ranges_say_nothing(tmp_path, node):
    folder = _installed(tmp_path, "good", {AGENT: "^0.1.0-rc.6", "@deepseek-ai/cordis": "^4.0.1"})
    assert check_peers(folder, ["good"], host_profile(), {}, node=node) == []


def test_without_npm_semver_the_header_says_the_ranges_went_unchecked(tmp_path, node):
    fake_npm = tmp_path / "bin" / "npm"
    fake_npm.parent.mkdir()
    fake_npm.write_text("")
    folder = _installed(tmp_path, "p", {AGENT: "^9"})
    notes = check_peers(folder, ["p"], host_profile(), {}, node=node, npm=str(fake_npm))
    assert notes == [
        "peer ranges not checked against DSH host 0.1.0-rc.8: npm's semver package was not "
        "found (set DSH_NPM to the npm executable)"
    ]


def _plugin(folder: Path, peers: dict[str, str]) -> Path:
    folder.mkdir(parents=True)
    manifest = {"name": "narrow-peers-plugin", "version": "1.0.0", "type": "module",
                "main": "index.js", "peerDependencies": peers}
    (folder / "package.json").write_text(json.dumps(manifest))
    (folder / "index.js").write_text("export function apply() {}\n")
    return folder


_PROBE = "def test_probe(dsh_implementation):\n    assert dsh_implementation.prepare()\n"


def test_a_forced_run_names_the_range_in_the_header_and_the_reports(kit, tmp_path):
    """The official build's own situation on 0.1.1-rc.2, with a crafted package."""
    kit.require_npm()
    _plugin(tmp_path / "plugin", {AGENT: "^0.1.0-rc.8"})
    (tmp_path / "test_probe.py").write_text(_PROBE)
    done = children.run(
        [sys.executable, "-m", "pytest", "test_probe.py", "-p", "no:randomly",
         "--dsh-impl=npm", "--dsh-npm=schedule=./plugin", f"--dsh-host={NEWER}",
         "--dsh-report=report"],
        cwd=tmp_path, env=kit.user_env(), capture_output=True, text=True,
    )
    output = done.stdout + done.stderr
    assert done.returncode in (0, 6), output[-3000:]
    note = ("peer range ^0.1.0-rc.8 of narrow-peers-plugin excludes dsh-agent 0.1.1-rc.2: "
            "run forced by the host profile")
    assert f"dsh: {note}" in output
    report = tmp_path / "report"
    host = json.loads((report / "report.json").read_text())["implementation"]["host"]
    assert host == {"version": NEWER, "text": host_profile(NEWER).describe(), "notes": [note]}
    for name in ("report.md", "report.html"):
        text = (report / name).read_text()
        assert f"on {host['text']}" in text and note in text, name


def _worker_side(monkeypatch: pytest.MonkeyPatch, checked: list[str]) -> None:
    """No bridge start and a peer check that records that it ran."""
    from pytest_dsh.npm import _implementation

    monkeypatch.setattr(_implementation, "_checked_shape", lambda runtime, specs: {})

    def check(self: object, runtime: object, profile: object) -> list[str]:
        checked.append("checked")
        return ["the worker's own note"]

    monkeypatch.setattr(_implementation.NodeImplementation, "_checked_peers", check)


def test_a_worker_takes_its_controllers_peer_notes_and_runs_no_check(monkeypatch, tmp_path):
    from pytest_dsh.npm._implementation import NodeImplementation
    from pytest_dsh.npm._install import BridgeRuntime

    checked: list[str] = []
    _worker_side(monkeypatch, checked)
    runtime = BridgeRuntime(tmp_path, (("schedule", "some-plugin"),))
    given = NodeImplementation(name="p", version="1", packages={"schedule": "some-plugin@1.0.0"})
    assert given.prepare(installed=runtime, checked_peers=["the controller's note"]) is runtime
    assert (checked, given.peer_notes()) == ([], ("the controller's note",))
    # Without the controller's notes (an older controller) it checks as before.
    again = NodeImplementation(name="p", version="1", packages={"schedule": "some-plugin@1.0.0"})
    again.prepare(installed=runtime)
    assert (checked, again.peer_notes()) == (["checked"], ("the worker's own note",))


def test_the_controller_hands_its_peer_notes_down_with_the_install(monkeypatch, tmp_path):
    from types import SimpleNamespace

    from pytest_dsh.npm._implementation import NodeImplementation
    from pytest_dsh.npm._install import BridgeRuntime
    from pytest_dsh.pytest_plugin import npm_options

    _worker_side(monkeypatch, [])
    runtime = BridgeRuntime(tmp_path, (("schedule", "some-plugin"),))
    controller = NodeImplementation(
        name="p", version="1", packages={"schedule": "some-plugin@1.0.0"}
    )
    controller.prepare(installed=runtime)
    worker = SimpleNamespace(workerinput={"dsh": npm_options.handed_down(controller)})
    assert npm_options._controller_install(worker) == runtime  # type: ignore[arg-type]
    assert npm_options._controller_peer_notes(worker) == ["the worker's own note"]  # type: ignore[arg-type]

"""Every patch of the DSH host is in the table of ``bridge/lib/patches.mjs``:
made through it, documented beside it, and loud when a host lacks its target."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_dsh.npm._install import bridge_source
from pytest_dsh.npm.bridge import BridgeProcess, locate_node
from pytest_dsh.npm.bridge.channel import BridgeStartError
from pytest_dsh.official import IMPLEMENTATION

BRIDGE = bridge_source()
TABLE = BRIDGE / "lib" / "patches.mjs"
# A patch made by hand: an assignment to a prototype, a global, or a property defined anew.
RAW_PATCH = re.compile(
    r"\.prototype\.\w+\s*=[^=]|\bproto\.\w+\s*=[^=]|globalThis\.[\w.]+\s*=[^=]"
    r"|\b(?:Intl\.DateTimeFormat|Date\.now|Promise\.withResolvers|crypto\.randomUUID)\s*=[^=]"
    r"|Object\.defineProperty\("
)
PATCH_CALL = re.compile(r"\b(?:patch|polyfill|setting|recordLibraryPatch)\('([\w-]+)'")


def _table() -> dict[str, str]:
    """name -> target, read from the table's source."""
    text = TABLE.read_text("utf-8")
    body = text[text.index("export const PATCHES = {"):text.index("\n}\n")]
    entries = re.findall(r"^  '?([\w-]+)'?: \{\n    target: '([^']+)'", body, re.MULTILINE)
    return dict(entries)


def _sources() -> list[Path]:
    return sorted([*BRIDGE.glob("*.mjs"), *(BRIDGE / "lib").glob("*.mjs")])


def test_no_file_patches_the_host_by_hand() -> None:
    found = [
        f"{path.name}:{number}: {line.strip()}"
        for path in _sources()
        if path != TABLE
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if RAW_PATCH.search(line)
    ]
    assert found == []


def test_every_patch_is_made_once_and_named_in_the_table() -> None:
    table = _table()
    assert len(table) >= 20
    made = [name for path in _sources() for name in PATCH_CALL.findall(path.read_text("utf-8"))]
    assert sorted(made) == sorted(table)


def test_the_readme_table_lists_every_patch_with_its_target() -> None:
    readme = (BRIDGE / "README.md").read_text("utf-8")
    rows = dict(re.findall(r"^\| `([\w-]+)` \| `([^`]+)` \|", readme, re.MULTILINE))
    assert rows == _table()


@pytest.fixture
def runtime(bridge_available: None):  # type: ignore[no-untyped-def]
    return IMPLEMENTATION.prepare()


def test_a_host_without_a_patched_internal_does_not_start_and_names_it(
    runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A host profile that renamed Session.prototype.append, simulated by a
    # preload that renames it before the bridge starts.
    session = runtime.folder / "node_modules" / "@deepseek-ai" / "dsh-session" / "lib" / "index.js"
    preload = tmp_path / "rename.mjs"
    preload.write_text(
        f"import {{ Session }} from {session.as_uri()!r}\n"
        "Session.prototype.appendEvent = Session.prototype.append\n"
        "delete Session.prototype.append\n"
    )
    monkeypatch.setenv("NODE_OPTIONS", f"--import={preload.as_uri()}")
    with pytest.raises(BridgeStartError) as raised:
        BridgeProcess(runtime, locate_node(runtime.folder))
    message = str(raised.value)
    assert "HostProfileError: cannot patch Session.prototype.append" in message
    assert "FaultPlan.fail_appends" in message  # the seam it would have served


def test_every_patch_is_made_once_a_host_has_an_agent(open_host) -> None:  # type: ignore[no-untyped-def]
    host = open_host()
    host.load_plugin("schedule")
    host.create_agent()
    applied, _ = host.process.request("patches")
    expected = set(_table())
    if host.process.node_version.startswith("v2") and int(host.process.node_version[1:3]) >= 22:
        expected.discard("promise-with-resolvers")  # a polyfill: Node 22 has it
    assert set(applied) == expected

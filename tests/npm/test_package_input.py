"""A package SPEC and the folder or tarball it names are the operator's input:
every bad one is refused up front with one closed error naming the file and
what is wrong, before npm or the bridge sees it (never a traceback, a hang,
an npm option, or a Node built-in standing in for the package). Pins the
kit's own behaviour (no README sentence covers package input)."""

from __future__ import annotations

import io
import json
import os
import sys
import tarfile
from pathlib import Path

import kit_child_processes as children
import pytest

from pytest_dsh.npm import PackageNotFoundError, parse_spec
from pytest_dsh.npm._specs import MAX_MANIFEST_BYTES

pytestmark = pytest.mark.dsh_wall_budget(30)

SELECTION = "dsh_conformance.schedule.management_tools.test_management_tools"
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
needs_dev_zero = pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")


def _folder(root: Path, manifest: bytes | None = None) -> Path:
    folder = root / "plugin"
    folder.mkdir()
    if manifest is None:
        manifest = json.dumps({"name": "acme-dsh-schedule", "version": "1.0.0"}).encode()
    (folder / "package.json").write_bytes(manifest)
    (folder / "index.js").write_text("export function apply() {}\n")
    return folder


def _refused(text: str, *fragments: str, base: Path | None = None) -> str:
    with pytest.raises(PackageNotFoundError) as caught:
        parse_spec("schedule", text, base=base)
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, message
    return message


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{\"name\": ", "is not JSON"),
        (b"[\"acme\"]", "is not a JSON object"),
        (b"\"acme\"", "is not a JSON object"),
        (b"{\"name\": \"caf\xe9\"}", "is not UTF-8"),
        (b"{\"name\": 42}", "has no name"),
        (b" " * (MAX_MANIFEST_BYTES + 1), f"is larger than {MAX_MANIFEST_BYTES} bytes"),
        (b"[" * 200_000, "is nested too deeply to read"),
    ],
    ids=["truncated", "list", "string", "latin-1", "name-not-a-string", "huge", "deep"],
)
def test_a_folder_whose_package_json_is_unusable_is_refused_naming_it(tmp_path, content, problem):
    folder = _folder(tmp_path, content)
    _refused(str(folder), f"{folder / 'package.json'}", problem)


@needs_fifo
def test_a_package_json_that_is_a_fifo_is_refused_without_opening_it_for_good(tmp_path):
    folder = _folder(tmp_path)
    (folder / "package.json").unlink()
    os.mkfifo(folder / "package.json")
    _refused(str(folder), f"{folder / 'package.json'}", "is not a regular file")


@needs_dev_zero
def test_a_package_json_linked_to_a_device_is_refused(tmp_path):
    folder = _folder(tmp_path)
    (folder / "package.json").unlink()
    (folder / "package.json").symlink_to("/dev/zero")
    _refused(str(folder), f"{folder / 'package.json'}", "is not a regular file")


def _special_dangling(folder: Path) -> Path:
    (folder / "gone.js").symlink_to(folder / "no-such-file.js")
    return folder / "gone.js"


def _special_dev_zero(folder: Path) -> Path:
    if not Path("/dev/zero").exists():
        pytest.skip("needs /dev/zero")
    (folder / "lib").mkdir()
    (folder / "lib" / "zero.bin").symlink_to("/dev/zero")
    return folder / "lib" / "zero.bin"


def _special_fifo(folder: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs FIFOs")
    os.mkfifo(folder / "pipe")
    return folder / "pipe"


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (_special_dangling, "is a symbolic link to nothing"),
        (_special_dev_zero, "is a symbolic link to a character device"),
        (_special_fifo, "is a FIFO"),
    ],
    ids=["dangling-symlink", "symlink-to-dev-zero", "fifo"],
)
def test_a_folder_holding_a_special_file_is_refused_naming_the_file(tmp_path, make, problem):
    folder = _folder(tmp_path)
    special = make(folder)
    message = _refused(str(folder), str(special), problem)
    assert message.count("\n") == 0, "one closed error, one line"


def test_a_symlink_to_a_regular_file_inside_the_folder_is_read_through(tmp_path):
    folder = _folder(tmp_path)
    (folder / "alias.js").symlink_to(folder / "index.js")
    before = parse_spec("schedule", str(folder)).fingerprint
    (folder / "index.js").write_text("export function apply(ctx) {}\n")
    assert parse_spec("schedule", str(folder)).fingerprint != before


def _tarball(path: Path, package_json: bytes) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo("package/package.json")
        info.size = len(package_json)
        archive.addfile(info, io.BytesIO(package_json))
    return path


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"[1, 2]", "is not a JSON object"),
        (b"{\"name\": \"caf\xe9\"}", "is not UTF-8"),
        (b"{", "is not JSON"),
        (b" " * (MAX_MANIFEST_BYTES + 1), f"is larger than {MAX_MANIFEST_BYTES} bytes"),
    ],
    ids=["list", "latin-1", "truncated", "huge"],
)
def test_a_tarball_whose_package_json_is_unusable_is_refused_naming_it(tmp_path, content, problem):
    tarball = _tarball(tmp_path / "acme.tgz", content)
    _refused(str(tarball), str(tarball), "package/package.json", problem)


# -- names and specs ---------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["fs", "child_process", "node:fs", "fs/promises", "test"],
)
def test_a_folder_package_named_like_a_node_built_in_is_refused(tmp_path, name):
    if name == "test":
        # `test` exists only as `node:test`: an npm package may take that name.
        folder = _folder(tmp_path, json.dumps({"name": name, "version": "1.0.0"}).encode())
        assert parse_spec("schedule", str(folder)).name == "test"
        return
    folder = _folder(tmp_path, json.dumps({"name": name, "version": "1.0.0"}).encode())
    _refused(str(folder), f"{folder / 'package.json'}", f"{name!r}", "Node built-in module")


@pytest.mark.parametrize("text", ["fs", "fs@1.0.0", "path@latest", "node:fs"])
def test_a_registry_spec_naming_a_node_built_in_is_refused(text):
    _refused(text, f"schedule={text}", "Node built-in module")


@pytest.mark.parametrize(
    "name", ["../escape", ".hidden", "_private", "Has Space", "a" * 215, "", "@scope/"],
)
def test_a_folder_package_with_an_invalid_npm_name_is_refused(tmp_path, name):
    folder = _folder(tmp_path, json.dumps({"name": name, "version": "1.0.0"}).encode())
    _refused(str(folder), f"{folder / 'package.json'}")


@pytest.mark.parametrize(
    "text", ["--version", "-g", "--registry=http://127.0.0.1:1/", "-", "--", "-acme"],
)
def test_a_spec_that_npm_would_read_as_an_option_is_refused_up_front(text):
    message = _refused(text, f"schedule={text}", "starts with '-'")
    assert "npm" in message


def test_a_local_path_that_starts_with_a_dash_is_a_package_when_spelled_as_a_path(tmp_path):
    folder = tmp_path / "-plugin"
    folder.mkdir()
    (folder / "package.json").write_text(json.dumps({"name": "acme", "version": "1.0.0"}))
    assert parse_spec("schedule", "./-plugin", base=tmp_path).name == "acme"


def _fifo_folder(root: Path) -> str:
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs FIFOs")
    folder = _folder(root)
    os.mkfifo(folder / "pipe")
    return str(folder)


@pytest.mark.dsh_wall_budget(300)
@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda root: "--version", "starts with '-'"),
        (lambda root: "fs", "is a Node built-in module"),
        (_fifo_folder, "pipe: is a FIFO"),
    ],
    ids=["option-like-spec", "built-in-name", "folder-with-fifo"],
)
def test_bad_package_input_is_one_usage_error_and_writes_no_cache(tmp_path, kit, make, fragment):
    spec = make(tmp_path)
    cache = tmp_path / "cache"
    done = children.run(
        [sys.executable, "-m", "pytest", "--pyargs", SELECTION, "-p", "no:randomly",
         "--dsh-impl=npm", f"--dsh-npm=schedule={spec}"],
        cwd=tmp_path, env=kit.user_env(DSH_NPM_CACHE=str(cache)), capture_output=True, text=True,
        timeout=240,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 4, output[-3000:]
    assert output.count("ERROR: --dsh-impl:") == 1 and fragment in output, output[-3000:]
    assert "Traceback" not in output and "INTERNALERROR" not in output
    assert not cache.exists(), "refused before anything is installed"


@pytest.mark.parametrize("content", [b"[]", b"\xff", b"{\"version\": 1, \"peerDependencies\": []}"])
def test_an_installed_package_json_of_another_shape_is_read_as_declaring_nothing(
    tmp_path, content
):
    from pytest_dsh.npm._implementation import _installed_version
    from pytest_dsh.npm._peers import _declared_peers

    installed = tmp_path / "node_modules" / "acme"
    installed.mkdir(parents=True)
    (installed / "package.json").write_bytes(content)
    assert _declared_peers(tmp_path, "acme") == {}
    assert _installed_version(tmp_path, "acme") is None

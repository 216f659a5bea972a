"""How a SPEC given to --dsh-npm or NodeImplementation is read: the kit must
know a package's own name before npm installs it (the bridge imports it by
that name). Pins the kit's own behaviour (no README sentence covers it)."""

from __future__ import annotations

import io
import json
import tarfile

import pytest

from pytest_dsh.npm import NodeImplementation, PackageNotFoundError, parse_spec


def _package(folder, name="acme-dsh-schedule", version="1.2.3"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({"name": name, "version": version}))
    (folder / "index.js").write_text("export function apply() {}\n")
    return folder


def _tarball(path, manifest):
    with tarfile.open(path, "w:gz") as archive:
        data = json.dumps(manifest).encode()
        info = tarfile.TarInfo("package/package.json")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return path


def test_a_folder_is_read_for_its_name_and_installed_from_its_absolute_path(tmp_path):
    folder = _package(tmp_path / "plugin")
    spec = parse_spec("schedule", "./plugin", base=tmp_path)
    assert (spec.name, spec.version, spec.local) == ("acme-dsh-schedule", "1.2.3", True)
    assert spec.dependency == f"file:{folder}"


def test_a_symlinked_folder_as_npm_link_makes_is_read_at_its_target(tmp_path):
    target = _package(tmp_path / "src" / "plugin")
    (tmp_path / "linked").symlink_to(target)
    spec = parse_spec("schedule", str(tmp_path / "linked"))
    assert spec.dependency == f"file:{target}"


def test_a_tarball_is_read_for_its_name_and_keyed_by_its_content(tmp_path):
    first = _tarball(tmp_path / "a.tgz", {"name": "acme", "version": "1.0.0"})
    second = _tarball(tmp_path / "b.tgz", {"name": "acme", "version": "1.0.1"})
    one, two = parse_spec("schedule", str(first)), parse_spec("schedule", str(second))
    assert (one.name, one.version, two.version) == ("acme", "1.0.0", "1.0.1")
    assert one.fingerprint != two.fingerprint


def test_a_folder_fingerprint_follows_its_files_but_not_node_modules(tmp_path):
    folder = _package(tmp_path / "plugin")
    before = parse_spec("schedule", str(folder)).fingerprint
    (folder / "node_modules").mkdir()
    (folder / "node_modules" / "x.js").write_text("1")
    assert parse_spec("schedule", str(folder)).fingerprint == before
    (folder / "index.js").write_text("export function apply(ctx) {}\n")
    assert parse_spec("schedule", str(folder)).fingerprint != before


@pytest.mark.parametrize(
    ("text", "name", "dependency"),
    [
        ("acme-dsh-schedule", "acme-dsh-schedule", "latest"),
        ("acme-dsh-schedule@1.2.3", "acme-dsh-schedule", "1.2.3"),
        ("@acme/dsh-schedule@^2.0.0", "@acme/dsh-schedule", "^2.0.0"),
    ],
)
def test_registry_specs_carry_their_name(text, name, dependency):
    spec = parse_spec("schedule", text)
    assert (spec.name, spec.dependency, spec.local) == (name, dependency, False)


def test_other_npm_specs_are_named_by_npm_at_install_time():
    spec = parse_spec("schedule", "github:acme/dsh-schedule")
    assert (spec.name, spec.dependency) == (None, "github:acme/dsh-schedule")


@pytest.mark.parametrize(
    ("make", "text", "message"),
    [
        (lambda root: None, "./missing", "no such folder or tarball"),
        (lambda root: (root / "empty").mkdir(), "./empty", "has no package.json"),
        (lambda root: (root / "a.txt").write_text("x"), "./a.txt", "neither a package folder"),
        (lambda root: (root / "bad.tgz").write_bytes(b"not a tarball"), "./bad.tgz", "cannot read"),
    ],
)
def test_a_local_spec_that_is_no_package_is_refused_by_name(tmp_path, make, text, message):
    make(tmp_path)
    with pytest.raises(PackageNotFoundError, match=message) as caught:
        parse_spec("schedule", text, base=tmp_path)
    assert f"schedule={text}" in str(caught.value)


def test_capabilities_default_to_the_roles_given_and_nothing_is_inherited():
    implementation = NodeImplementation("acme", "1.0.0", packages={"schedule": "acme@1.0.0"})
    assert implementation.capabilities == {"schedule", "schedule-invariant", "process-zone"}
    assert dict(implementation.expected_failures) == {}


def test_a_node_implementation_needs_known_roles():
    with pytest.raises(ValueError, match="roles schedule, time-context"):
        NodeImplementation("acme", "1.0.0", packages={"scheduler": "acme"})

"""Helpers for the npm path's tests: running the conformance suite in a
subprocess (as a user would) and reading its outcomes, and repacking the
official package under another name.

These tests need npm and the npm registry (the CI job has both). Installs go
to the kit's npm cache ($DSH_NPM_CACHE or the user cache directory), keyed by
what was asked for, so later runs reuse them. Without npm a developer run
skips them; under CI=true that is a failure.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import sys
import tarfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import kit_child_processes as children
import pytest

import dsh_conformance
from pytest_dsh.official import OFFICIAL_SCHEDULE_VERSION

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "dsh-schedule-wrapper"
UNKNOWN_ID_TEST = (
    "schedule/management_tools/test_management_tools.py::"
    "test_unknown_deleted_and_dispatched_ids_are_not_found_and_append_nothing"
)
#: The installed suite's folder: node ids relative to it are the expectation keys.
SUITE_DIR = Path(dsh_conformance.__file__).resolve().parent


def require_npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        if os.environ.get("CI"):
            pytest.fail("CI must provide npm for the npm path's tests")
        pytest.skip("npm is not installed")
    return npm


def user_env(**extra: str) -> dict[str, str]:
    """The environment of a user outside this checkout: no prebuilt bridge."""
    env = {key: value for key, value in os.environ.items() if key != "DSH_BRIDGE_DIR"}
    env.update(extra)
    return env


@dataclass(frozen=True)
class SuiteRun:
    returncode: int
    output: str
    #: test id (relative to dsh_conformance) -> "passed" | "failed" | "skipped" | "error" ...
    outcomes: dict[str, str]
    #: test id -> failure message
    messages: dict[str, str]

    def ids(self, outcome: str) -> set[str]:
        return {test_id for test_id, found in self.outcomes.items() if found == outcome}


def read_junit(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    outcomes: dict[str, str] = {}
    messages: dict[str, str] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        # classname is "schedule.test_x" (module path, dots); name keeps the params.
        test_id = case.get("classname", "").replace(".", "/") + ".py::" + case.get("name", "")
        outcome = "passed"
        for child in case:
            if child.tag in {"failure", "error", "skipped"}:
                outcome = {"failure": "failed"}.get(child.tag, child.tag)
                messages[test_id] = child.get("message", "")
                break
        outcomes[test_id] = outcome
    return outcomes, messages


def run_suite(
    args: list[str], *, cwd: Path, env: dict[str, str], python: str = sys.executable
) -> SuiteRun:
    """``python -m pytest ARGS`` in ``cwd``, with a JUnit file read back."""
    junit = cwd / "suite-junit.xml"
    done = children.run(
        [python, "-m", "pytest", *args, f"--junitxml={junit}", "-p", "no:randomly", "-q"],
        cwd=cwd, env=env, capture_output=True, text=True,
    )
    output = done.stdout + done.stderr
    outcomes, messages = read_junit(junit) if junit.exists() else ({}, {})
    return SuiteRun(done.returncode, output, outcomes, messages)


def schedule_section(suite_dir: Path = SUITE_DIR) -> list[str]:
    """Arguments selecting the schedule section with ids relative to the suite."""
    return [str(suite_dir / "schedule"), f"--rootdir={suite_dir}"]


def official_expectations() -> dict[str, dict[str, object]]:
    path = REPO / "pytest_dsh" / "official" / "expectations.json"
    failures: dict[str, dict[str, object]] = json.loads(path.read_text("utf-8"))[
        "expected_failures"
    ]
    return failures


def _deterministic_tarball(files: dict[str, bytes], path: Path) -> Path:
    """A gzip tarball with fixed times and order: the same content gives the
    same bytes, so the kit's npm cache recognises it on the next run."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as archive:
        for name in sorted(files):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(files[name]), 0, 0o644
            archive.addfile(info, io.BytesIO(files[name]))
    path.write_bytes(gzip.compress(raw.getvalue(), mtime=0))
    return path


def repack_official(
    folder: Path, name: str, replace: dict[str, str] | None = None
) -> Path:
    """The official dsh-schedule tarball from the registry, renamed to
    ``name`` (and with ``replace`` applied to its JavaScript): the position of
    an author who forked it. Nothing of it is kept in this repository."""
    npm = require_npm()
    folder.mkdir(parents=True, exist_ok=True)
    spec = f"@deepseek-ai/dsh-schedule@{OFFICIAL_SCHEDULE_VERSION}"
    done = children.run(
        [npm, "pack", spec, "--pack-destination", str(folder), "--json", "--silent"],
        capture_output=True, text=True, timeout=600, check=True,
    )
    original = folder / json.loads(done.stdout)[0]["filename"]
    files: dict[str, bytes] = {}
    with tarfile.open(original) as archive:
        for member in archive.getmembers():
            handle = archive.extractfile(member) if member.isfile() else None
            if handle is not None:
                files[member.name] = handle.read()
    manifest = json.loads(files["package/package.json"])
    manifest["name"] = name
    files["package/package.json"] = json.dumps(manifest, indent=2).encode()
    for old, new in (replace or {}).items():
        for path in [p for p in files if p.endswith(".js")]:
            files[path] = files[path].replace(old.encode(), new.encode())
    return _deterministic_tarball(files, folder / f"{name}-{manifest['version']}.tgz")


@pytest.fixture(scope="session")
def kit():
    """These helpers, for test modules (conftest is not importable by name)."""
    return sys.modules[__name__]

"""The code examples of the docs pages that tests/meta/test_docs_examples.py
does not own run as written: the Python snippets of docs/fake-host.md and
docs/reliability.md against a reference host, the example output of
docs/log-check.md is what ``dsh-log check`` prints for such files, and the
kept example docs/reproducibility.md quotes is the suite's own lines.

Pages checked elsewhere: host-contract.md (test_contract_docs.py mirrors every
signature), validate-your-plugin.md (test_docs_examples.py),
validate-your-npm-plugin.md (tests/npm/test_fresh_venv.py), benchmarks.md
(test_benchmarks_run.py runs its --quick command). The mutation run of
conformance-power.md is a long, documented, manual command.
"""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys

import kit_child_processes as children
import pytest

from dsh_reference.implementation import IMPLEMENTATION
from pytest_dsh import reply_text, reply_tools

# Installs packages or runs pytest in other processes: more than the default budget.
pytestmark = pytest.mark.dsh_wall_budget(600)

DOCS = pathlib.Path(__file__).parents[2] / "docs"
START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z
_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


def _blocks(page: str, language: str) -> list[str]:
    return [body for lang, body in _BLOCK.findall((DOCS / page).read_text("utf-8"))
            if lang == language]


def test_every_other_page_is_accounted_for():
    # A page with a Python example must be listed here or in the owners above.
    owned = {"fake-host.md", "reliability.md", "host-contract.md", "validate-your-plugin.md",
             "validate-your-npm-plugin.md", "reproducibility.md"}
    with_python = {page.name for page in DOCS.glob("*.md") if _blocks(page.name, "python")}
    assert with_python <= owned, f"Python examples nobody runs: {sorted(with_python - owned)}"


def test_the_kept_example_shown_in_reproducibility_md_is_the_suite_s_own():
    """The page quotes a suite file: its lines are that file's lines, in order."""
    (snippet,) = _blocks("reproducibility.md", "python")
    first, *lines = snippet.splitlines()
    source = DOCS.parent / first.removeprefix("# ").strip()
    assert source.is_file(), first
    text = source.read_text("utf-8")
    quoted = "\n".join(lines).strip("\n")
    assert quoted in text, f"docs/reproducibility.md no longer quotes {source.name}"


def test_the_fake_host_walkthrough_runs():
    (snippet,) = _blocks("fake-host.md", "python")
    host = IMPLEMENTATION.open_host(start_ms=START_MS)
    try:
        namespace = {"host": host, "reply_tools": reply_tools, "reply_text": reply_text,
                     "ms": START_MS + 3_600_000}
        exec(compile(snippet, "docs/fake-host.md", "exec"), namespace)
        agent = namespace["agent"]
        assert namespace["outcome"].value == [], "schedule_list on a new agent"
        assert any(event["type"] == "turn/start" for event in agent.events()), "a turn ran"
        assert host.now_ms == START_MS + 3_600_000
    finally:
        host.close()


def test_the_jsonl_store_snippet_runs(tmp_path):
    (snippet,) = _blocks("reliability.md", "python")
    namespace = {"IMPLEMENTATION": IMPLEMENTATION, "START_MS": START_MS, "root": tmp_path}
    exec(compile(snippet, "docs/reliability.md", "exec"), namespace)
    host = namespace["host"]
    try:
        host.load_plugin("schedule")
        agent = host.create_agent()
        created = agent.call_tool("schedule_create", {"prompt": "tea", "after_seconds": 60})
        assert created.value["state"] == "scheduled", created
        assert host.flush_session(agent), "a flush through the JSONL store is durable"
        assert list(tmp_path.rglob("*.jsonl")), "the session is a file on disk"
    finally:
        host.close()


@pytest.fixture
def logs(tmp_path):
    header = {"type": "session", "version": 0, "id": "s", "createdAt": START_MS}
    create = {"type": "schedule/change", "seq": 0, "time": START_MS, "data": {
        "version": 1, "operation": "create", "schedule": {
            "id": "schedule-1", "kind": "after", "prompt": "tea", "afterSeconds": 60,
            "scheduledAt": "2026-01-01T00:01:00.000Z"}}}
    delete = {"type": "schedule/change", "seq": 1, "time": START_MS,
              "data": {"version": 1, "operation": "delete", "id": "schedule-9"}}
    (tmp_path / "bad.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in (header, create, delete)), "utf-8")
    (tmp_path / "ok.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in (header, create)), "utf-8")
    return tmp_path


def _check(cwd: pathlib.Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "dsh_reference.log_check", "check", *args]
    return children.run(command, cwd=cwd, capture_output=True, text=True, check=False)


def test_the_log_check_example_output_is_what_the_command_prints(logs):
    shown = _blocks("log-check.md", "")[0].splitlines()
    done = _check(logs, "bad.jsonl", "ok.jsonl")
    assert done.returncode == 1, done.stdout + done.stderr
    printed = done.stdout.splitlines()
    assert shown[0] in printed, f"{shown[0]!r} not in {printed}"
    assert shown[-1] in printed, f"{shown[-1]!r} not in {printed}"


def test_the_log_check_json_example_is_what_the_command_prints(logs):
    shown = [json.loads(line) for line in _blocks("log-check.md", "json")[0].splitlines()]
    done = _check(logs, "--json", "bad.jsonl")
    printed = [json.loads(line) for line in done.stdout.splitlines()]
    assert shown == printed, done.stdout

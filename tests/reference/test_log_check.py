"""The ``dsh-log check`` command: both plugins' policies, reported with line numbers.

The fold and reading rules are the READMEs' (through the plugins' own policies
and messages); the file format, envelope and exit codes are the command's own
contract (docs/log-check.md). Robustness cases live in tests/reference/log_check/.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import kit_child_processes as children

from dsh_reference.log_check import main

T = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z
CREATE = {
    "version": 1, "operation": "create",
    "schedule": {"id": "schedule-1", "kind": "after", "prompt": "p", "afterSeconds": 60,
                 "scheduledAt": "2026-01-01T00:01:00.000Z"},
}


def _write(path: Path, *lines: object) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _event(seq: int, data: object, type: str = "schedule/change") -> dict:
    return {"type": type, "seq": seq, "time": T, "data": data}


def _check(capsys, *args: str) -> tuple[int, list[str]]:
    code = main(["check", *args])
    return code, capsys.readouterr().out.splitlines()


def test_a_valid_log_is_ok(tmp_path, capsys):
    path = _write(tmp_path / "ok.jsonl", {"type": "session", "id": "s"}, _event(0, CREATE))
    assert _check(capsys, str(path)) == (0, [f"{path}: ok"])


def test_a_fold_error_names_the_line_of_the_offending_event(tmp_path, capsys):
    dispatch = {"version": 1, "operation": "dispatch", "id": "schedule-9"}
    path = _write(tmp_path / "bad.jsonl", {"type": "session", "id": "s"},
                  _event(0, CREATE), _event(1, dispatch))
    assert _check(capsys, str(path)) == (
        1, [f'{path}:3: dsh-schedule: schedule dispatch targets inactive id "schedule-9"'],
    )


def test_a_fork_header_limits_the_fold_to_the_owned_suffix(tmp_path, capsys):
    delete = {"version": 1, "operation": "delete", "id": "schedule-1"}
    fork = _write(tmp_path / "fork.jsonl", {"type": "session", "id": "c", "seedLength": 1},
                  _event(0, CREATE), _event(1, delete))
    assert _check(capsys, str(fork)) == (
        1, [f'{fork}:3: dsh-schedule: schedule delete targets inactive id "schedule-1"'],
    )


def test_a_reading_outside_a_turn_is_reported_on_its_line(tmp_path, capsys):
    reading = {
        "content": [{"type": "text", "text": "Time sampled while preparing turn 1, step 1: "
                     "2026-01-01T00:00:00+00:00[UTC]\n"
                     "Elapsed since the preceding model-visible message: unavailable."}],
        "source": {"kind": "plugin", "plugin": "time-context"},
    }
    path = _write(tmp_path / "tc.jsonl", {"type": "session", "id": "s"},
                  _event(0, reading, "user/message"))
    assert _check(capsys, str(path)) == (1, [
        f"{path}:2: dsh-time-context: time-context reading must be appended inside an open turn"
    ])


def test_malformed_lines_are_reported_with_their_number(tmp_path, capsys):
    path = tmp_path / "broken.jsonl"
    path.write_text('{"type":"session","id":"s"}\n' + json.dumps(_event(0, CREATE))
                    + "\n{not json\n", encoding="utf-8")
    code, [problem] = _check(capsys, str(path))
    assert code == 1
    assert problem.startswith(f"{path}:3: file.json: not JSON (")


def test_the_console_script_exits_non_zero_on_a_bad_file(tmp_path):
    path = _write(tmp_path / "bad.jsonl", {"type": "session", "id": "s"}, _event(0, {"version": 2}))
    done = children.run(
        [sys.executable, "-m", "dsh_reference.log_check", "check", str(path)],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        1, f"{path}:2: dsh-schedule: schedule/change version must be 1\n", "",
    )

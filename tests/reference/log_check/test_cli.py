"""The ``dsh-log check`` command line: output shapes, exit codes and limits
(docs/log-check.md; the command's own contract, not a README's)."""

from __future__ import annotations

import errno
import io
import json
import runpy
import shlex
import sys
from pathlib import Path

import kit_child_processes as children
import pytest

from dsh_reference.log_check import CheckOptions, Diagnostic, check_stream, main

LARGE_LOG = Path(__file__).with_name("large_log.py")


def _out(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_json_lines_name_each_diagnostic_then_the_file(tmp_path, capsys, kit):
    bad = kit.write_log(tmp_path / "bad.jsonl", kit.event(0, {"version": 2}), kit.event(3, None))
    good = kit.write_log(tmp_path / "good.jsonl")
    assert main(["check", "--json", str(bad), str(good)]) == 1
    assert [json.loads(line) for line in _out(capsys)] == [
        {"kind": "diagnostic", "path": str(bad), "line": 2, "rule": "dsh-schedule",
         "message": "schedule/change version must be 1"},
        {"kind": "diagnostic", "path": str(bad), "line": 3, "rule": "envelope.seq",
         "message": "event seq is 3, expected 1 (seqs count events from 0)"},
        {"kind": "file", "path": str(bad), "verdict": "invalid", "lines": 3, "events": 2,
         "diagnostics": 2},
        {"kind": "file", "path": str(good), "verdict": "valid", "lines": 1, "events": 0,
         "diagnostics": 0},
    ]


def test_an_unopenable_file_is_line_0_and_exit_2_even_beside_violations(tmp_path, capsys, kit):
    bad = kit.write_log(tmp_path / "bad.jsonl", kit.event(1, None, "custom/x"))
    missing = tmp_path / "missing.jsonl"
    assert main(["check", "--json", str(bad), str(missing), str(tmp_path)]) == 2
    lines = [json.loads(line) for line in _out(capsys)]
    assert lines[2:] == [
        {"kind": "diagnostic", "path": str(missing), "line": 0, "rule": "io.open",
         "message": "No such file or directory"},
        {"kind": "file", "path": str(missing), "verdict": "unreadable", "lines": 0, "events": 0,
         "diagnostics": 1},
        {"kind": "diagnostic", "path": str(tmp_path), "line": 0, "rule": "io.open",
         "message": "Is a directory"},
        {"kind": "file", "path": str(tmp_path), "verdict": "unreadable", "lines": 0,
         "events": 0, "diagnostics": 1},
    ]


def test_an_overlong_line_stops_the_file_and_exits_2(tmp_path, capsys, kit):
    long = kit.event(0, "x" * 100, "custom/x")
    path = kit.write_log(tmp_path / "long.jsonl", long, kit.event(7, None, "custom/x"))
    assert main(["check", "--max-line-bytes", "50", str(path)]) == 2
    assert _out(capsys) == [
        f"{path}:2: file.line-too-long: line is longer than 50 bytes (--max-line-bytes); "
        "the rest of the file was not read",
    ]
    # A line of exactly the limit is read.
    exact = len(json.dumps(long).encode())
    assert main(["check", "--max-line-bytes", str(exact), str(path)]) == 1
    assert [line.split(": ")[1] for line in _out(capsys)] == ["envelope.seq"]


def test_max_diagnostics_limits_printing_not_the_verdict(tmp_path, capsys, kit):
    path = kit.write_log(tmp_path / "many.jsonl", *({"x": i} for i in range(5)))
    assert main(["check", "--max-diagnostics", "2", str(path)]) == 1
    missing = (
        "envelope.missing: event must have type, seq, time and data; missing type, seq, time, data"
    )
    assert _out(capsys) == [
        f"{path}:2: {missing}", f"{path}:3: {missing}",
        f"{path}: 3 more diagnostics not shown (--max-diagnostics)",
    ]
    assert main(["check", "--max-diagnostics", "0", "--json", str(path)]) == 1
    assert json.loads(_out(capsys)[-1])["diagnostics"] == 5


@pytest.mark.parametrize(
    "argv",
    [[], ["check"], ["check", "--max-line-bytes", "0", "x"], ["check", "--max-line-bytes", "k",
                                                              "x"], ["lint", "x"]],
)
def test_usage_errors_exit_2(capsys, argv):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "usage: dsh-log" in captured.err


def test_help_exits_0(capsys):
    assert main(["check", "--help"]) == 0
    assert "Exit status: 0 every file is valid" in capsys.readouterr().out


def test_a_closed_pipe_ends_quietly(tmp_path, kit):
    path = kit.write_log(tmp_path / "many.jsonl", *({"x": i} for i in range(20_000)))
    done = children.run(
        f"{shlex.quote(sys.executable)} -m dsh_reference.log_check check --max-diagnostics 0 "
        f"{shlex.quote(str(path))} | head -1",
        shell=True, capture_output=True, check=False,
    )
    assert done.stdout.startswith(f"{path}:2: envelope.missing".encode())
    assert done.stderr == b""


def test_the_measurement_log_is_valid_and_has_the_asked_number_of_events(tmp_path, capsys):
    path = tmp_path / "large.jsonl"
    generator = runpy.run_path(str(LARGE_LOG))
    assert generator["main"]([str(path), "2005"]) == 0
    assert len(path.read_bytes().splitlines()) == 2006
    assert main(["check", "--json", str(path)]) == 0
    assert json.loads(_out(capsys)[-1]) == {
        "kind": "file", "path": str(path), "verdict": "valid", "lines": 2006, "events": 2005,
        "diagnostics": 0,
    }


class _FailingStream(io.BytesIO):
    """Reads its content, then fails as a disk error would."""

    def readline(self, size: int | None = -1) -> bytes:
        line = super().readline(size)
        if not line:
            raise OSError(errno.EIO, "Input/output error")
        return line


def test_a_read_error_names_the_line_it_stopped_at(kit):
    content = b'{"type":"session","id":"s"}\n{"type":"x","seq":1,"time":0,"data":null}\n'
    found: list[Diagnostic] = []
    report = check_stream("disk.jsonl", _FailingStream(content), CheckOptions(1024), found.append)
    assert [d.text() for d in found] == [
        "disk.jsonl:2: envelope.seq: event seq is 1, expected 0 (seqs count events from 0)",
        "disk.jsonl:3: io.read: Input/output error",
    ]
    assert report.as_json() == {"kind": "file", "path": "disk.jsonl", "verdict": "unreadable",
                                "lines": 2, "events": 1, "diagnostics": 2}
    assert report.verdict.exit_code == 2

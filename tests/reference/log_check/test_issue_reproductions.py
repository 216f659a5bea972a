"""Each ``dsh-log check`` reproduction of the reliability issue, answered.

These pin the command's own contract (docs/log-check.md), which no plugin
README covers: bad bytes, huge numbers, deep nesting, envelopes, endless lines
and stdin are diagnostics with a line and a rule, never a traceback.
"""

from __future__ import annotations

import subprocess
import sys

import kit_child_processes as children

from dsh_reference.log_check import main

HEADER = b'{"type":"session","id":"s"}\n'


def _event(seq: int, data: bytes, kind: bytes = b"custom/blob") -> bytes:
    return b'{"type":"' + kind + b'","seq":%d,"time":1767225600000,"data":' % seq + data + b"}\n"


def _check(capsys, *args: str) -> tuple[int, list[str]]:
    code = main(["check", *args])
    return code, capsys.readouterr().out.splitlines()


def _run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return children.run([sys.executable, "-m", "dsh_reference.log_check", "check", *args],
                        input=stdin, capture_output=True, check=False)


def test_a_semantic_error_names_its_line(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(HEADER + _event(0, b"{}") + _event(
        1, b'{"version":1,"operation":"delete","id":"schedule-9"}', b"schedule/change"))
    assert _check(capsys, str(path)) == (
        1, [f'{path}:3: dsh-schedule: schedule delete targets inactive id "schedule-9"'])


def test_a_non_utf8_byte_is_a_diagnostic_and_the_next_lines_are_still_checked(tmp_path, capsys):
    path = tmp_path / "torn.jsonl"
    path.write_bytes(HEADER + _event(0, b'"caf\xe9"') + _event(1, b"{}", b""))
    assert _check(capsys, str(path)) == (1, [
        f"{path}:2: file.encoding: not UTF-8 (byte 0xe9 at column 63)",
        f"{path}:3: envelope.type: event type must be a non-empty string",
    ])


def test_a_4400_digit_number_is_read_as_javascript_reads_it(tmp_path, capsys):
    huge = b"9" * 4400
    path = tmp_path / "huge.jsonl"
    path.write_bytes(
        HEADER
        + _event(0, huge)  # any data is fine on a foreign event
        + b'{"type":"t","seq":' + huge + b',"time":0,"data":null}\n'
        + _event(2, b'{"version":1,"operation":"create","schedule":{"id":"a","kind":"after",'
                    b'"prompt":"p","afterSeconds":' + huge + b',"scheduledAt":'
                    b'"2026-01-01T00:01:00.000Z"}}', b"schedule/change")
    )
    assert _check(capsys, str(path)) == (1, [
        f"{path}:3: envelope.seq: event seq must be a safe integer, got null",
        f"{path}:4: dsh-schedule: afterSeconds must be a positive safe integer",
    ])


def test_100000_deep_nesting_is_a_diagnostic(tmp_path, capsys):
    path = tmp_path / "deep.jsonl"
    path.write_bytes(HEADER + _event(0, b"[" * 100_000 + b"]" * 100_000) + _event(1, b"1"))
    assert _check(capsys, str(path)) == (1, [
        f"{path}:2: file.nesting: not checkable (JSON nested deeper than the parser allows)",
    ])


def test_empty_and_foreign_objects_break_the_envelope(tmp_path, capsys):
    path = tmp_path / "envelope.jsonl"
    path.write_bytes(b'{}\n{"name":"left-pad"}\n')
    missing = "event must have type, seq, time and data; missing"
    assert _check(capsys, str(path)) == (1, [
        f'{path}:1: header.missing: line 1 must be the session header {{"type": "session"}}',
        f"{path}:1: envelope.missing: {missing} type, seq, time, data",
        f"{path}:2: envelope.missing: {missing} type, seq, time, data",
    ])


def test_dev_zero_ends_with_a_line_length_error_without_a_traceback():
    done = _run("--max-line-bytes", "1048576", "/dev/zero")
    assert (done.returncode, done.stderr) == (2, b"")
    assert done.stdout == (
        b"/dev/zero:1: file.line-too-long: line is longer than 1048576 bytes "
        b"(--max-line-bytes); the rest of the file was not read\n"
    )


def test_an_endless_line_on_stdin_stops_at_the_limit():
    done = _run("--max-line-bytes", "64", "-", stdin=HEADER + b"x" * 100_000)
    assert (done.returncode, done.stderr) == (2, b"")
    assert done.stdout.startswith(b"<stdin>:2: file.line-too-long: line is longer than 64 bytes")


def test_dash_reads_stdin(tmp_path):
    good = HEADER + _event(0, b"null")
    assert _run("-", stdin=good).stdout == b"<stdin>: ok\n"
    bad = _run("-", stdin=HEADER + _event(5, b"null"))
    assert (bad.returncode, bad.stdout) == (
        1, b"<stdin>:2: envelope.seq: event seq is 5, expected 0 (seqs count events from 0)\n")


def test_no_traceback_for_any_of_them_through_the_console_script(tmp_path):
    path = tmp_path / "all.jsonl"
    path.write_bytes(HEADER + _event(0, b'"caf\xe9"') + _event(1, b"9" * 4400)
                     + _event(2, b"[" * 100_000) + b"{}\n" + b'{"name":"left-pad"}')
    done = _run(str(path))
    assert done.returncode == 1
    assert done.stderr == b""
    rules = [line.split(b": ")[1] for line in done.stdout.splitlines()]
    assert rules == [b"file.encoding", b"file.nesting", b"envelope.missing", b"file.torn"]


READING = (
    b'{"type":"user/message","seq":%d,"time":1767225600000,"data":{"content":[{"type":"text",'
    b'"text":"Time sampled while preparing turn %s, step 1: 2026-01-01T00:00:00+00:00[UTC]'
    b'\\nElapsed since the preceding model-visible message: 0s."}],"source":{"kind":"plugin",'
    b'"plugin":"time-context"}}}\n'
)


def test_values_rendered_into_messages_never_raise(tmp_path, capsys):
    deep = b"[" * 900 + b"]" * 900
    path = tmp_path / "rendered.jsonl"
    path.write_bytes(
        b'{"type":"session","id":"s","version":' + deep + b"}\n"
        + b'{"type":"t","seq":' + deep + b',"time":0,"data":null}\n'
        + b'{"type":"t","seq":"' + b"x" * 10_000 + b'","time":0,"data":null}\n'
        + _event(2, b'{"turn":' + deep + b"}", b"turn/start")
        + READING % (3, b"1")
        + _event(4, b'{"turn":1}', b"turn/start")
        + READING % (5, b"9" * 5000)
    )
    assert _check(capsys, str(path)) == (1, [
        f"{path}:1: header.version: session header version must be 0, got an array",
        f"{path}:2: envelope.seq: event seq must be a safe integer, got an array",
        f'{path}:3: envelope.seq: event seq must be a safe integer, got "{"x" * 36}...',
        f"{path}:5: dsh-time-context: time-context reading cannot be checked: the open turn or "
        "step value is nested too deeply to render",
        f"{path}:7: dsh-time-context: time-context turn and step must be positive safe integers",
    ])

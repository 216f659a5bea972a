"""Header and event envelope rules of ``dsh-log check``.

The envelope follows DSH's session-file format as the official JSONL backend
writes it (notes: session event shapes; docs/log-check.md lists the rules);
the plugin READMEs leave it open, so these pin the command's contract.
"""

from __future__ import annotations

import pytest

from dsh_reference.log_check import main


def _diagnostics(capsys, path, *options: str) -> list[str]:
    main(["check", *options, str(path)])
    return [line.split(": ", 1)[1] for line in capsys.readouterr().out.splitlines()
            if not line.endswith(": ok")]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ({"type": "session", "id": "s"}, []),
        ({"type": "session", "version": 0, "id": "s", "createdAt": 0, "delegationDepth": 1,
          "cwd": "/w", "parentSession": "p", "seedLength": 0, "origin": "subagent",
          "agentPreset": "a"}, []),
        ({"type": "session", "id": "s", "name": "left-pad"},
         ['header.unknown-key: session header has unknown keys "name"']),
        ({"type": "session"}, ["header.id: session header id must be a non-empty string"]),
        ({"type": "session", "id": ""},
         ["header.id: session header id must be a non-empty string"]),
        ({"type": "session", "id": "s", "version": 1},
         ["header.version: session header version must be 0, got 1"]),
        ({"type": "session", "id": "s", "createdAt": -1},
         ["header.created-at: session header createdAt must be non-negative epoch milliseconds"]),
        ({"type": "session", "id": "s", "delegationDepth": 0.5},
         ["header.delegation-depth: session header delegationDepth must be a non-negative safe "
          "integer"]),
        ({"type": "session", "id": "s", "cwd": 1},
         ["header.field: session header cwd must be a string"]),
        ({"type": "session", "id": "s", "origin": "user"},
         ['header.field: session header origin must be "subagent"']),
        ({"type": "session", "id": "s", "seedLength": -1},
         ["dsh-schedule: schedule seedLength must be within the supplied event log"]),
        ({"type": "session", "id": "s", "seedLength": 2},
         ["dsh-schedule: schedule seedLength must be within the supplied event log"]),
    ],
)
def test_header_rules(tmp_path, capsys, kit, header, expected):
    path = kit.write_log(tmp_path / "h.jsonl", kit.event(0, None, "custom/x"), header=header)
    assert _diagnostics(capsys, path) == expected


def test_the_official_flag_requires_the_official_header_fields(tmp_path, capsys, kit):
    path = kit.write_log(tmp_path / "h.jsonl", header={"type": "session", "id": "s"})
    assert _diagnostics(capsys, path, "--official") == [
        "header.version: session header version must be 0, got none"]
    path = kit.write_log(tmp_path / "h.jsonl", header={"type": "session", "id": "s", "version": 0})
    assert _diagnostics(capsys, path, "--official") == [
        "header.created-at: session header createdAt must be non-negative epoch milliseconds"]


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({}, None),
        ({"ignorable": True}, None),
        ({"type": "user/message", "surfaceOp": "append", "sourceEventSeqs": []}, None),
        ({"type": "tool/result", "surfaceOp": {"op": "replace", "start": 0, "end": 1}}, None),
        ({"seq": "0"}, 'envelope.seq: event seq must be a safe integer, got "0"'),
        ({"seq": True}, "envelope.seq: event seq must be a safe integer, got true"),
        ({"seq": 1}, "envelope.seq: event seq is 1, expected 0 (seqs count events from 0)"),
        ({"type": 3}, "envelope.type: event type must be a non-empty string"),
        ({"type": ""}, "envelope.type: event type must be a non-empty string"),
        ({"time": "2026-01-01"},
         "envelope.time: event time must be non-negative epoch milliseconds"),
        ({"time": -5}, "envelope.time: event time must be non-negative epoch milliseconds"),
        ({"time": 2**53}, "envelope.time: event time must be non-negative epoch milliseconds"),
        ({"ignorable": False}, "envelope.ignorable: event ignorable must be true when present"),
        ({"payload": {}}, 'envelope.unknown-key: event has unknown keys "payload"'),
        ({"surfaceOp": "append"},
         'envelope.surface: only message events carry surfaceOp or sourceEventSeqs, not '
         '"custom/x"'),
        ({"type": "user/message", "surfaceOp": "prepend"},
         'envelope.surface: surfaceOp must be "append" or {"op": "replace", "start", "end"}'),
        ({"type": "user/message", "surfaceOp": {"op": "replace", "start": 0}},
         'envelope.surface: surfaceOp must be "append" or {"op": "replace", "start", "end"}'),
        ({"type": "user/message", "sourceEventSeqs": [1, "2"]},
         "envelope.surface: sourceEventSeqs must be a list of event seqs"),
    ],
)
def test_event_envelope_rules(tmp_path, capsys, kit, extra, expected):
    path = kit.write_log(tmp_path / "e.jsonl", {**kit.event(0, None, "custom/x"), **extra})
    assert _diagnostics(capsys, path) == ([] if expected is None else [f"{expected}"])


def test_missing_fields_are_listed(tmp_path, capsys, kit):
    path = kit.write_log(tmp_path / "e.jsonl", {"type": "custom/x", "seq": 0})
    assert _diagnostics(capsys, path) == [
        "envelope.missing: event must have type, seq, time and data; missing time, data"]


@pytest.mark.parametrize(
    ("seqs", "expected"),
    [
        ((0, 1, 3, 4, 5), ["4: event seq is 3, expected 2"]),  # a lost event: one problem
        ((0, 1, 3, 3, 4), ["4: event seq is 3, expected 2", "5: event seq is 3, expected 4"]),
        ((0, "x", 2, 3), ['3: event seq must be a safe integer, got "x"']),
        ((1, 2), ["2: event seq is 1, expected 0"]),
    ],
)
def test_a_seq_gap_is_one_problem_and_later_events_follow_the_seq_read(
    tmp_path, capsys, kit, seqs, expected
):
    events = [kit.event(seq, None, "custom/x") for seq in seqs]
    path = kit.write_log(tmp_path / "e.jsonl", *events)
    main(["check", str(path)])
    assert [line.removesuffix(" (seqs count events from 0)")
            for line in capsys.readouterr().out.splitlines()] == [
        f"{path}:{line.replace(': ', ': envelope.seq: ', 1)}" for line in expected
    ]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", ["1: header.missing: the file is empty (no session header)"]),
        (b"\n", ["1: file.blank: blank line"]),
        (b'{"type":"session","id":"s"}\n\n', ["2: file.blank: blank line"]),
        (b'{"type":"session","id":"s"}\n[1]\n', ["2: file.json: not a JSON object"]),
        (b'{"type":"session","id":"s"}\n{"type":"t","seq":0,"time":0,"data":NaN}\n',
         ["2: file.json: not JSON (NaN is not a JSON literal)"]),
        (b'{"type":"session","id":"s"}\n{"type":"t","seq":0,"time":0,"data":1}',
         ["2: file.torn: the last line has no newline (a torn write)"]),
        (b'\xef\xbb\xbf{"type":"session","id":"s"}\n',
         ["1: file.json: not JSON (Expecting value at column 1)"]),
    ],
)
def test_physical_line_rules(tmp_path, capsys, content, expected):
    path = tmp_path / "l.jsonl"
    path.write_bytes(content)
    assert main(["check", str(path)]) == 1
    assert capsys.readouterr().out.splitlines() == [f"{path}:{line}" for line in expected]

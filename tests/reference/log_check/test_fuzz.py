"""Arbitrary input never makes ``dsh-log check`` raise: every outcome is a diagnostic.

Generated session files mix envelope-shaped events carrying arbitrary JSON
(schedule changes, turn and step markers, readings with arbitrary text and
numbers), arbitrary JSON objects and arbitrary bytes. The command's contract
(docs/log-check.md): exit 0 or 1, each output line a diagnostic or ``ok``.
"""

from __future__ import annotations

import contextlib
import io
import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh_reference.log_check import main

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=3),
    max_leaves=8,
)
TYPES = st.sampled_from(["schedule/change", "turn/start", "turn/end", "step/start", "step/end",
                         "user/message", "request/header", "x"])
NUMBER_TEXT = st.one_of(st.integers(-2, 2**60).map(str), st.just("9" * 5000), st.just("0"))


@st.composite
def _reading_data(draw):
    text = (f"Time sampled while preparing turn {draw(NUMBER_TEXT)}, step {draw(NUMBER_TEXT)}: "
            f"{draw(st.sampled_from(['2026-01-01T00:00:00+00:00', '2026-02-30T24:00:00Z']))}[UTC]\n"
            f"Elapsed since the preceding {draw(st.sampled_from(['step context', 'x']))}: 1s.")
    return {"content": [{"type": "text", "text": text}],
            "source": {"kind": "plugin", "plugin": "time-context"}}


@st.composite
def _line(draw, seq):
    choice = draw(st.integers(0, 4))
    if choice == 0:
        return draw(st.binary(max_size=30)).replace(b"\n", b"")
    if choice == 1:
        return json.dumps(draw(st.dictionaries(st.text(max_size=5), JSON, max_size=4))).encode()
    data = draw(_reading_data()) if choice == 2 else draw(
        st.one_of(JSON, st.fixed_dictionaries({"turn": JSON, "step": JSON}),
                  st.fixed_dictionaries({"version": st.just(1), "operation": st.sampled_from(
                      ["create", "delete", "dispatch"]), "id": JSON})))
    event = {"type": "user/message" if choice == 2 else draw(TYPES),
             "seq": draw(st.one_of(st.just(seq), JSON)), "time": draw(st.one_of(st.just(0), JSON)),
             "data": data}
    return json.dumps(event).encode()


@st.composite
def _files(draw):
    header = draw(st.one_of(
        st.just(b'{"type":"session","id":"s"}'),
        st.dictionaries(st.text(max_size=5), JSON, max_size=3).map(
            lambda extra: json.dumps({"type": "session", **extra}).encode()),
    ))
    count = draw(st.integers(0, 8))
    lines = [header, *(draw(_line(seq)) for seq in range(count))]
    return b"\n".join(lines) + draw(st.sampled_from([b"\n", b""]))


LINE = re.compile(r"^.+:\d+: [a-z.-]+: .+$|^.+: ok$")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=_files(), official=st.booleans())
def test_any_file_gets_diagnostics_never_an_exception(tmp_path_factory, content, official):
    path = tmp_path_factory.mktemp("fuzz") / "f.jsonl"
    path.write_bytes(content)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["check", *(["--official"] if official else []), str(path)])
    lines = out.getvalue().removesuffix("\n").split("\n")
    assert code in (0, 1)
    assert all(LINE.match(line) for line in lines), lines
    assert (code == 0) == (lines == [f"{path}: ok"])

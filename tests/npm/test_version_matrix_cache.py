"""The version matrix's cell cache is the operator's folder: a cached
``cell.json`` or ``report.json`` that is truncated, edited into another
shape or not a regular file is a missing cell, run again (never a traceback,
never a table built on it); and a matrix that is stopped ends its cell's
pytest and what that started. Pins the kit's own behaviour."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kit_child_processes as children
import pytest

from pytest_dsh.npm.hosts import DEFAULT_HOST
from pytest_dsh.official.version_matrix import (
    Cell,
    build_table,
    render_markdown,
    run_cell,
)

pytestmark = pytest.mark.dsh_wall_budget(120)

CELL = Cell("schedule", "0.1.0-rc.8", DEFAULT_HOST)


def _document() -> dict[str, Any]:
    test = {"id": "t/a", "outcome": "passed", "level": "readme", "plugin": "schedule",
            "sentences": ["SCH-1"]}
    sections = [{"plugin": "schedule", "title": "Tools",
                 "sentences": [{"id": "SCH-1", "tests": ["t/a"]}]}]
    return {"tests": [test], "sections": sections, "verdict": {"overall": "conforms"}}


def _runner(calls: list[Cell], document: object = None):
    def run(cell: Cell, report: Path) -> tuple[int, str]:
        calls.append(cell)
        report.write_text(json.dumps(_document() if document is None else document), "utf-8")
        return 0, ""
    return run


def _cached(tmp_path: Path) -> Path:
    """A finished cell in the cache, as an earlier matrix left it."""
    calls: list[Cell] = []
    run_cell(CELL, tmp_path, _runner(calls), clock=lambda: 0.0)
    assert calls == [CELL]
    return tmp_path / CELL.folder_name


def _record(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "cell.json").read_text())
    return data


def _edit_record(**fields: object):
    def edit(folder: Path) -> None:
        (folder / "cell.json").write_text(json.dumps({**_record(folder), **fields}))
    return edit


def _truncate(name: str):
    def edit(folder: Path) -> None:
        data = (folder / name).read_bytes()
        (folder / name).write_bytes(data[: len(data) // 2])
    return edit


def _replace(name: str, content: bytes):
    def edit(folder: Path) -> None:
        (folder / name).write_bytes(content)
    return edit


def _fifo(name: str):
    def edit(folder: Path) -> None:
        if not hasattr(os, "mkfifo"):
            pytest.skip("needs FIFOs")
        (folder / name).unlink()
        os.mkfifo(folder / name)
    return edit


def _edit_report(change):
    def edit(folder: Path) -> None:
        document = json.loads((folder / "report.json").read_text())
        change(document)
        (folder / "report.json").write_text(json.dumps(document))
    return edit


@pytest.mark.parametrize(
    "damage",
    [
        _truncate("cell.json"),
        _replace("cell.json", b"[]"),
        _replace("cell.json", b"\xff\xfe{}"),
        _edit_record(status="great"),
        _edit_record(message=42),
        _edit_record(seconds="soon"),
        _edit_record(exit_status="0"),
        _edit_record(cell="time-context@9 on 0.0.0"),
        _fifo("cell.json"),
        _truncate("report.json"),
        _replace("report.json", b"\xe9"),
        _edit_report(lambda d: d.update(tests={"t/a": "passed"})),
        _edit_report(lambda d: d["tests"][0].pop("outcome")),
        _edit_report(lambda d: d.pop("verdict")),
        _edit_report(lambda d: d["sections"][0].update(sentences=[{"tests": "t/a"}])),
        _fifo("report.json"),
        lambda folder: (folder / "report.json").unlink(),
    ],
    ids=[
        "cell-truncated", "cell-a-list", "cell-not-utf-8", "cell-unknown-status",
        "cell-message-a-number", "cell-seconds-a-string", "cell-exit-status-a-string",
        "cell-of-another-cell", "cell-a-fifo", "report-truncated", "report-not-utf-8",
        "report-tests-a-map", "report-test-without-outcome", "report-without-verdict",
        "report-sentence-tests-a-string", "report-a-fifo", "report-removed",
    ],
)
def test_a_damaged_cached_cell_is_run_again_and_the_table_is_built(tmp_path, damage):
    folder = _cached(tmp_path)
    damage(folder)
    calls: list[Cell] = []
    result = run_cell(CELL, tmp_path, _runner(calls), clock=lambda: 0.0)
    assert calls == [CELL], "a cell the cache cannot vouch for runs again"
    assert result.status == "ran" and result.document is not None
    table = build_table([result], {}, [DEFAULT_HOST])
    assert "| **verdict** | | conforms |" in render_markdown(table)
    assert _record(folder)["status"] == "ran"
    assert not list(folder.glob(".*partial")), "the record is written by write-then-rename"


def test_a_cell_whose_fresh_report_is_unusable_says_why_and_is_no_table_row(tmp_path):
    calls: list[Cell] = []
    result = run_cell(CELL, tmp_path, _runner(calls, document=["not", "a", "report"]),
                      clock=lambda: 0.0)
    assert result.status == "no report" and result.document is None
    assert "report.json: is not a JSON object" in result.message
    table = build_table([result], {}, [DEFAULT_HOST])
    assert "**no report**" in render_markdown(table)


# -- a stopped matrix ends its cell -------------------------------------------

#: A cell's pytest: starts a grandchild (as pytest starts the bridge's Node),
#: says both pids through a FIFO, then waits for ever (no sleep).
_CELL_CHILD = """
import os, subprocess, sys, threading
forever = "import threading; threading.Event().wait()"
grandchild = subprocess.Popen([sys.executable, "-c", forever])
with open(sys.argv[1], "w") as fifo:
    fifo.write(f"{os.getpid()} {grandchild.pid}")
threading.Event().wait()
"""

#: A cell's pytest that outlives SIGTERM (a bridge slow to close): says its
#: pids, then "TERM" for each SIGTERM, through the FIFO it keeps open. It
#: writes unbuffered: a buffered file's flush runs signal handlers while it
#: holds the file's lock, so a handler writing to it could fail as reentrant.
_STUBBORN_CELL = """
import os, signal, subprocess, sys, threading
forever = "import threading; threading.Event().wait()"
grandchild = subprocess.Popen([sys.executable, "-c", forever])
said = os.open(sys.argv[1], os.O_WRONLY)
signal.signal(signal.SIGTERM, lambda signum, frame: os.write(said, b"TERM\\n"))
os.write(said, f"{os.getpid()} {grandchild.pid}\\n".encode())
threading.Event().wait()
"""

#: The matrix command with the registry and the suite replaced:
#: ``OUT FIFO CELL HOST``. What a cell leaves running after SIGTERM is killed
#: after 2 s (10 s in a real run).
_MATRIX = """
import sys
from pytest_dsh.official import version_matrix as vm
vm._GRACE_S = 2.0
vm.published_versions = lambda package, npm="npm": ["0.1.0-rc.8"]
child = sys.argv[3]
vm.suite_runner = lambda extra=(): (
    lambda cell, report: vm.run_child([sys.executable, "-c", child, sys.argv[2]]))
sys.exit(vm.main(["--out", sys.argv[1], "--role", "schedule", "--host", sys.argv[4]]))
"""


#: Runs ``python ARGS...`` with one signal's disposition set first:
#: ``default|ignored SIGNAME ARGS...``. An ignored signal stays ignored across
#: exec, and Python installs its SIGINT handler only when SIGINT is not ignored.
_STARTED_WITH = """
import os, signal, sys
disposition = {"default": signal.SIG_DFL, "ignored": signal.SIG_IGN}[sys.argv[1]]
signal.signal(getattr(signal, sys.argv[2]), disposition)
os.execv(sys.executable, [sys.executable, *sys.argv[3:]])
"""


def _start_matrix(tmp_path: Path, sig: signal.Signals, disposition: str,
                  cell: str = _CELL_CHILD) -> tuple[subprocess.Popen[str], Path]:
    """The matrix, started with ``sig`` at ``disposition`` whatever this run
    inherited (a run started in the background of a shell without job control
    has SIGINT ignored), and the FIFO its cell says its pids through."""
    gate = tmp_path / "started"
    os.mkfifo(gate)
    matrix = subprocess.Popen(
        [sys.executable, "-c", _STARTED_WITH, disposition, sig.name,
         "-c", _MATRIX, str(tmp_path / "out"), str(gate), cell, DEFAULT_HOST],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    return matrix, gate


#: The stopped-matrix tests wait on pids (pidfd) and talk through FIFOs.
_NEEDS_PIDFD_AND_FIFOS = pytest.mark.skipif(
    not hasattr(os, "pidfd_open") or not hasattr(os, "mkfifo"),
    reason="needs os.pidfd_open and FIFOs (Linux)",
)


def _wait_gone(pid: int, timeout: float) -> bool:
    """Whether ``pid`` (not our child) exits within ``timeout`` (pidfd: no polling)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def _read_fifo(path: Path, timeout: float) -> str:
    found: list[str] = []

    def read() -> None:
        with open(path) as fifo:
            found.append(fifo.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    assert found, "the cell's pytest never started"
    return found[0]


def _assert_stopped_by(matrix: subprocess.Popen[str], sig: signal.Signals,
                       pids: list[int]) -> None:
    """The matrix ends, exits 128 + ``sig`` and names it, and its cell's
    processes are gone."""
    __tracebackhide__ = True
    try:
        _, stderr = matrix.communicate(timeout=children.child_timeout(60))
    except subprocess.TimeoutExpired:
        pytest.fail(f"the matrix did not end after {sig.name}: "
                    f"{children.signal_state(matrix.pid)}", pytrace=False)
    assert matrix.returncode == 128 + sig, stderr
    assert f"stopped by {sig.name}" in stderr and "Traceback" not in stderr, stderr
    assert all(_wait_gone(pid, 30) for pid in pids), "the cell's processes outlived it"


@contextlib.contextmanager
def _killed_afterwards(matrix: subprocess.Popen[str], pids: list[int]) -> Iterator[None]:
    """Whatever the test found, nothing it started outlives it."""
    try:
        yield
    finally:
        for pid in [matrix.pid, *pids]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        matrix.wait()


@_NEEDS_PIDFD_AND_FIFOS
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP],
                         ids=["SIGTERM", "SIGINT", "SIGHUP"])
def test_a_stopped_matrix_ends_its_cells_pytest_and_what_that_started(tmp_path, sig):
    matrix, gate = _start_matrix(tmp_path, sig, "default")  # as from a terminal
    out = tmp_path / "out"
    pids: list[int] = []
    with _killed_afterwards(matrix, pids):
        pids += [int(pid) for pid in _read_fifo(gate, 60).split()]
        matrix.send_signal(sig)
        _assert_stopped_by(matrix, sig, pids)
    assert not (out / "cells" / CELL.folder_name / "cell.json").exists(), "runs again next time"


@_NEEDS_PIDFD_AND_FIFOS
@pytest.mark.parametrize("ignored", [signal.SIGINT, signal.SIGHUP], ids=["SIGINT", "SIGHUP"])
def test_a_signal_the_matrix_was_started_with_ignored_does_not_stop_it(tmp_path, ignored):
    # nohup ignores SIGHUP so that a matrix outlives its terminal. The ignored
    # signal is sent first: a matrix that acted on it would say so and exit
    # 128 + it; SIGTERM then stops the matrix that did not.
    matrix, gate = _start_matrix(tmp_path, ignored, "ignored")
    pids: list[int] = []
    with _killed_afterwards(matrix, pids):
        pids += [int(pid) for pid in _read_fifo(gate, 60).split()]
        matrix.send_signal(ignored)
        matrix.send_signal(signal.SIGTERM)
        _assert_stopped_by(matrix, signal.SIGTERM, pids)


def _next(lines: queue.Queue[str], timeout: float, otherwise: str) -> str:
    """The cell's next line ("" once it has died), or a failure saying ``otherwise``."""
    try:
        return lines.get(timeout=timeout)
    except queue.Empty:
        pytest.fail(f"{otherwise} within {timeout:g} s", pytrace=False)


@_NEEDS_PIDFD_AND_FIFOS
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_second_signal_does_not_cut_the_ending_of_the_cell_short(tmp_path, sig):
    # Ctrl-C pressed twice: the second press comes while the matrix waits for
    # the cell it sent SIGTERM to. It must not start the ending again, nor
    # leave before the cell's group is killed.
    matrix, gate = _start_matrix(tmp_path, sig, "default", cell=_STUBBORN_CELL)
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        with open(gate) as fifo:  # the cell opens it: the matrix runs
            for line in fifo:
                lines.put(line)
        lines.put("")  # the cell has died

    threading.Thread(target=read, daemon=True).start()
    pids: list[int] = []
    with _killed_afterwards(matrix, pids):
        pids += [int(pid) for pid in _next(lines, 60, "the cell's pytest never started").split()]
        matrix.send_signal(sig)
        said = _next(lines, 30, "the cell said nothing")
        assert said == "TERM\n", f"the matrix did not end its cell: {said!r}"
        matrix.send_signal(sig)  # while the matrix waits out the grace
        _assert_stopped_by(matrix, sig, pids)
        again = list(iter(lambda: _next(lines, 30, "the cell outlived the matrix"), ""))
        assert again == [], f"the cell was sent SIGTERM again: {again}"

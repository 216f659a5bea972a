"""The kit's tests' child processes end before their test's wall budget and
fail it with what they printed (``tests/child_processes.py``), rather than
dying with the test at the budget's bare alarm."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
from pathlib import Path

import kit_child_processes as children
import pytest

#: A child that prints to both streams, starts a grandchild that never ends
#: and then never ends itself.
_HANGS = """
import subprocess, sys, threading
forever = "import threading; threading.Event().wait()"
grandchild = subprocess.Popen([sys.executable, "-c", forever])
print("child-started", grandchild.pid, flush=True)
print("child-warning", file=sys.stderr, flush=True)
threading.Event().wait()
"""


def _stopped_after(message: str) -> float:
    found = re.search(r"did not end within ([\d.]+) s \(its test's wall budget less a margin\)",
                      message)
    assert found, message
    return float(found[1])


def _gone(pid: int, within: float = 1.0) -> bool:
    """The process ends within ``within`` seconds (a zombie left for its new
    parent to reap counts). A SIGKILL sent to a process group is delivered
    asynchronously: the grandchild may still be running for a moment after
    its parent was reaped, so this waits on a pidfd for its exit rather than
    reading its state once."""
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        if select.select([descriptor], [], [], within)[0]:
            return True
    finally:
        os.close(descriptor)
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


@pytest.mark.dsh_wall_budget(50)
def test_a_child_gets_what_the_budget_has_left_less_a_margin():
    left = children.child_timeout()
    assert left is not None and 40 < left <= 45
    assert children.child_timeout(3) == 3


@pytest.mark.dsh_wall_budget(0)
def test_an_unlimited_test_leaves_its_child_the_caller_s_timeout():
    assert children.child_timeout() is None
    assert children.child_timeout(7) == 7


@pytest.mark.dsh_wall_budget(4)
def test_a_child_that_never_ends_fails_with_its_output_and_its_children_stopped():
    with pytest.raises(pytest.fail.Exception) as failed:
        children.run([sys.executable, "-c", _HANGS], capture_output=True, text=True)
    message = str(failed.value)
    assert _stopped_after(message) < 4
    assert "child-started" in message and "child-warning" in message
    grandchild = int(message.split("child-started ", 1)[1].split()[0])
    assert _gone(grandchild), f"the grandchild {grandchild} outlived its stopped parent"


def test_a_child_that_ends_is_subprocess_run_s_result():
    done = children.run([sys.executable, "-c", "import sys; print(sys.stdin.read() or 'eof')"],
                        capture_output=True, text=True, check=True)
    assert (done.returncode, done.stdout) == (0, "eof\n")
    given = children.run([sys.executable, "-c", "import sys; print(sys.stdin.read())"],
                         input="given", capture_output=True, text=True)
    assert given.stdout == "given\n"
    with pytest.raises(Exception, match="returned non-zero exit status 3"):
        children.run([sys.executable, "-c", "raise SystemExit(3)"], check=True)


@pytest.mark.dsh_wall_budget(10)
def test_a_nested_pytest_that_never_ends_fails_with_its_output(pytester):
    pytester.makepyfile(test_hangs="""
        import sys, threading
        def test_hangs():
            print("inner-started", flush=True)
            print("inner-warning", file=sys.stderr, flush=True)
            threading.Event().wait()
    """)
    with pytest.raises(pytest.fail.Exception) as failed:
        children.runpytest_subprocess(pytester, "-s", "-p", "no:randomly",
                                      "--dsh-wall-budget=0")
    message = str(failed.value)
    assert _stopped_after(message) < 10
    assert "inner-started" in message and "inner-warning" in message


def test_a_child_in_a_new_folder_shares_the_caches_but_not_the_examples(tmp_path):
    from hypothesis.configuration import storage_directory

    shared = storage_directory(intent_to_write=False).path.resolve()
    code = ("from hypothesis.configuration import storage_directory as s; "
            "print(s('unicode_data').path.resolve(), s('examples').path.resolve())")
    done = children.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                        text=True, check=True)
    tables, examples = done.stdout.split()
    assert Path(tables) == shared / "unicode_data"
    assert Path(examples) == tmp_path.resolve() / ".hypothesis" / "examples"
    # A folder with its own .hypothesis keeps it whole.
    own = tmp_path / "own"
    (own / ".hypothesis").mkdir(parents=True)
    children.run([sys.executable, "-c", "pass"], cwd=own, check=True)
    assert list((own / ".hypothesis").iterdir()) == []


@pytest.mark.dsh_wall_budget(4)
def test_a_child_that_writes_no_line_fails_with_what_it_wrote_and_is_stopped():
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys, threading\nprint('first', flush=True)\n"
         "sys.stdout.write('half a line'); sys.stdout.flush()\nthreading.Event().wait()"],
        stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert children.read_line(child) == "first\n"
        with pytest.raises(pytest.fail.Exception) as failed:
            children.read_line(child)
        message = str(failed.value)
        assert "did not write a line within" in message and f"(pid {child.pid})" in message
        assert "half a line" in message
        assert child.wait(timeout=5) == -signal.SIGKILL
    finally:
        child.kill()
        child.wait()


def test_a_line_read_keeps_the_rest_of_the_stream_in_order():
    child = subprocess.Popen([sys.executable, "-c", "print('one'); print('two'); print('three')"],
                             stdout=subprocess.PIPE)
    assert children.read_line(child) == b"one\n"
    assert child.stdout is not None and child.stdout.read() == b"two\nthree\n"
    assert child.wait(timeout=children.child_timeout(30)) == 0


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads Linux's /proc")
def test_a_processs_signal_state_names_the_signals_it_ignores_and_catches():
    # A SIGINT that has no effect on a child is most often one it inherited
    # ignored (a background job of a shell without job control): the state
    # a failure quotes names it.
    child = subprocess.Popen(
        [sys.executable, "-c", "import signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN);"
         " signal.signal(signal.SIGTERM, lambda *_: None); print('ready', flush=True);"
         " sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert children.read_line(child, 30) == "ready\n"
        state = children.signal_state(child.pid)
    finally:
        child.kill()
        child.communicate()
    fields = dict(part.split(": ", 1) for part in state.split("; ")[1:-1])
    assert "SIGINT" in fields["SigIgn"].split(", "), state
    assert "SIGTERM" in fields["SigCgt"].split(", "), state
    assert fields["SigPnd"] == "none", state
    assert state.startswith(f"process {child.pid}: State: "), state

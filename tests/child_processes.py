"""Child processes of the kit's tests, each ended before its test's wall budget.

A test's wall budget (``dsh_wall_budget``, 120 s unless marked) ends a test
that overran with a bare alarm: a child process still running then dies with
everything it printed, and the failure says nothing of what it was doing.
These helpers give a child the time its test's phase has left, less a margin
(or the caller's own timeout when that is shorter), and when the child does
not end in time they stop it, with its own children, and fail the test with
the end of what it printed.

Loaded by ``tests/conftest.py`` as the module ``kit_child_processes`` (the
kit runs its tests with ``--import-mode=importlib``)."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, NoReturn

import pytest

from pytest_dsh.driving import runaway

__all__ = ["child_timeout", "read_line", "run", "runpytest_subprocess", "share_hypothesis_caches",
           "signal_state"]

#: What a stopped child leaves for the killing, the last reads and the report.
_MARGIN_S: Final = 10.0
#: The end of each stream quoted in a failure.
_TAIL: Final = 4000


def child_timeout(timeout: float | None = None) -> float | None:
    """Seconds a child may run: what the running phase's wall budget has left,
    less a margin (a tenth of what is left, at most 10 s), or ``timeout`` when
    that is shorter; ``None`` (no limit) only when neither limits it."""
    left = runaway.budget.wall_left()
    if left is None:
        return timeout
    allowed = max(left - min(_MARGIN_S, left / 10), 0.1)
    return allowed if timeout is None else min(timeout, allowed)


def _text(output: str | bytes | None) -> str:
    return output.decode("utf-8", "replace") if isinstance(output, bytes) else output or ""


def _printed(stdout: str | bytes | None, stderr: str | bytes | None) -> str:
    return (f"--- stdout (end) ---\n{_text(stdout)[-_TAIL:]}\n"
            f"--- stderr (end) ---\n{_text(stderr)[-_TAIL:]}")


def _fail(what: object, limit: float, printed: str, *, did: str = "end") -> NoReturn:
    __tracebackhide__ = True
    pytest.fail(f"{what} did not {did} within {limit:.1f} s (its test's wall budget less a "
                f"margin) and was stopped; it printed:\n{printed}", pytrace=False)


def _command(args: Any) -> str:
    """A child's command line as a failure names it."""
    return str(args) if isinstance(args, (str, bytes)) else " ".join(map(str, args))


def _stop(process: subprocess.Popen[Any], group: bool) -> None:
    """Kill the child, with its process group (its own children too:
    pytest-xdist workers, npm, Node) when it leads one."""
    try:
        if group:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except ProcessLookupError:
        pass


def signal_state(pid: int) -> str:
    """What the kernel says of a process's signals (pending, blocked, ignored,
    caught) and where it waits: for a failure about a signal that had no
    effect, so it tells a lost signal from a slow exit. Linux only; elsewhere
    a sentence saying so."""
    proc = Path("/proc") / str(pid)
    try:
        status = (proc / "status").read_text().splitlines()
        wchan = (proc / "wchan").read_text().strip() or "-"
    except OSError as exc:
        return f"no kernel state for process {pid}: {exc}"
    masks = ("SigPnd:", "ShdPnd:", "SigBlk:", "SigIgn:", "SigCgt:")
    said = []
    for line in status:
        field, _, value = line.partition(":")
        if line.startswith("State:"):
            said.append(" ".join(line.split()))
        elif line.startswith(masks):
            said.append(f"{field}: {_signal_names(value.strip())}")
    return f"process {pid}: " + "; ".join(said) + f"; waiting in {wchan}"


def _signal_names(mask: str) -> str:
    """A ``/proc`` signal mask (hex, bit n-1 for signal n) as signal names:
    a mask whose SIGINT is ignored says so, not ``0000000000000002``."""
    try:
        bits = int(mask, 16)
    except ValueError:
        return mask
    names = []
    for number in range(1, bits.bit_length() + 1):
        if bits >> (number - 1) & 1:
            try:
                names.append(signal.Signals(number).name)
            except ValueError:  # a real-time signal
                names.append(str(number))
    return ", ".join(names) or "none"


#: What Hypothesis computes once and keeps under its storage folder (the
#: ``.hypothesis`` folder of the working folder): the Unicode tables of its
#: text strategies and each source file's constants, keyed by the file's hash;
#: ``tmp`` is where it writes them before renaming them into place.
_CACHES: Final = ("unicode_data", "constants", "tmp")
_CHECKOUT: Final = Path(__file__).resolve().parents[1]


def share_hypothesis_caches(folder: str | os.PathLike[str]) -> None:
    """Let a child that starts in ``folder`` read and fill this run's
    Hypothesis caches instead of computing them again (about 1 s of CPU per
    pytest process in a new folder): links to them in ``folder/.hypothesis``.
    Only the caches are shared, never an example database; a folder that
    already has a ``.hypothesis``, and a folder of the checkout (which keeps
    its own from run to run), are left as they are."""
    from hypothesis.configuration import storage_directory

    home = Path(folder).resolve() / ".hypothesis"
    shared = storage_directory(intent_to_write=False).path.resolve()
    if home.exists() or home == shared or home.is_relative_to(_CHECKOUT):
        return
    home.mkdir()
    for name in _CACHES:
        (shared / name).mkdir(parents=True, exist_ok=True)
        (home / name).symlink_to(shared / name, target_is_directory=True)


def run(
    args: Sequence[str | os.PathLike[str]] | str,
    *,
    timeout: float | None = None,
    input: str | bytes | None = None,
    capture_output: bool = False,
    check: bool = False,
    **popen: Any,
) -> subprocess.CompletedProcess[Any]:
    """:func:`subprocess.run` ended before the test's wall budget (see
    :func:`child_timeout`). The child runs in a session of its own, so that
    stopping it stops its children, and reads an empty stdin unless given one.
    A child that does not end in time fails the test with what it printed."""
    __tracebackhide__ = True
    limit = child_timeout(timeout)
    if popen.get("cwd") is not None:
        share_hypothesis_caches(popen["cwd"])
    if capture_output:
        popen["stdout"] = popen["stderr"] = subprocess.PIPE
    if input is not None:
        popen["stdin"] = subprocess.PIPE
    popen.setdefault("stdin", subprocess.DEVNULL)
    popen.setdefault("start_new_session", True)
    group = bool(popen["start_new_session"])
    with subprocess.Popen(args, **popen) as process:
        try:
            stdout, stderr = process.communicate(input, timeout=limit)
        except subprocess.TimeoutExpired as stopped:
            _stop(process, group)
            out, err = stopped.stdout, stopped.stderr
            try:  # what the child wrote before it was stopped and is still unread
                out, err = process.communicate(timeout=5)
            except subprocess.TimeoutExpired as late:  # a grandchild holds the pipes
                out, err = late.stdout or out, late.stderr or err
            assert limit is not None
            _fail(_command(args), limit, _printed(out, err))
        except BaseException:  # the budget's own alarm, an interrupt: no orphan
            _stop(process, group)
            raise
    done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    if check:
        done.check_returncode()
    return done


def read_line(process: subprocess.Popen[Any], timeout: float | None = None) -> Any:
    """The next line ``process`` writes to its stdout pipe, waited for no longer
    than the test's wall budget allows (see :func:`child_timeout`). A child
    that writes no line in time is killed, with its process group when it
    leads one, and fails the test with the end of its stdout; its stderr goes
    where the test's does, into the test's report."""
    __tracebackhide__ = True
    stdout = process.stdout
    assert stdout is not None, "read_line needs stdout=subprocess.PIPE"
    limit = child_timeout(timeout)
    said: list[Any] = []
    # The buffered reader has no timeout of its own: a thread waits on it, so
    # that what a later readline() or read() gets is still in order.
    reader = threading.Thread(target=lambda: said.append(stdout.readline()), daemon=True)
    reader.start()
    reader.join(limit)
    if said:
        return said[0]
    _stop(process, _leads_group(process))
    reader.join(5)  # the kill ends the pipe, unless a grandchild still holds it
    assert limit is not None
    _fail(f"{_command(process.args)} (pid {process.pid})", limit,
          _printed(said[0] if said else "", ""), did="write a line")


def _leads_group(process: subprocess.Popen[Any]) -> bool:
    try:
        return os.getpgid(process.pid) == process.pid
    except ProcessLookupError:
        return False


def runpytest_subprocess(
    pytester: pytest.Pytester, *args: str | os.PathLike[str], timeout: float | None = None
) -> pytest.RunResult:
    """``pytester.runpytest_subprocess`` ended before the test's wall budget:
    a run that does not end in time fails the test with what it printed."""
    __tracebackhide__ = True
    limit = child_timeout(timeout)
    share_hypothesis_caches(pytester.path)
    try:
        return pytester.runpytest_subprocess(*args, timeout=limit)
    except pytester.TimeoutExpired:
        assert limit is not None
        printed = _printed(*((pytester.path / name).read_text("utf-8", "replace")
                             for name in ("stdout", "stderr")))
        _fail(f"pytest {' '.join(map(str, args))}", limit, printed)

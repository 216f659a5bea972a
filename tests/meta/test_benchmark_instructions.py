"""The instruction-count benchmark keeps working: its workloads count their
units, its table divides by them, and a missing Valgrind or an unknown
workload is a clear error. Valgrind itself is replaced by a stand-in that runs
the workload and reports a made-up count (a real run takes minutes); the
figures are reported, never asserted."""

from __future__ import annotations

import os
import pathlib
import re
import stat
import sys

import kit_child_processes as children

SCRIPT = pathlib.Path(__file__).parents[2] / "benchmarks" / "instructions.py"

# Runs the command after valgrind's options and reports 5,000,000 instructions
# plus 700 per unit the workload printed, as callgrind reports its total.
# With ``{full}`` a Python expression of ``units``, it reports that many full
# collections instead of the child's own.
_STAND_IN = """#!{python}
import subprocess, sys
command = [arg for arg in sys.argv[1:] if not arg.startswith("--")][:1]
command += sys.argv[sys.argv.index(command[0]) + 1:]
done = subprocess.run(command, capture_output=True, text=True)
units = int(done.stdout.split()[-1])
full = {full}
sys.stdout.write(done.stdout if full is None else f"{{full}} {{units}}\\n")
sys.stderr.write(f"==1== I   refs:      {{5_000_000 + 700 * units:,}}\\n")
sys.exit(done.returncode)
"""


def _run(*arguments: str, path: str, cwd: pathlib.Path):
    return children.run(
        [sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True,
        check=False, cwd=cwd, env={**os.environ, "PATH": path},
    )


def test_each_workload_counts_its_units(tmp_path):
    # Half a simulated day of a 5-minute reminder is 144 deliveries; the DST
    # workload replays exactly the cases it was asked for.
    # The word before the units is the run's count of full collections.
    for workload, size, units in (("delivery", "0.5", "144"), ("dst-create", "61", "61")):
        done = _run("--child", workload, size, path=os.environ["PATH"], cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        full, printed_units = done.stdout.split()[-2:]
        assert printed_units == units
        assert full.isdigit()


def _with_stand_in(tmp_path: pathlib.Path, text: str) -> str:
    """A PATH whose ``valgrind`` is the script ``text``."""
    stand_in = tmp_path / "bin" / "valgrind"
    stand_in.parent.mkdir()
    stand_in.write_text(text)
    stand_in.chmod(stand_in.stat().st_mode | stat.S_IXUSR)
    return f"{stand_in.parent}{os.pathsep}{os.environ['PATH']}"


def test_the_table_gives_the_instructions_of_one_unit(tmp_path):
    path = _with_stand_in(tmp_path, _STAND_IN.format(python=sys.executable, full="None"))
    done = _run("--only", "delivery", path=path, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # 1 and 3 simulated days: 288 and 864 deliveries, 700 instructions each;
    # the full collections are the runs' own (they depend on the interpreter).
    assert re.search(
        r"^\| delivery \| 288, 864 \| 5,201,600, 5,604,800 \| \d+, \d+ \| 700 \|$",
        done.stdout, re.MULTILINE,
    ), done.stdout
    # A count holds for one interpreter build: the first line names it.
    assert done.stdout.startswith("CPython ") and "; PYTHONHASHSEED=0\n" in done.stdout


def test_a_missing_valgrind_or_workload_is_a_clear_error(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    done = _run(path=str(empty), cwd=tmp_path)
    assert done.returncode == 1
    assert "valgrind is not on PATH" in done.stderr
    done = _run("--only", "delivery,nope", path=str(empty), cwd=tmp_path)
    assert done.returncode == 2
    assert "unknown workload(s) nope; known: delivery, dst-create" in done.stderr


def test_a_run_that_printed_no_units_is_a_clear_error(tmp_path):
    # A count with no units beside it: the run failed, even though the
    # stand-in exits 0 and reports instructions.
    silent = f"#!{sys.executable}\nimport sys\nsys.stderr.write('==1== I   refs:      5,000\\n')\n"
    done = _run("--only", "delivery", path=_with_stand_in(tmp_path, silent), cwd=tmp_path)
    assert done.returncode == 1
    assert "delivery at 1 failed under valgrind" in done.stderr
    assert "Traceback" not in done.stderr


def test_sizes_with_different_full_collections_are_called_out(tmp_path):
    # One more full collection in the large run is a step inside its count,
    # not a cost of each unit: the table says so under the row.
    uneven = _STAND_IN.format(python=sys.executable, full="1 if units > 500 else 0")
    done = _run("--only", "delivery", path=_with_stand_in(tmp_path, uneven), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "| 0, 1 | 700 |" in done.stdout
    assert ("The two sizes of delivery made different numbers of full collections: "
            "its instructions per unit include that difference.") in done.stdout
    even = tmp_path / "even"
    even.mkdir()
    same = _STAND_IN.format(python=sys.executable, full="2")
    done = _run("--only", "delivery", path=_with_stand_in(even, same), cwd=even)
    assert done.returncode == 0, done.stderr
    assert "| 2, 2 | 700 |" in done.stdout
    assert "different numbers of full collections" not in done.stdout


def test_sizes_that_did_the_same_units_are_a_clear_error(tmp_path):
    # Whatever the size, the stand-in's child "did" 100 units: no difference
    # to divide by, so no figure is printed.
    fixed = (f"#!{sys.executable}\nimport sys\nprint('0 100')\n"
             "sys.stderr.write('==1== I   refs:      5,000\\n')\n")
    done = _run("--only", "delivery", path=_with_stand_in(tmp_path, fixed), cwd=tmp_path)
    assert done.returncode == 1
    assert ("delivery: the large run did 100 units and the small one 100; a count per "
            "unit needs more in the large one") in done.stderr
    assert "| delivery |" not in done.stdout
    assert "Traceback" not in done.stderr

"""The collector settings of a conformance run (pytest_dsh/pytest_plugin/gc_baseline.py):
a run that names an implementation freezes what collection built and raises
the young threshold while it lasts, and gives both back when it ends; any
other pytest run in an environment with the kit installed keeps the
collector as it found it."""

from __future__ import annotations

import sys

from pytest_dsh.pytest_plugin.gc_baseline import YOUNG_THRESHOLD

DRIVER = """
import atexit, gc, sys, pytest
# Registered first, so it runs last: what the interpreter's closing collections see.
atexit.register(lambda: print("EXIT", gc.get_freeze_count() > 0, flush=True))
gc.set_threshold(700, 10, 10)
before = gc.get_threshold()
code = pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly", *sys.argv[1:],
                    "test_inside.py"])
print("AFTER", gc.get_threshold() == before, gc.get_freeze_count())
sys.exit(code)
"""

INSIDE = """
import gc, json, os

def test_record_the_collector():
    with open("inside.json", "w") as out:
        json.dump({"young": gc.get_threshold()[0], "frozen": gc.get_freeze_count()}, out)
"""


def run(pytester, *args: str) -> tuple[dict[str, int], str, str]:
    import json

    pytester.makepyfile(driver=DRIVER, test_inside=INSIDE)
    result = pytester.run(sys.executable, "driver.py", *args)
    assert result.ret == 0, result.stdout.str()[-2000:]
    inside = json.loads((pytester.path / "inside.json").read_text("utf-8"))
    after = [line for line in result.outlines if line.startswith("AFTER ")]
    at_exit = [line for line in result.outlines if line.startswith("EXIT ")]
    assert len(after) == len(at_exit) == 1, result.stdout.str()[-2000:]
    return inside, after[0], at_exit[0]


def test_a_conformance_run_keeps_its_collected_tests_out_of_the_collectors_way(pytester):
    inside, after, at_exit = run(pytester, "--dsh-impl=reference")
    assert inside["young"] == YOUNG_THRESHOLD
    assert inside["frozen"] > 0
    # The run's end puts the thresholds back and unfreezes.
    assert after == "AFTER True 0"
    # At the process's exit, what is left is frozen: the interpreter's closing
    # collections do not walk it.
    assert at_exit == "EXIT True"


def test_a_run_naming_no_implementation_leaves_the_collector_alone(pytester):
    inside, after, at_exit = run(pytester)
    assert inside == {"young": 700, "frozen": 0}
    assert after == "AFTER True 0"
    assert at_exit == "EXIT False"

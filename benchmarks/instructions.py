"""Instructions per unit of work on the reference: a cost that does not drift.

CPU time on a shared machine moves by a fifth either way between runs of the
same code (docs/performance.md), so a cut of a few per cent cannot be shown
with it. This script counts the instructions the interpreter executes, with
Valgrind's ``callgrind`` tool, for two workloads of the reference, each at a
small and a large size; the difference divided by the difference in units is
the cost of one unit, with start-up (imports, plugin load, the first fold)
cancelled out:

* ``delivery``: the benchmark's simulated Every (one 5-minute reminder, one
  scripted turn per delivery) over 1 and 3 simulated days;
* ``dst-create``: the full DST tables' replay (``schedule_create`` of a local
  ``at`` on one agent per 60 cases, each case's new events read), over the
  first 120 and 480 cases of the tables.

Run it after ``make install`` with ``.venv/bin/python benchmarks/instructions.py``
(a few minutes: Valgrind runs the interpreter about 50 times slower). The count
repeats to within 0.1 % (a delivery) and 0.3 % (a DST create) for the same
interpreter, packages and environment; ``PYTHONHASHSEED`` is fixed so that hashing does not vary it.
Compare two versions of the code by running this script on each: the figures
are counts, not times, so the machine's load does not enter them.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from interpreter import interpreter

#: The two sizes of each workload (days, cases): large minus small is measured.
SIZES: dict[str, tuple[float, float]] = {"delivery": (1, 3), "dst-create": (120, 480)}
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


class Count(NamedTuple):
    workload: str
    units: int
    instructions: int
    #: Full (oldest-generation) collections the run made: each walks every
    #: tracked object, a cost that does not grow with the units.
    full_collections: int


def _delivery(days: float) -> int:
    sys.path.insert(0, str(Path(__file__).parent))
    from run import simulate_every  # the benchmark's own simulated span

    return simulate_every("reference", days).dispatches


def _dst_create(cases: float) -> int:
    from pytest_dsh.driving.api import HostDriver
    from pytest_dsh.implementations import resolve_implementation

    # The suite's own replay and case reading, untyped test modules: imported
    # by name so that the type checker judges this script, not them.
    tables: Any = importlib.import_module("dsh_conformance.dst.test_dst_tables")
    wanted = int(cases)
    implementation = resolve_implementation("reference")
    hosts: list[HostDriver] = []

    def open_host(**options: Any) -> HostDriver:
        host = implementation.open_host(**options)
        hosts.append(host)
        return host

    replayed = 0
    try:
        for zone in tables._zone_names():
            if replayed >= wanted:
                break
            zone_cases = tables.table_cases(tables._transitions_by_zone()[zone])
            zone_cases = zone_cases[: wanted - replayed]
            tables._replay(open_host, zone, zone_cases)
            replayed += len(zone_cases)
    finally:
        for host in hosts:
            host.close()
    return replayed


WORKLOADS: dict[str, Callable[[float], int]] = {"delivery": _delivery, "dst-create": _dst_create}


def count(workload: str, size: float, python: str) -> Count:
    """Run one workload at one size under callgrind: its units and instructions."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
               python, __file__, "--child", workload, repr(size)]
    environment = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=environment, check=False)
    match = _REFS.search(done.stderr)
    # The child's last two words: its full collections, then its units.
    printed = done.stdout.split()[-2:]
    if (done.returncode != 0 or match is None or len(printed) != 2
            or not all(word.isdigit() for word in printed)):
        raise SystemExit(f"{workload} at {size:g} failed under valgrind:\n{done.stderr[-2000:]}")
    return Count(workload, int(printed[1]), int(match.group(1).replace(",", "")),
                 int(printed[0]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(WORKLOADS),
                        help="comma-separated workloads: " + ", ".join(WORKLOADS))
    parser.add_argument("--child", nargs=2, metavar=("WORKLOAD", "SIZE"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        workload, size = options.child
        units = WORKLOADS[workload](float(size))
        print(gc.get_stats()[-1]["collections"], units)
        return
    workloads = [name.strip() for name in options.only.split(",") if name.strip()]
    unknown = sorted(set(workloads) - set(WORKLOADS))
    if unknown or not workloads:
        parser.error(f"unknown workload(s) {', '.join(unknown) or '(none given)'}; "
                     f"known: {', '.join(WORKLOADS)}")
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not on PATH: this script counts instructions with its "
                         "callgrind tool (Debian: apt-get install valgrind)")
    # A count holds for one interpreter build only: say which.
    print(f"{interpreter()}; PYTHONHASHSEED=0\n")
    print("| workload | units (small, large) | instructions (small, large) "
          "| full collections (small, large) | instructions per unit |")
    print("|---|---|---|---|---|")
    uneven: list[str] = []
    for workload in workloads:
        small, large = (count(workload, size, sys.executable) for size in SIZES[workload])
        if large.units <= small.units:  # nothing to divide the difference by
            raise SystemExit(f"{workload}: the large run did {large.units:,} units and the "
                             f"small one {small.units:,}; a count per unit needs more in the "
                             "large one")
        per_unit = (large.instructions - small.instructions) / (large.units - small.units)
        print(f"| {workload} | {small.units:,}, {large.units:,} "
              f"| {small.instructions:,}, {large.instructions:,} "
              f"| {small.full_collections}, {large.full_collections} | {per_unit:,.0f} |",
              flush=True)
        if small.full_collections != large.full_collections:
            uneven.append(workload)
    if uneven:
        # A full collection walks the whole heap once: a step, not a cost per
        # unit, so a per-unit count with one more of them in it is inflated.
        print(f"\nThe two sizes of {', '.join(uneven)} made different numbers of full "
              "collections: its instructions per unit include that difference.")


if __name__ == "__main__":
    main()

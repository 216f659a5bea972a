"""What the rest of the machine did while one benchmark row ran.

A row's wall time assumes the machine's CPUs were free for it. When another
process holds a core, or the hypervisor takes one (steal time), a run on two
workers gets one core's worth and its wall time comes out close to its CPU
time: the row is disturbed, not slower code. The kernel's aggregate counters
(the ``cpu`` line of ``/proc/stat``) give the whole machine's busy time and its
steal time; the machine's busy time less the row's own CPU is what everything
else used meanwhile. Both are printed beside the row, so a reader can set a
disturbed row aside instead of guessing at its cause.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

__all__ = ["CpuTimes", "cpu_times", "others_and_steal", "parse_cpu_line"]

_STAT = Path("/proc/stat")


class CpuTimes(NamedTuple):
    """Seconds the whole machine spent busy (user, nice, system, irq and
    softirq over all CPUs) and stolen by the hypervisor."""

    busy_s: float
    steal_s: float


def parse_cpu_line(stat_text: str, ticks_per_second: float) -> CpuTimes | None:
    """The aggregate ``cpu`` line of a ``/proc/stat`` text, in seconds; None
    when the text has no such line, or one that is not counters. Guest time
    is already inside user time (the kernel counts it in both), so it is not
    added again."""
    for line in stat_text.splitlines():
        fields = line.split()
        if not fields or fields[0] != "cpu":
            continue
        if not all(field.isdigit() for field in fields[1:]):
            return None
        values = [int(field) for field in fields[1:]]
        values += [0] * (8 - len(values))  # older kernels stop before steal
        user, nice, system, _idle, _iowait, irq, softirq, steal = values[:8]
        busy = user + nice + system + irq + softirq
        return CpuTimes(busy / ticks_per_second, steal / ticks_per_second)
    return None


def cpu_times() -> CpuTimes | None:
    """The machine's counters now; None where ``/proc/stat`` cannot be read."""
    try:
        text = _STAT.read_text()
    except OSError:
        return None
    return parse_cpu_line(text, os.sysconf("SC_CLK_TCK"))


def others_and_steal(before: CpuTimes | None, after: CpuTimes | None,
                     own_cpu_s: float) -> tuple[str, str]:
    """The two cells of a row: the CPU seconds the rest of the machine used
    (never below 0: the counters tick at a coarser grain than the row's own
    CPU) and the seconds stolen, or ``n/a`` each without ``/proc/stat``."""
    if before is None or after is None:
        return "n/a", "n/a"
    others = max(after.busy_s - before.busy_s - own_cpu_s, 0.0)
    return f"{others:.1f}", f"{after.steal_s - before.steal_s:.1f}"

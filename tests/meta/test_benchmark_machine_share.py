"""The benchmark's suites rows say what the rest of the machine used meanwhile
(read from /proc/stat), so a row a busy or stolen core disturbed can be told
from slower code."""

from __future__ import annotations

import pytest

#: A two-CPU machine's /proc/stat head: the aggregate line, then each CPU's.
_STAT = (
    "cpu  1000 20 300 9000 50 7 3 40 500 0\n"
    "cpu0 500 10 150 4500 25 4 1 20 250 0\n"
    "cpu1 500 10 150 4500 25 3 2 20 250 0\n"
    "intr 12345\n"
)


def test_the_aggregate_line_gives_busy_and_steal_seconds(machine_share):
    # busy = user + nice + system + irq + softirq; guest (500) is inside user already
    assert machine_share.parse_cpu_line(_STAT, 100) == machine_share.CpuTimes(13.3, 0.4)


def test_a_kernel_that_stops_before_steal_counts_none(machine_share):
    parsed = machine_share.parse_cpu_line("cpu  100 0 50 900 0 0 0\n", 100)
    assert parsed == machine_share.CpuTimes(1.5, 0.0)


def test_a_text_without_the_aggregate_line_gives_nothing(machine_share):
    assert machine_share.parse_cpu_line("cpu0 1 2 3 4\nintr 5\n", 100) is None


def test_an_aggregate_line_that_is_not_counters_gives_nothing(machine_share):
    assert machine_share.parse_cpu_line("cpu  100 x 50 900\n", 100) is None


def test_the_rest_of_the_machine_is_its_busy_time_less_the_rows_own(machine_share):
    before, after = machine_share.CpuTimes(100.0, 2.0), machine_share.CpuTimes(130.0, 2.5)
    assert machine_share.others_and_steal(before, after, 18.0) == ("12.0", "0.5")


def test_counters_coarser_than_the_rows_cpu_never_give_a_negative_share(machine_share):
    before, after = machine_share.CpuTimes(100.0, 0.0), machine_share.CpuTimes(110.0, 0.0)
    assert machine_share.others_and_steal(before, after, 10.04) == ("0.0", "0.0")


def test_without_proc_stat_both_cells_say_so(machine_share):
    after = machine_share.CpuTimes(1.0, 0.0)
    assert machine_share.others_and_steal(None, after, 1.0) == ("n/a", "n/a")


def test_this_machine_reads_as_counters_that_only_grow(machine_share):
    first = machine_share.cpu_times()
    if first is None:
        pytest.skip("no /proc/stat here: the cells say n/a, as tested above")
    sum(range(200_000))  # some CPU between the two reads
    second = machine_share.cpu_times()
    assert second is not None
    assert second.busy_s >= first.busy_s and second.steal_s >= first.steal_s

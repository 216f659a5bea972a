"""Benchmarks: speed and memory of the reference and the fake host.

Run ``python benchmarks/run.py`` (after ``make install``) to print a Markdown
table; ``--quick`` runs tiny sizes (used by the test suite only to keep the
script working: timings are reported, never asserted). Figures depend on the
machine; docs/benchmarks.md records a run with its context.
"""

from __future__ import annotations

import argparse
import platform
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

from dsh_reference.implementation import IMPLEMENTATION
from dsh_reference.schedule.core import (
    allocate_schedule_id,
    create_after_record,
    due_decision,
    fold_schedule_events,
)
from pytest_dsh import TZDATA_VERSION, AgentDriver, HostDriver, __version__

START_MS = 1_767_225_600_000


@dataclass(frozen=True)
class Figure:
    name: str
    size: int
    seconds: float
    peak_kib: float

    @property
    def per_item_us(self) -> float:
        return self.seconds / self.size * 1e6


def measure(name: str, size: int, prepare: Callable[[], Callable[[], object]]) -> Figure:
    """Time one fresh run untraced, then trace the memory of a second fresh run
    (tracemalloc slows code down too much to time it at the same time)."""
    work = prepare()
    began = time.perf_counter()
    work()
    elapsed = time.perf_counter() - began
    work = prepare()
    tracemalloc.start()
    work()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return Figure(name, size, elapsed, peak / 1024)


def long_log(creates: int) -> list[dict]:
    """A log of ``creates`` creates where every other record is then deleted."""
    events: list[dict] = []
    seen: list[str] = []
    for n in range(creates):
        folded_ids = type("F", (), {"seen_ids": tuple(seen)})
        schedule_id = allocate_schedule_id(folded_ids)  # type: ignore[arg-type]
        seen.append(schedule_id)
        record = create_after_record(schedule_id, f"reminder {n}", 60 + n, START_MS)
        events.append({"type": "schedule/change", "seq": len(events), "time": START_MS,
                       "data": {"version": 1, "operation": "create", "schedule": record}})
        if n % 2:
            events.append({"type": "schedule/change", "seq": len(events), "time": START_MS,
                           "data": {"version": 1, "operation": "delete", "id": schedule_id}})
    return events


def bench_fold(size: int) -> Figure:
    events = long_log(size)
    return measure(f"fold + decide, {len(events)} events", len(events),
                   lambda: lambda: due_decision(fold_schedule_events(events), START_MS))


def _host_with(plugin: str, config: dict | None = None) -> tuple[HostDriver, AgentDriver]:
    host = IMPLEMENTATION.open_host(start_ms=START_MS)
    host.load_plugin(plugin, config)
    return host, host.create_agent()


def bench_tool_calls(size: int) -> Figure:
    def prepare() -> Callable[[], None]:
        host, agent = _host_with("schedule")

        def work() -> None:
            try:
                for n in range(size):
                    agent.call_tool("schedule_create", {"prompt": f"p{n}", "after_seconds": 3600})
            finally:
                host.close()

        return work

    return measure(f"schedule_create on a growing log, {size} calls", size, prepare)


def bench_turns(size: int) -> Figure:
    def prepare() -> Callable[[], None]:
        host, agent = _host_with("time-context", {"timeZone": "UTC"})

        def work() -> None:
            try:
                for n in range(size):
                    agent.prompt(f"turn {n}")
            finally:
                host.close()

        return work

    return measure(f"one-step turns with time-context, {size} turns", size, prepare)


def bench_delivery(size: int) -> Figure:
    def prepare() -> Callable[[], None]:
        host, agent = _host_with("schedule")
        for n in range(size):
            agent.call_tool("schedule_create", {"prompt": f"p{n}", "after_seconds": 60 + n})

        def work() -> None:
            try:
                host.advance(60 + size)
            finally:
                host.close()

        return work

    return measure(f"deliver {size} one-shot reminders (virtual time)", size, prepare)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="tiny sizes (smoke run)")
    options = parser.parse_args()
    scale = 1 if options.quick else 50
    figures = [
        bench_fold(40 * scale),
        bench_tool_calls(4 * scale),
        bench_turns(4 * scale),
        bench_delivery(4 * scale),
    ]
    print(f"pytest-dsh {__version__}, tzdata {TZDATA_VERSION}, Python "
          f"{platform.python_version()}, {platform.machine()}")
    print()
    print("| benchmark | items | total s | per item µs | peak KiB |")
    print("|---|---|---|---|---|")
    for f in figures:
        print(f"| {f.name} | {f.size} | {f.seconds:.3f} | {f.per_item_us:.0f} | {f.peak_kib:.0f} |")


if __name__ == "__main__":
    main()

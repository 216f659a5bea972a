"""Benchmarks: the reference and the official build, measured in one run.

Run ``python benchmarks/run.py`` (after ``make install bridge``) to print the
Markdown tables of docs/performance.md; ``--quick`` runs tiny sizes (used by
the test suite only to keep the script working: timings are reported, never
asserted). Figures depend on the machine and its load; the script prints both.

What is measured (see docs/performance.md for how to read it):

* op latency: the median of ``schedule_create`` / ``schedule_list`` /
  ``schedule_delete`` calls on an agent whose log already holds N events
  (a dispatch-heavy log of one 5-minute Every reminder, a few live records);
* cold fold: one fold of such a log of N events in a fresh process (Python for
  the reference, Node for the official build's exported ``foldScheduleEvents``),
  with its wall and CPU time and the process's peak RSS;
* a simulated span of one 5-minute Every reminder on the virtual clock (one
  turn per delivery), with folds and flushes counted per delivery;
* the default conformance run and the full DST table, as pytest subprocesses,
  each in one process and then on every usable CPU (pytest-xdist), as
  ``dsh-conformance`` runs it by default.
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import json
import os
import platform
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from interpreter import interpreter
from machine_share import cpu_times, others_and_steal
from node_share import ENVIRONMENT as NODE_SHARE_FILE
from node_share import merge as merge_node_shares
from node_share import stat_cpu_ticks

from pytest_dsh import TZDATA_VERSION, __version__
from pytest_dsh.contract import SessionEvent
from pytest_dsh.driving.api import AgentDriver, HostDriver
from pytest_dsh.implementations import resolve_implementation
from pytest_dsh.pytest_plugin.conformance_cli import usable_cpus

ROOT = Path(__file__).resolve().parents[1]
START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z, the hosts' wall clock
EVERY_S = 300
LIVE_RECORDS = 4  # one-shot records that stay active in every benchmark log


def iso(epoch_ms: int) -> str:
    seconds, ms = divmod(epoch_ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{ms:03d}Z"


def every_events(size: int) -> Iterator[SessionEvent]:
    """``size`` events ending just before ``START_MS``, made one at a time:
    ``LIVE_RECORDS`` far one-shots, then one 5-minute Every reminder created
    long ago and dispatched every 5 minutes since (its next occurrence is after
    ``START_MS``)."""
    dispatches = max(size - LIVE_RECORDS - 1, 0)
    created = START_MS - (dispatches + 1) * EVERY_S * 1000 + 1
    seq = itertools.count()

    def event(time_ms: int, data: dict[str, Any]) -> SessionEvent:
        return {"type": "schedule/change", "seq": next(seq), "time": time_ms, "data": data}

    def all_events() -> Iterator[SessionEvent]:
        for n in range(LIVE_RECORDS):
            yield event(created, {"version": 1, "operation": "create", "schedule": {
                "id": f"schedule-{n + 1}", "kind": "after", "prompt": f"later {n}",
                "afterSeconds": 10**8, "scheduledAt": iso(created + 10**11)}})
        yield event(created, {"version": 1, "operation": "create", "schedule": {
            "id": f"schedule-{LIVE_RECORDS + 1}", "kind": "every", "prompt": "tick",
            "everySeconds": EVERY_S, "scheduledAt": iso(created + EVERY_S * 1000)}})
        for k in range(1, dispatches + 1):
            at = created + k * EVERY_S * 1000
            yield event(at, {"version": 1, "operation": "dispatch",
                             "id": f"schedule-{LIVE_RECORDS + 1}", "acceptedAt": iso(at)})

    return itertools.islice(all_events(), size)


def every_log(size: int) -> list[SessionEvent]:
    """:func:`every_events` as one list (what a host holds in memory)."""
    return list(every_events(size))


# -- op latency -------------------------------------------------------------------


@dataclass(frozen=True)
class OpLatency:
    impl: str
    events: int
    create_ms: float
    list_ms: float
    delete_ms: float


def _timed(call: Callable[[], object]) -> float:
    began = time.perf_counter()
    call()
    return (time.perf_counter() - began) * 1000


def op_latency(impl: str, size: int, repeats: int) -> OpLatency:
    """Median latency of each tool over ``repeats`` rounds of create, list, delete."""
    host = resolve_implementation(impl).open_host(start_ms=START_MS)
    try:
        host.load_plugin("schedule")
        agent = host.create_agent(seed=every_log(size))
        host.run_until_idle()
        agent.call_tool("schedule_list", {})  # the first read folds the seeded log
        creates, lists, deletes = [], [], []
        for n in range(repeats):
            creates.append(_timed(lambda: agent.call_tool(
                "schedule_create", {"prompt": f"p{n}", "after_seconds": 10**6})))  # noqa: B023
            lists.append(_timed(lambda: agent.call_tool("schedule_list", {})))
            deletes.append(_timed(lambda: agent.call_tool(
                "schedule_delete", {"id": f"schedule-{LIVE_RECORDS + 2 + n}"})))  # noqa: B023
        return OpLatency(impl, size, statistics.median(creates), statistics.median(lists),
                         statistics.median(deletes))
    finally:
        host.close()


# -- cold fold ----------------------------------------------------------------------

# Peak memory comes from /proc/self/status (VmHWM): getrusage's ru_maxrss
# survives fork and exec on Linux, so a child would report its parent's peak.
_PY_FOLD = """
import json, re, sys, time
sys.path.insert(0, {bench!r})
from run import every_events, every_log
from dsh_reference.schedule.core import ScheduleFold, fold_schedule_events

def hwm_kib():
    with open("/proc/self/status") as status:
        return int(re.search(r"VmHWM:\\s+(\\d+)", status.read()).group(1))

before = hwm_kib()
if {streamed!r}:
    # Each event is made, folded and dropped: the log is never held in memory.
    wall, cpu = time.perf_counter(), time.process_time()
    state = ScheduleFold()
    for event in every_events({size}):
        state.apply(event)
    active = len(state.snapshot().active)
    built = before
else:
    events = every_log({size})
    built = hwm_kib()
    wall, cpu = time.perf_counter(), time.process_time()
    active = len(fold_schedule_events(events).active)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({{"wall": wall, "cpu": cpu, "base_kib": before, "log_kib": built,
                  "peak_kib": hwm_kib(), "active": active}}))
"""


@dataclass(frozen=True)
class ColdFold:
    impl: str
    events: int
    #: "list": the whole log built first, as a host holds it; "streamed": each
    #: event made and folded in turn, so the log itself costs no memory.
    mode: str
    wall_s: float
    cpu_s: float
    #: Peak RSS growth while the log was built (0 when streamed).
    log_mib: float
    #: Peak RSS growth during the fold alone: the fold's own memory.
    fold_mib: float
    peak_mib: float


def cold_fold(impl: str, size: int, *, streamed: bool = False) -> ColdFold:
    if impl == "reference":
        command = [sys.executable, "-c", _PY_FOLD.format(bench=str(Path(__file__).parent),
                                                          size=size, streamed=streamed)]
    else:
        command = [_node(), str(Path(__file__).parent / "official_fold.mjs"), str(size)]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    base, log, peak = figures["base_kib"], figures["log_kib"], figures["peak_kib"]
    return ColdFold(impl, size, "streamed" if streamed else "list", figures["wall"],
                    figures["cpu"], (log - base) / 1024, (peak - log) / 1024, peak / 1024)


def _node() -> str:
    from pytest_dsh.npm.bridge import locate_bridge, locate_node

    return str(locate_node(locate_bridge()))


# -- a simulated span of one Every reminder ------------------------------------------


@dataclass(frozen=True)
class Simulation:
    impl: str
    days: float
    dispatches: int
    events: int
    wall_s: float
    #: CPU of the whole simulation: this process, plus the Node bridge's own
    #: process for a build behind the bridge.
    cpu_s: float
    node_cpu_s: float | None
    flushes_per_delivery: float
    reads_per_delivery: float | None
    refolds: int | None


def simulate_every(impl: str, days: float) -> Simulation:
    host = resolve_implementation(impl).open_host(start_ms=START_MS)
    try:
        host.load_plugin("schedule")
        agent = host.create_agent()
        agent.call_tool("schedule_create", {"prompt": "tick", "every_seconds": EVERY_S})
        flushes_before = len(host.flushes)
        projection = _reference_projection(host, agent)
        reads_before = projection.reads if projection is not None else 0
        node_before = _node_cpu(host)
        wall, cpu = time.perf_counter(), time.process_time()
        remaining = days * 86_400
        while remaining > 0:
            step = min(remaining, 86_400)
            host.advance(step)
            remaining -= step
            if round(remaining) % (30 * 86_400) == 0:  # progress, for long runs
                print(f"  {impl}: {days - remaining / 86_400:g} days simulated, "
                      f"{time.process_time() - cpu:.1f} s CPU", file=sys.stderr, flush=True)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        node_after = _node_cpu(host)
        node = None if node_before is None or node_after is None else node_after - node_before
        live = getattr(agent, "agent", None)  # the fake host's agent: read, don't copy
        events = live.session.events if live is not None else agent.events()
        dispatches = sum(1 for e in events if e["type"] == "schedule/change"
                         and e["data"].get("operation") == "dispatch")
        flushes = len(host.flushes) - flushes_before
        per = max(dispatches, 1)
        return Simulation(
            impl, days, dispatches, len(events), wall, cpu + (node or 0.0), node, flushes / per,
            None if projection is None else (projection.reads - reads_before) / per,
            None if projection is None else projection.refolds,
        )
    finally:
        host.close()


def calls_per_delivery(days: float) -> tuple[int, float]:
    """Deliveries of the reference's simulated span, and the function calls
    (Python and C, cProfile's count) each took on average: unlike CPU time,
    the count does not depend on the machine's load, so it compares two
    versions of the code exactly. Measured after half a simulated day, so
    the start (plugin load, first fold) is left out."""
    host = resolve_implementation("reference").open_host(start_ms=START_MS)
    try:
        host.load_plugin("schedule")
        agent = host.create_agent()
        agent.call_tool("schedule_create", {"prompt": "tick", "every_seconds": EVERY_S})
        host.advance(43_200)
        before = len(agent.events())
        profiler = cProfile.Profile()
        profiler.enable()
        try:
            host.advance(days * 86_400)
        finally:
            profiler.disable()
        new = agent.events()[before:]
        deliveries = sum(1 for e in new if e["type"] == "schedule/change"
                         and e["data"].get("operation") == "dispatch")
        stats = pstats.Stats(profiler)
        calls = sum(row[1] for row in stats.stats.values())  # type: ignore[attr-defined]
        return deliveries, calls / max(deliveries, 1)
    finally:
        host.close()


def _node_cpu(host: HostDriver) -> float | None:
    """User + system seconds the host's Node process has used so far (None for
    an in-process host): read from /proc, since the process is still running."""
    process = getattr(host, "process", None)
    pid = getattr(process, "pid", None)
    if pid is None:
        return None
    try:
        ticks = stat_cpu_ticks(Path(f"/proc/{pid}/stat").read_text())
    except OSError:
        return None
    return None if ticks is None else ticks / os.sysconf("SC_CLK_TCK")


def _reference_projection(host: HostDriver, agent: AgentDriver) -> Any:
    fake = getattr(host, "host", None)
    if fake is None:
        return None
    installed = fake.process.plugins["schedule"]._installed[agent.id]
    return installed.owner.projection


# -- whole suites -------------------------------------------------------------------------


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass(frozen=True)
class SuiteRun:
    """One pytest run of a suites row: its wall and CPU time (user + sys of the
    process and what it waited for), the part of that CPU its test processes'
    children used (the Node bridge; node_share), what the rest of the machine
    used and the hypervisor stole meanwhile (machine_share), and pytest's
    summary line. ``files`` is the children's CPU by test file."""

    wall_s: float
    cpu_s: float
    node_s: float | None
    others: str
    steal: str
    summary: str
    files: dict[str, Any]

    def row(self, label: str) -> list[str]:
        node = "n/a" if self.node_s is None else f"{self.node_s:.1f}"
        return [label, f"{self.wall_s:.1f}", f"{self.cpu_s:.1f}", node, self.others,
                self.steal, self.summary]


def _node_share_env(scratch: Path) -> tuple[dict[str, str], Path]:
    """The environment that loads benchmarks/node_share.py into a run's pytest
    processes (its folder holds that file alone, so nothing else of this
    folder shadows a module), and the file name its counts go to."""
    plugins = scratch / ".node-share"
    plugins.mkdir()
    (plugins / "node_share.py").symlink_to(Path(__file__).with_name("node_share.py").resolve())
    target = plugins / "counts.json"
    path = os.pathsep.join(filter(None, [str(plugins), os.environ.get("PYTHONPATH", "")]))
    plugins_env = ",".join(filter(None, [os.environ.get("PYTEST_PLUGINS", ""), "node_share"]))
    env = {**os.environ, "PYTHONPATH": path, "PYTEST_PLUGINS": plugins_env,
           NODE_SHARE_FILE: str(target)}
    return env, target


def _node_shares(target: Path) -> dict[str, Any] | None:
    """The counts every process of the run wrote (one file, or one per worker)."""
    documents = []
    for path in sorted(target.parent.glob(target.name + "*")):
        try:
            documents.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue
    return merge_node_shares(documents) if documents else None


def timed_run(command: list[str], cwd: str) -> tuple[SuiteRun, str]:
    """``command`` run to its end in ``cwd``, timed; and its standard output."""
    env, target = _node_share_env(Path(cwd))
    machine_before, cpu = cpu_times(), _children_cpu()
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=cwd, env=env)
    elapsed, cpu = time.perf_counter() - began, _children_cpu() - cpu
    others, steal = others_and_steal(machine_before, cpu_times(), cpu)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    shares = _node_shares(target)
    node = None if shares is None else float(shares["child_cpu_s"])
    files = {} if shares is None else shares["files"]
    return SuiteRun(elapsed, cpu, node, others, steal, summary.strip("= "), files), done.stdout


def suite_seconds(impl: str, *extra: str, package: str = "dsh_conformance") -> SuiteRun:
    """One pytest run of ``package``, from an empty folder as a user runs it:
    the checkout's own pytest configuration (its plugins and import mode, for
    the kit's tests) is not a user's, and cost about 0.5 s a run."""
    command = [sys.executable, "-m", "pytest", "--pyargs", package,
               f"--dsh-impl={impl}", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
               *extra]
    with tempfile.TemporaryDirectory(prefix="dsh-bench-") as scratch:
        return timed_run(command, scratch)[0]


def node_by_file(run: SuiteRun, top: int = 8) -> list[list[str]]:
    """Rows of the children's CPU by test file, the largest ``top`` and the rest."""
    rows, rest_s, rest_tests = [], 0.0, 0
    for index, (name, entry) in enumerate(run.files.items()):
        if index < top:
            shown = name if name.startswith("(") else f"`{name}`"
            rows.append([shown, f"{entry['tests']:,}", f"{entry['child_cpu_s']:.1f}"])
        else:
            rest_s, rest_tests = rest_s + entry["child_cpu_s"], rest_tests + entry["tests"]
    if rest_tests or rest_s:
        rows.append(["every other file", f"{rest_tests:,}", f"{rest_s:.1f}"])
    return rows


def cli_verdict(stdout: str) -> str:
    """The verdict line ``dsh-conformance`` printed (the report files it lists
    come after it), else its last line."""
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    return next((line for line in reversed(lines) if line.startswith("dsh-conformance:")),
                lines[-1] if lines else "")


def npm_author_run(workers: int) -> list[str]:
    """What an npm author runs: ``dsh-conformance --impl npm`` on the official
    schedule package as a folder, as the README says, on ``workers`` processes.
    A first run fills the npm cache; the second, measured one reuses it. (The
    official time-context build declares peers no published host satisfies, so
    an author's run of it stops at set-up; ``--impl official`` overrides them.)"""
    modules = Path(_node()).resolve()
    while modules.name != "node_modules":
        modules = modules.parent
    scope = modules / "@deepseek-ai"
    command = [str(Path(sys.executable).with_name("dsh-conformance")), "--impl", "npm",
               "--npm", f"schedule={scope / 'dsh-schedule'}",
               "--workers", str(workers)]
    # In a scratch folder: dsh-conformance writes its reports to ./dsh-report.
    with tempfile.TemporaryDirectory(prefix="dsh-bench-") as scratch:
        subprocess.run(command, capture_output=True, check=False, cwd=scratch)  # warm the cache
        run, stdout = timed_run(command, scratch)
    lines = stdout.count("\n")
    verdict = cli_verdict(stdout)
    label = f"npm author's full run, official schedule package, {workers} workers"
    return replace(run, summary=f"{lines:,} lines printed; {verdict}").row(label)


# -- report ------------------------------------------------------------------------------


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        node = subprocess.run([_node(), "--version"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except Exception:  # the bridge is optional for a reference-only run
        node = "not installed"
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    return (f"{os.cpu_count()} CPUs ({cpu}), {platform.system()} {platform.machine()}, "
            f"{interpreter()}, Node {node}, pytest-dsh {__version__}, "
            f"tzdata {TZDATA_VERSION}; load average at start {load}")


def table(header: Iterable[str], rows: Iterable[Iterable[object]]) -> None:
    """Print a Markdown table, each row as soon as it is measured."""
    head = list(header)
    print("| " + " | ".join(head) + " |", flush=True)
    print("|" + "---|" * len(head), flush=True)
    for row in rows:
        print("| " + " | ".join(str(cell) for cell in row) + " |", flush=True)
    print(flush=True)


SECTIONS = ("latency", "fold", "every", "suites")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run)")
    parser.add_argument("--impl", default="reference,official",
                        help="comma-separated implementations (default: both)")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"comma-separated sections (default: all of {', '.join(SECTIONS)})")
    parser.add_argument("--official-max-events", type=int, default=100_000,
                        help="largest log sent through the bridge for op latency")
    parser.add_argument("--official-days", type=float, default=2.0,
                        help="simulated days of the Every reminder on the official build")
    parser.add_argument("--days", type=float, default=365.0,
                        help="simulated days of the Every reminder on the reference")
    parser.add_argument("--no-suites", action="store_true",
                        help="skip the conformance and DST table runs")
    parser.add_argument("--no-official-dst", action="store_true",
                        help="skip the official build's full DST table (minutes, bridged)")
    parser.add_argument("--no-npm-run", action="store_true",
                        help="skip the npm author's full run (dsh-conformance --impl npm)")
    parser.add_argument("--calls", action="store_true",
                        help="also count the function calls per delivery of the reference's "
                             "simulated span (--days; deterministic, unlike CPU time)")
    parser.add_argument("--profile", metavar="FILE",
                        help="run the in-process sections (latency, every) under cProfile: "
                             "write the stats to FILE (pstats) and print the top functions "
                             "to stderr; figures taken so are inflated, read only the shares")
    options = parser.parse_args()
    profiler = None
    if options.profile:
        profiler = cProfile.Profile()
        profiler.enable()
    try:
        _run(options)
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(options.profile)
            stats = pstats.Stats(profiler, stream=sys.stderr)
            stats.sort_stats("tottime").print_stats(30)


def _run(options: argparse.Namespace) -> None:
    impls = [name.strip() for name in options.impl.split(",") if name.strip()]
    sections = {name.strip() for name in options.only.split(",")}
    if options.quick:
        sizes, folds, repeats, days, official_days = [100, 1_000], [1_000], 3, 0.5, 0.25
    else:
        sizes, folds, repeats = [1_000, 10_000, 100_000, 1_000_000], [100_000, 1_000_000], 21
        days, official_days = options.days, options.official_days

    print(machine(), flush=True)
    print(flush=True)
    if "latency" in sections:
        # The bridge's calls are slow on long logs: fewer rounds keep the run short.
        table(["implementation", "log events", "create ms", "list ms", "delete ms"],
              ([f.impl, f"{f.events:,}", f"{f.create_ms:.2f}", f"{f.list_ms:.2f}",
                f"{f.delete_ms:.2f}"]
               for f in (op_latency(impl, size, repeats if impl == "reference" else min(repeats, 7))
                         for impl in impls for size in sizes
                         if impl == "reference" or size <= options.official_max_events)))
    if "fold" in sections:
        # The log's own memory, the fold's (peak growth during the fold alone)
        # and, for the reference, a streamed fold that never holds the log.
        runs = [(impl, size, False) for impl in impls for size in folds]
        runs += [("reference", size, True) for size in folds if "reference" in impls]
        table(["implementation", "log events", "log", "fold wall s", "fold CPU s",
               "log MiB", "fold's own MiB", "peak RSS MiB"],
              ([f.impl, f"{f.events:,}", f.mode, f"{f.wall_s:.3f}", f"{f.cpu_s:.3f}",
                "0" if f.mode == "streamed" else f"{f.log_mib:.0f}", f"{f.fold_mib:.1f}",
                f"{f.peak_mib:.0f}"]
               for f in (cold_fold(impl, size, streamed=streamed)
                         for impl, size, streamed in runs)))
    if "every" in sections:
        # CPU per dispatch is the figure to compare: wall time moves with the
        # machine's load, and the official build's CPU is mostly Node's.
        table(["implementation", "simulated days", "dispatches", "log events", "wall s",
               "CPU s (Node included)", "of which Node s", "CPU ms per dispatch",
               "flushes per delivery", "fold reads per delivery", "full folds"],
              ([f.impl, f"{f.days:g}", f"{f.dispatches:,}", f"{f.events:,}",
                f"{f.wall_s:.2f}", f"{f.cpu_s:.2f}",
                "n/a" if f.node_cpu_s is None else f"{f.node_cpu_s:.2f}",
                f"{f.cpu_s / max(f.dispatches, 1) * 1000:.3f}",
                f"{f.flushes_per_delivery:.2f}",
                "n/a" if f.reads_per_delivery is None else f"{f.reads_per_delivery:.2f}",
                "n/a" if f.refolds is None else f.refolds]
               for f in (simulate_every(impl, days if impl == "reference" else official_days)
                         for impl in impls)))
    if options.calls and "every" in sections and "reference" in impls:
        if options.profile:  # one profiler at a time: the count would end the profile
            print("--calls is ignored under --profile", file=sys.stderr)
        else:
            deliveries, calls = calls_per_delivery(days)
            table(["implementation", "simulated days", "deliveries", "calls per delivery"],
                  [["reference", f"{days:g}", f"{deliveries:,}", f"{calls:.1f}"]])
    if options.no_suites or options.quick or "suites" not in sections:
        return

    def suites() -> Iterable[list[str]]:
        # The official run's CPU is mostly the Node bridge's, a grandchild
        # that is counted only if pytest waited for it: read it with care.
        # Each run in one process, then on every usable CPU as dsh-conformance
        # and make conformance run it by default (pytest-xdist, -n N).
        workers = usable_cpus()
        spreads: list[tuple[str, tuple[str, ...]]] = [("one process", ())]
        if workers > 1:
            spreads.append((f"{workers} workers", ("-n", str(workers))))
        for impl in impls:
            for label, extra in spreads:
                run = suite_seconds(impl, *extra)
                if impl == "official" and not extra:
                    by_file.append(run)
                yield run.row(f"conformance suite, {impl}, {label}")
        # The full DST tables of both builds, side by side (each in one process).
        dst_impls = [impl for impl in impls
                     if impl == "reference" or not options.no_official_dst]
        for impl in dst_impls:
            for label, extra in spreads if impl == "reference" else spreads[:1]:
                run = suite_seconds(impl, "--dsh-dst-table=full", *extra,
                                    package="dsh_conformance.dst")
                yield run.row(f"full DST table, {impl}, {label}")
        if "official" in impls and not options.no_npm_run:
            yield npm_author_run(workers)

    by_file: list[SuiteRun] = []
    table(["run", "wall s", "CPU s (user + sys)", "of which Node s",
           "the rest of the machine, CPU s", "steal s", "pytest summary"], suites())
    for run in by_file:  # where the official run's Node time goes
        table(["official suite, one process: test file", "tests", "Node CPU s"],
              node_by_file(run))


if __name__ == "__main__":
    main()

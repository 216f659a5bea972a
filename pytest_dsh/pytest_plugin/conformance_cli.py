"""``dsh-conformance``: run the conformance suite against one implementation,
write ``report.html``, ``report.json`` and ``report.md``, print the verdict.

::

    dsh-conformance --impl reference --report reports/reference
    dsh-conformance --impl my_dsh.impl:IMPLEMENTATION --section time-context --level readme
    dsh-conformance --impl npm --npm schedule=./my-schedule-1.0.0.tgz --expectations known.json

It is pytest underneath (``pytest --pyargs dsh_conformance --dsh-impl=NAME
--dsh-report=DIR -n N ...``, with ``--tb=no -rN`` in ``PYTEST_ADDOPTS``: the
summary and reports carry each failure); arguments after ``--`` go to pytest
unchanged (``-- --tb=short`` prints tracebacks again). The
exit status is the verdict's: 0 conforms (with or without known failures),
1 does not conform, 6 not assessed; pytest's own statuses claim no verdict:
4 a usage error, 2 interrupted (Ctrl-C), 3 an internal error.

``--workers N|auto`` spreads the tests over N processes with pytest-xdist
(``-n N``); ``auto``, the default, is the number of CPUs this process may use,
and ``1`` runs the suite in this one process without xdist. The verdict, the
exit status and the reports are the same either way (docs/parallel-runs.md).

The property tests run the kit's fixed example set unless ``--seed`` or
``--explore`` says otherwise (docs/reproducibility.md).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
from collections.abc import Mapping, Sequence
from typing import Final, NoReturn

__all__ = ["QUIET", "SECTIONS", "main", "pytest_arguments", "quiet_addopts", "usable_cpus"]

#: What pytest prints besides its progress and the dsh conformance summary:
#: no tracebacks and no per-test summary lines. Each failure's message, README
#: sentence and rerun command are in that summary and in the reports; a
#: traceback per failure (some 250 lines each) buried the verdict. Given as
#: PYTEST_ADDOPTS, so options after ``--`` (``-- --tb=short -rfE``) win and a
#: rerun command, which repeats the command line only, prints its traceback.
QUIET: Final = ("--tb=no", "-rN")

#: ``--section`` names and the suite packages they run.
SECTIONS: Final = {
    "schedule": "dsh_conformance.schedule",
    "time-context": "dsh_conformance.time_context",
    "dst": "dsh_conformance.dst",
    "fixtures": "dsh_conformance.fixtures",
}


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the system has
    one, which a container or ``taskset`` narrows), at least 1."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        return max(1, len(affinity(0)))
    return max(1, os.cpu_count() or 1)


def _count(text: str, expected: str) -> int:
    """``text`` as a count >= 1, else argparse's error saying what was ``expected``."""
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"expected {expected}, not {text!r}")
    return count


def _workers(text: str) -> int | None:
    """``--workers``: a count >= 1, or ``None`` for ``auto``."""
    return None if text == "auto" else _count(text, "a number >= 1 or auto")


def _examples(text: str) -> int:
    """``--explore-examples``: a count >= 1."""
    return _count(text, "a number >= 1")


#: The exit status of a usage error, as pytest's (``pytest.ExitCode.USAGE_ERROR``).
USAGE_ERROR: Final = 4


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on a bad argument, which is pytest's "interrupted":
    a bad argument of this command is a usage error (4) like pytest's own."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dsh-conformance",
        description="Run the DSH conformance suite against an implementation and report "
        "the verdict (arguments after -- go to pytest).",
    )
    parser.add_argument(
        "--impl", required=True, metavar="NAME",
        help="implementation: a dsh.impl entry-point name (reference, official), npm "
        "(the packages given with --npm) or package.module:attribute",
    )
    parser.add_argument(
        "--report", default="dsh-report", metavar="DIR",
        help="folder for report.html, report.json and report.md (default: dsh-report)",
    )
    parser.add_argument(
        "--level", choices=("readme", "compat", "all"), default="all",
        help="requirement levels: readme, compat or all (default)",
    )
    parser.add_argument("-k", dest="keyword", metavar="EXPRESSION",
                        help="only tests matching the expression (pytest -k)")
    parser.add_argument(
        "--section", action="append", choices=sorted(SECTIONS), default=[],
        help="run only this part of the suite (repeatable): " + ", ".join(sorted(SECTIONS)),
    )
    parser.add_argument(
        "--npm", action="append", default=[], metavar="PLUGIN=SPEC",
        help="with --impl npm: the package under test for a role, schedule=SPEC or "
        "time-context=SPEC, SPEC a folder, a tarball or name@version; give the roles your "
        "packages provide (repeatable; pytest --dsh-npm)",
    )
    parser.add_argument(
        "--no-invariant", action="store_true",
        help="with --impl npm: do not test the packages' ./invariant companions, their tests "
        "are skipped (a package without the export is detected; pytest --dsh-npm-no-invariant)",
    )
    parser.add_argument(
        "--max-runaways", type=int, default=None, metavar="N",
        help="stop after N tests ran away, 0 never (default 3; pytest --dsh-max-runaways)",
    )
    parser.add_argument(
        "--npm-scripts", action="store_true",
        help="let npm run the packages' install lifecycle scripts (as --dsh-npm-scripts)",
    )
    parser.add_argument("--host", metavar="VERSION",
                        help="DSH host profile the npm bridge runs on (as --dsh-host)")
    parser.add_argument("--expectations", metavar="PATH",
                        help="known failures file (dsh-expectations/1), as --dsh-expectations")
    parser.add_argument("--dst-table", choices=("sample", "full"), default=None,
                        help="DST regression tables: sample (default) or full")
    parser.add_argument(
        "--seed", metavar="SEED",
        help="Hypothesis seed of the property tests (default: the kit's fixed seed, the same "
        "every run; pytest --hypothesis-seed)",
    )
    parser.add_argument(
        "--explore", action="store_true",
        help="draw a random seed instead, to look for new failing examples; the seed and a "
        "replay command are printed (pytest --dsh-explore)",
    )
    parser.add_argument(
        "--explore-examples", type=_examples, default=None, metavar="N",
        help="N examples in every property test instead of each test's own count "
        "(pytest --dsh-explore-examples)",
    )
    parser.add_argument(
        "--workers", type=_workers, default=None, metavar="N|auto",
        help="processes to run the tests on (pytest-xdist -n N): auto (default) is every "
        "usable CPU, 1 runs them in this process alone; verdict and reports are the same",
    )
    return parser


def pytest_arguments(
    argv: Sequence[str], *, cpus: int | None = None
) -> tuple[list[str], pathlib.Path]:
    """The pytest command line for ``argv`` and the report folder; ``cpus``
    is what ``--workers auto`` means (default: :func:`usable_cpus`)."""
    argv = list(argv)
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1:]
    options = _parser().parse_args(argv)
    packages = [SECTIONS[name] for name in dict.fromkeys(options.section)] or ["dsh_conformance"]
    report = pathlib.Path(options.report)
    args = ["--pyargs", *packages, f"--dsh-impl={options.impl}", f"--dsh-report={report}"]
    args.append(f"--dsh-level={options.level}")
    if options.keyword:
        args += ["-k", options.keyword]
    args += [f"--dsh-npm={spec}" for spec in options.npm]
    if options.no_invariant:
        args.append("--dsh-npm-no-invariant")
    if options.max_runaways is not None:
        args.append(f"--dsh-max-runaways={options.max_runaways}")
    if options.npm_scripts:
        args.append("--dsh-npm-scripts")
    if options.host:
        args.append(f"--dsh-host={options.host}")
    if options.expectations:
        args.append(f"--dsh-expectations={options.expectations}")
    if options.dst_table:
        args.append(f"--dsh-dst-table={options.dst_table}")
    if options.seed is not None:
        args.append(f"--hypothesis-seed={options.seed}")
    if options.explore:
        args.append("--dsh-explore")
    if options.explore_examples is not None:
        args.append(f"--dsh-explore-examples={options.explore_examples}")
    workers = options.workers or (usable_cpus() if cpus is None else cpus)
    if workers > 1:
        args += ["-n", str(workers)]
    return [*args, *extra], report


def _written_since(path: pathlib.Path, before: int | None) -> bool:
    """Whether ``path`` was written after its modification time ``before``
    (``None``: it did not exist): a report left by an earlier run is not this
    run's verdict."""
    try:
        return before is None or path.stat().st_mtime_ns != before
    except OSError:
        return False


def _mtime(path: pathlib.Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def quiet_addopts(environ: Mapping[str, str]) -> str:
    """``PYTEST_ADDOPTS`` for the run: :data:`QUIET` first, so the user's own
    ``PYTEST_ADDOPTS`` and command line override it."""
    return " ".join([*QUIET, environ.get("PYTEST_ADDOPTS", "")]).strip()


def main(argv: Sequence[str] | None = None) -> int:
    args, report = pytest_arguments(sys.argv[1:] if argv is None else argv)
    import pytest

    from pytest_dsh.pytest_plugin.reporting.summary import overall_line

    # pytest's own statuses that end a run before a verdict, with their words.
    from pytest_dsh.pytest_plugin.reporting.verdicts import NO_VERDICT

    summary = report / "report.json"
    before = _mtime(summary)
    saved = os.environ.get("PYTEST_ADDOPTS")
    os.environ["PYTEST_ADDOPTS"] = quiet_addopts(os.environ)
    try:
        status = int(pytest.main(args))
    finally:
        if saved is None:
            del os.environ["PYTEST_ADDOPTS"]
        else:
            os.environ["PYTEST_ADDOPTS"] = saved
    if status in NO_VERDICT:
        detail = {
            2: "the run was stopped before it finished",
            3: "pytest failed inside itself (see the traceback above)",
            USAGE_ERROR: "see the error above; nothing was assessed",
        }[status]
        print(f"dsh-conformance: {NO_VERDICT[status]} (exit status {status}): {detail}; "
              "no verdict", file=sys.stderr)
        return status
    if summary.is_file() and _written_since(summary, before):
        document = json.loads(summary.read_text("utf-8"))
        print(f"dsh-conformance: {overall_line(document)}")
        for name in ("report.html", "report.json", "report.md"):
            print(f"  {report / name}")
    else:
        # A report that could not be written (a full disk) leaves the verdict
        # pytest printed above; this command cannot repeat it.
        print(f"dsh-conformance: no report written (pytest exit status {status}); "
              "the verdict, if any, is the one printed above", file=sys.stderr)
    return status


if __name__ == "__main__":
    raise SystemExit(main())

"""The ``dsh-log`` command line: ``dsh-log check [options] PATH... | -``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import BinaryIO, TextIO

from .checker import CheckOptions, check_stream
from .diagnostics import Diagnostic, FileReport, Verdict
from .lines import DEFAULT_MAX_LINE_BYTES

__all__ = ["STDIN_NAME", "main"]

#: How standard input (``-``) is named in diagnostics.
STDIN_NAME = "<stdin>"
DEFAULT_MAX_DIAGNOSTICS = 100

DESCRIPTION = """\
Validate DSH session log files (JSON Lines: a session header, then one event a
line) in constant memory: the envelope of every line, the dsh-schedule fold and
the dsh-time-context reading checks. Every problem is printed as
'path:line: rule: message'. Exit status: 0 every file is valid, 1 some file has
violations, 2 some file could not be read to its end, or a usage error."""


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def _non_negative(text: str) -> int:
    if text == "0":
        return 0
    return _positive(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dsh-log", description="Tools for DSH session log files.")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser(
        "check", help="validate session log files", description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("paths", nargs="+", metavar="PATH", help="a session file, or - for stdin")
    check.add_argument("--json", action="store_true",
                       help="print JSON Lines (docs/log-check.md) instead of text")
    check.add_argument("--official", action="store_true",
                       help="the logs were written by the official build: accept its "
                            "documented deviations (docs/deviations.md D9, D10, D12)")
    check.add_argument("--max-line-bytes", type=_positive, default=DEFAULT_MAX_LINE_BYTES,
                       metavar="N", help="longest line read, without its newline "
                                         f"(default {DEFAULT_MAX_LINE_BYTES}); a longer "
                                         "line stops the file's check (exit 2)")
    check.add_argument("--max-diagnostics", type=_non_negative, default=DEFAULT_MAX_DIAGNOSTICS,
                       metavar="N", help="print at most N diagnostics per file (0: all; "
                                         f"default {DEFAULT_MAX_DIAGNOSTICS}); the verdict "
                                         "counts them all")
    return parser


class _Printer:
    """Prints one file's diagnostics (up to the limit) and its summary."""

    def __init__(self, out: TextIO, *, as_json: bool, limit: int) -> None:
        self._out = out
        self._json = as_json
        self._limit = limit
        self._shown = 0

    def start(self) -> None:
        self._shown = 0

    def diagnostic(self, diagnostic: Diagnostic) -> None:
        self._shown += 1
        if self._limit and self._shown > self._limit:
            return
        line = json.dumps(diagnostic.as_json(), ensure_ascii=False) if self._json else (
            diagnostic.text()
        )
        self._out.write(line + "\n")

    def file(self, report: FileReport) -> None:
        hidden = report.diagnostics - self._limit if self._limit else 0
        if self._json:
            self._out.write(report.json_line() + "\n")
        elif report.verdict is Verdict.VALID:
            self._out.write(f"{report.path}: ok\n")
        elif hidden > 0:
            self._out.write(
                f"{report.path}: {hidden} more diagnostics not shown (--max-diagnostics)\n"
            )


def _check_one(
    path: str, options: CheckOptions, printer: _Printer, stdin: BinaryIO
) -> FileReport:
    printer.start()
    name = STDIN_NAME if path == "-" else path
    if path == "-":
        return _read(name, lambda: stdin, options, printer, close=False)
    return _read(name, lambda: open(path, "rb"), options, printer, close=True)


def _read(
    name: str,
    opener: Callable[[], BinaryIO],
    options: CheckOptions,
    printer: _Printer,
    *,
    close: bool,
) -> FileReport:
    try:
        stream = opener()
    except OSError as exc:
        printer.diagnostic(Diagnostic(name, 0, "io.open", exc.strerror or str(exc)))
        return FileReport(name, Verdict.UNREADABLE, 0, 0, 1)
    try:
        return check_stream(name, stream, options, printer.diagnostic)
    finally:
        if close:
            stream.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``dsh-log``; returns the exit status (0 valid, 1 violations, 2 unreadable or usage)."""
    try:
        options = build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else 2
    check = CheckOptions(max_line_bytes=options.max_line_bytes, official=options.official)
    printer = _Printer(sys.stdout, as_json=options.json, limit=options.max_diagnostics)
    status = 0
    try:
        for path in options.paths:
            report = _check_one(path, check, printer, sys.stdin.buffer)
            printer.file(report)
            status = max(status, report.verdict.exit_code)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``dsh-log check big.jsonl | head``): stop quietly.
        sys.stdout = None  # no flush (and no second error) at interpreter exit
        return 2
    return status

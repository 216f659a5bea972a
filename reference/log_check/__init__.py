"""``dsh-log check``: validate DSH session log files, streaming, in constant memory.

See ``docs/log-check.md`` for the command, its rules, output and exit codes.
``main`` is the console script; :func:`check_stream` checks one open file and
reports each :class:`Diagnostic` through a callback.
"""

from __future__ import annotations

from .checker import CheckOptions, check_stream
from .cli import STDIN_NAME, main
from .diagnostics import Diagnostic, FileReport, Verdict
from .lines import DEFAULT_MAX_LINE_BYTES

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "STDIN_NAME",
    "CheckOptions",
    "Diagnostic",
    "FileReport",
    "Verdict",
    "check_stream",
    "main",
]

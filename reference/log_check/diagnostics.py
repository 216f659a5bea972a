"""What ``dsh-log check`` reports: one diagnostic per problem, and a verdict per file.

A diagnostic names the file, the physical line (1-based; line 0 means the file
as a whole, e.g. it could not be opened), a rule and a message. Rules are dotted
names grouped by layer (``file.*``, ``header.*``, ``envelope.*``, ``io.*``) or
the plugin whose policy is broken (``dsh-schedule``, ``dsh-time-context``), in
which case the message is that plugin's own diagnostic.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import Any

__all__ = ["Diagnostic", "FileReport", "Verdict"]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    path: str
    line: int
    rule: str
    message: str

    def text(self) -> str:
        """``path:line: rule: message``."""
        return f"{self.path}:{self.line}: {self.rule}: {self.message}"

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": "diagnostic",
            "path": self.path,
            "line": self.line,
            "rule": self.rule,
            "message": self.message,
        }


class Verdict(Enum):
    VALID = "valid"
    INVALID = "invalid"  # read to the end; at least one violation
    UNREADABLE = "unreadable"  # could not be opened or read to its end

    @property
    def exit_code(self) -> int:
        return {"valid": 0, "invalid": 1, "unreadable": 2}[self.value]


@dataclass(frozen=True, slots=True)
class FileReport:
    """The end of one file's check: counts and the verdict."""

    path: str
    verdict: Verdict
    lines: int
    events: int
    diagnostics: int

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": "file",
            "path": self.path,
            "verdict": self.verdict.value,
            "lines": self.lines,
            "events": self.events,
            "diagnostics": self.diagnostics,
        }

    def json_line(self) -> str:
        return json.dumps(self.as_json(), ensure_ascii=False)

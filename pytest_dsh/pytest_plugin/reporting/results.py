"""One conformance test as the reports see it: what it checks and how it ended."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

__all__ = ["HOST_LIMIT", "HOST_LIMIT_LIFTED", "TestResult", "collection_message", "outcome_of"]

_MESSAGE_LIMIT = 4000
#: The outcomes of a test the DSH host decides (pytest_dsh.npm.host_limits).
HOST_LIMIT = "host limit"
HOST_LIMIT_LIFTED = "host limit lifted"


@dataclass
class TestResult:
    """A collected test: its stable id, README sentences, requirement level,
    pinned details and plugin (fixed at collection), then its outcome."""

    __test__ = False  # not a pytest test class

    id: str
    nodeid: str
    plugin: str
    level: str
    sentences: tuple[str, ...] = ()
    pinned_details: tuple[str, ...] = ()
    rerun: str = ""
    outcome: str = "not run"
    message: str | None = None
    known_failure: str | None = None
    #: Set at collection when the DSH host cannot let any plugin pass this
    #: test (pytest_dsh.npm.host_limits): its outcome is then ``host limit``
    #: or, when it passes, ``host limit lifted``; never counted against it.
    #: Also set when the test failed from a limit's symptom
    #: (pytest_dsh.pytest_plugin.host_limit_symptoms).
    host_limit: str | None = None
    #: Set when the test is a probe (``dsh_probe`` marker): the basic
    #: behaviour it isolates, as (behaviour id, sentence); see .behaviours.
    probe: tuple[str, str] | None = None
    duration: float = 0.0
    _phases: list[str] = field(default_factory=list, repr=False)

    def record(self, report: pytest.TestReport) -> None:
        """Fold the report of one phase (setup, call, teardown) in."""
        self.duration += report.duration
        outcome = outcome_of(report)
        if outcome is None:
            return
        if report.when == "teardown" and self.outcome in ("failed", "error"):
            return  # the first failure is the one to read
        met = getattr(report, "dsh_host_limit", None)
        if met:  # a limit met by its symptom (pytest_plugin.host_limit_symptoms)
            self.host_limit = str(met)
        if self.host_limit is not None and outcome in ("xfailed", "xpassed"):
            outcome = HOST_LIMIT if outcome == "xfailed" else HOST_LIMIT_LIFTED
        self.outcome = outcome
        if outcome in (HOST_LIMIT, HOST_LIMIT_LIFTED):
            self.message = _crash_message(report) if outcome == HOST_LIMIT else None
        elif outcome == "xfailed":
            self.known_failure = str(getattr(report, "wasxfail", "")) or None
            self.message = _crash_message(report)
        elif outcome in ("failed", "error", "skipped", "xpassed"):
            self.message = _crash_message(report)
            if outcome == "xpassed":
                self.known_failure = str(getattr(report, "wasxfail", "")) or None

    def description(self) -> dict[str, Any]:
        """What was fixed at collection, as plain data (a parallel run's worker
        sends it to the controller): :meth:`described` makes the row again."""
        return {
            "id": self.id,
            "nodeid": self.nodeid,
            "plugin": self.plugin,
            "level": self.level,
            "sentences": list(self.sentences),
            "pinned_details": list(self.pinned_details),
            "rerun": self.rerun,
            "host_limit": self.host_limit,
            "probe": {"id": self.probe[0], "behaviour": self.probe[1]} if self.probe else None,
        }

    @classmethod
    def described(cls, data: Mapping[str, Any]) -> TestResult:
        """A row that has not run yet, from :meth:`description`."""
        return cls(
            id=str(data["id"]),
            nodeid=str(data["nodeid"]),
            plugin=str(data["plugin"]),
            level=str(data["level"]),
            sentences=tuple(str(s) for s in data["sentences"]),
            pinned_details=tuple(str(p) for p in data["pinned_details"]),
            rerun=str(data["rerun"]),
            host_limit=str(data["host_limit"]) if data.get("host_limit") else None,
            probe=(str(data["probe"]["id"]), str(data["probe"]["behaviour"]))
            if data.get("probe") else None,
        )

    def as_json(self) -> dict[str, Any]:
        fixed = self.description()
        # The report puts these after the outcome.
        del fixed["rerun"], fixed["host_limit"], fixed["probe"]
        return {
            **fixed,
            "outcome": self.outcome,
            "message": self.message,
            "known_failure": self.known_failure,
            "host_limit": self.host_limit,
            "rerun": self.rerun,
            "probe": {"id": self.probe[0], "behaviour": self.probe[1]} if self.probe else None,
            "duration": round(self.duration, 4),
        }


def outcome_of(report: pytest.TestReport) -> str | None:
    """``passed``/``failed``/``error``/``skipped``/``xfailed``/``xpassed`` for
    the phase that decides it; ``None`` for a phase that says nothing new."""
    text = str(getattr(report, "longrepr", "") or "")
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else "xpassed"
    if report.failed and text.startswith("[XPASS(strict)]"):
        return "xpassed"  # a known failure passed: its expectation is stale
    if report.when not in ("setup", "teardown"):
        # The call, or a test whose worker process died under it (pytest-xdist
        # reports that as a failure of an unnamed phase).
        return str(report.outcome)
    if report.failed:
        return "error"
    if report.skipped:
        return "skipped"
    return None


def _crash_message(report: pytest.TestReport) -> str | None:
    longrepr = report.longrepr
    if longrepr is None:
        return None
    if isinstance(longrepr, tuple):  # a skip: (path, line, "Skipped: reason")
        return str(longrepr[2]).removeprefix("Skipped: ")
    crash = getattr(longrepr, "reprcrash", None)
    text = str(crash.message) if crash is not None else str(longrepr)
    if text.startswith("[XPASS(strict)]"):
        reason = text.removeprefix("[XPASS(strict)]").strip()
        text = f"passed, but it is listed as a known failure ({reason}); remove the entry"
    if crash is not None and report.when != "call":
        text = f"in {report.when}: {text}"
    return _limited(text)


def collection_message(report: pytest.CollectReport) -> str:
    """What made a collector fail, in one line: the exception pytest shows
    last (``E   ModuleNotFoundError: ...``), else the last line of its text."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        text = str(crash.message)
    else:
        lines = [line.strip() for line in report.longreprtext.splitlines() if line.strip()]
        errors = [line.removeprefix("E").strip() for line in lines if line.startswith("E ")]
        text = errors[-1] if errors else (lines[-1] if lines else "collection failed")
    return _limited(text)


def _limited(text: str) -> str:
    return text if len(text) <= _MESSAGE_LIMIT else text[:_MESSAGE_LIMIT] + " …"

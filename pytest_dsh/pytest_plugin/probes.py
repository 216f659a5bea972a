"""Probes: minimal readme-level tests that each isolate one basic behaviour.

``@pytest.mark.dsh_probe("behaviour-id", "one short sentence")`` marks a test
as the probe of a behaviour a README section states (a one-shot fires at its
target and not before; ids are never reused...). A failing probe names a bug
rather than a requirement: the report lists failing probes first and folds
the failures that plausibly follow from them (pytest_dsh.pytest_plugin.reporting.behaviours).
``pytest -m dsh_probe`` runs the probes alone: a quick first screen.
"""

from __future__ import annotations

import pytest

__all__ = ["MARKER", "probe_of", "register"]

MARKER = "dsh_probe"


def register(config: pytest.Config) -> None:
    """Declare the marker (strict marker checking rejects unknown ones)."""
    config.addinivalue_line(
        "markers",
        f"{MARKER}(behaviour_id, behaviour): this readme-level test is the probe of one basic "
        "behaviour; a failing probe is listed first in the report",
    )


def probe_of(item: pytest.Item) -> tuple[str, str] | None:
    """``(behaviour id, sentence)`` of a probe, ``None`` for other tests."""
    marker = item.get_closest_marker(MARKER)
    if marker is None or item.get_closest_marker("compat") is not None:
        return None  # a compat parametrization of a probe isolates no README behaviour
    behaviour_id, behaviour = marker.args
    return str(behaviour_id), str(behaviour)

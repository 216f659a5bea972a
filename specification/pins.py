"""Details the READMEs leave open, pinned to the official build.

``pinned_details.json`` maps each PIN-ID to its title, exact value, the section
of the official-build notes it follows and the README sentences it elaborates.
Tests that pin one carry ``@pytest.mark.compat("PIN-ID", ...)`` (level
``compat``); every other conformance test is level ``readme``.
"""

from __future__ import annotations

import importlib.resources
import json
from typing import Any

__all__ = ["load_pins"]


def load_pins() -> dict[str, dict[str, Any]]:
    """PIN-ID -> ``{title, value, official_notes_ref, sentences}``."""
    text = importlib.resources.files("dsh_spec").joinpath("pinned_details.json")
    pins: dict[str, dict[str, Any]] = json.loads(text.read_text("utf-8"))
    return pins

"""Probes (``dsh_probe``) are unique, readme level, and few.

Each probe isolates one basic behaviour of a README section; the report lists
failing probes first (docs/validate-your-plugin.md). A probe id on two tests,
or a probe that pins an official detail, would name a bug wrongly.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections import Counter
from typing import Any

import pytest

import dsh_conformance
from pytest_dsh.pytest_plugin.probes import MARKER


def _probes() -> list[tuple[str, Any]]:
    found = []
    for info in pkgutil.walk_packages(dsh_conformance.__path__, "dsh_conformance."):
        if not info.name.rpartition(".")[2].startswith("test_"):
            continue
        module = importlib.import_module(info.name)
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("test_") and function.__module__ == module.__name__:
                marks = getattr(function, "pytestmark", [])
                if any(mark.name == MARKER for mark in marks):
                    found.append((f"{info.name}::{name}", marks))
    return found


PROBES = _probes()


def _tests_of(module_name: str) -> list[str]:
    module = importlib.import_module(module_name)
    return [name for name, function in inspect.getmembers(module, inspect.isfunction)
            if name.startswith("test_") and function.__module__ == module_name]


def test_there_are_a_few_dozen_probes_each_with_a_unique_id():
    ids = Counter(
        str(mark.args[0]) for _, marks in PROBES for mark in marks if mark.name == MARKER
    )
    assert 20 <= len(PROBES) <= 50
    assert [probe for probe, count in ids.items() if count > 1] == []
    assert len(ids) == len(PROBES)  # one marker per probe test


@pytest.mark.parametrize(("test", "marks"), PROBES, ids=[test for test, _ in PROBES])
def test_a_probe_is_readme_level_with_a_short_sentence_and_readme_ids(test, marks):
    names = [mark.name for mark in marks]
    assert "compat" not in names, f"{test} pins an official detail; a probe is readme level"
    assert "spec" in names, f"{test} names no README sentence"
    (probe,) = [mark for mark in marks if mark.name == MARKER]
    behaviour_id, sentence = probe.args
    assert behaviour_id == behaviour_id.lower() and " " not in behaviour_id
    assert 10 <= len(sentence) <= 90 and not sentence.endswith(".")


#: The probe modules: a section's probes written apart from its other tests
#: (``<plugin>/<section>/test_probes.py``, ``test_runtime_probes.py``).
PROBE_MODULES = sorted(
    info.name for info in pkgutil.walk_packages(dsh_conformance.__path__, "dsh_conformance.")
    if info.name.rpartition(".")[2] in ("test_probes", "test_runtime_probes")
)


def test_every_plugin_has_probe_modules():
    plugins = {module.split(".")[1] for module in PROBE_MODULES}
    assert plugins == {"schedule", "time_context"}


@pytest.mark.parametrize("module", PROBE_MODULES)
def test_a_probe_module_holds_probes_only(module):
    # A test written there to isolate a behaviour that is not marked would be
    # a duplicate readme test that names no bug.
    probes = {test.rpartition("::")[2] for test, _ in PROBES if test.startswith(module + "::")}
    assert probes and sorted(probes) == sorted(_tests_of(module))

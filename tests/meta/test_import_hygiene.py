"""What a plugin imports stays light (issue item 10): the host contract and the
reference plugins load neither pytest, Hypothesis nor the fake host. Checked
in a fresh interpreter, since this process has all of them loaded."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: The fake host's machinery: everything in it but ``fake_host.implementation``
#: (the light ``PythonImplementation`` a descriptor builds, beside its host).
FAKE_HOST = ("pytest_dsh.fake_host.host", "pytest_dsh.fake_host.driver",
             "pytest_dsh.fake_host.agent", "pytest_dsh.fake_host.virtual_loop",
             "pytest_dsh.fake_host.clock", "pytest_dsh.fake_host.session",
             "pytest_dsh.fake_host.tools", "pytest_dsh.fake_host.persistence")
HEAVY = ("pytest", "_pytest", "hypothesis", "time_machine", *FAKE_HOST, "pytest_dsh.pytest_plugin",
         "pytest_dsh.pytest_plugin.plugin", "pytest_dsh.official", "pytest_dsh.npm.bridge")


@pytest.mark.parametrize(
    "module",
    [
        "pytest_dsh.contract",
        "pytest_dsh.contract.tzdb",
        "pytest_dsh.contract.frozen_json",
        "pytest_dsh",
        "dsh_reference",
        "dsh_reference.schedule.plugin",
        "dsh_reference.time_context",
        "dsh_reference.implementation",
    ],
)
def test_importing_pulls_in_no_test_machinery(module):
    assert _loaded_by(module, HEAVY) == []


def _loaded_by(module, watched):
    """Which of ``watched`` a fresh interpreter has loaded after importing ``module``."""
    code = (
        f"import json, sys, {module}\n"
        f"print(json.dumps([m for m in {list(watched)!r} if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_public_names_still_resolve_on_first_use():
    code = (
        "import sys, pytest_dsh\n"
        "assert 'pytest_dsh.fake_host.host' not in sys.modules\n"
        "host = pytest_dsh.FakeHost\n"
        "assert 'pytest_dsh.fake_host.host' in sys.modules and host.__name__ == 'FakeHost'\n"
        "try:\n    pytest_dsh.NoSuchName\nexcept AttributeError as e:\n    print(e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "module 'pytest_dsh' has no attribute 'NoSuchName'"


@pytest.mark.parametrize("module", ["pytest_dsh.driving.api", "pytest_dsh.driving.faults"])
def test_the_driver_api_loads_neither_host(module):
    """Tests talk to the driver API; which host answers is the implementation's
    choice, so the API itself loads neither the fake host nor the bridge."""
    hosts = ("pytest", "pytest_dsh.fake_host", "pytest_dsh.npm", "pytest_dsh.official")
    assert _loaded_by(module, hosts) == []

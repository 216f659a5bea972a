"""What a plugin imports stays light (issue item 10): the host contract and the
reference plugins load neither pytest, Hypothesis nor the fake host. Checked
in a fresh interpreter, since this process has all of them loaded."""

from __future__ import annotations

import ast
import json
import pathlib
import sys

import kit_child_processes as children
import pytest

import pytest_dsh

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
    done = children.run(
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
    done = children.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "module 'pytest_dsh' has no attribute 'NoSuchName'"


@pytest.mark.parametrize("module", ["pytest_dsh.driving.api", "pytest_dsh.driving.faults"])
def test_the_driver_api_loads_neither_host(module):
    """Tests talk to the driver API; which host answers is the implementation's
    choice, so the API itself loads neither the fake host nor the bridge."""
    hosts = ("pytest", "pytest_dsh.fake_host", "pytest_dsh.npm", "pytest_dsh.official")
    assert _loaded_by(module, hosts) == []


def _driving_modules() -> list[str]:
    import pkgutil

    import pytest_dsh.driving

    names = sorted(info.name for info in pkgutil.iter_modules(pytest_dsh.driving.__path__))
    return ["pytest_dsh.driving", *(f"pytest_dsh.driving.{name}" for name in names)]


def test_the_driver_api_has_every_module_checked():
    # A new module of driving/ is imported by the test below without being listed.
    assert {"pytest_dsh.driving.requirements", "pytest_dsh.driving.seams"} <= set(
        _driving_modules()
    )


@pytest.mark.parametrize(
    "modules",
    [
        _driving_modules(),
        ["pytest_dsh.fake_host.driver", "pytest_dsh.fake_host"],
        ["pytest_dsh.npm.bridge.driver", "pytest_dsh.npm.bridge", "pytest_dsh.npm"],
        ["pytest_dsh.implementations", "pytest_dsh.npm.host_limits"],
    ],
    ids=["driving", "fake-host", "bridge-driver", "implementations-and-host-limits"],
)
def test_the_driver_api_and_both_hosts_load_no_pytest(modules):
    """Whether a test is skipped is decided by the pytest plugin: the driver API
    and the hosts raise RequirementMissing, so neither host loads pytest."""
    assert _loaded_by(", ".join(modules), ("pytest", "_pytest")) == []


def test_a_fake_host_runs_a_tool_call_where_pytest_cannot_be_imported():
    """Nothing of the driver API or the fake host needs pytest to work."""
    code = (
        "import sys\n"
        "sys.modules['pytest'] = None  # import pytest now raises ImportError\n"
        "from dsh_reference.implementation import IMPLEMENTATION\n"
        "from pytest_dsh.driving.seams import SeamMissing, require_seam\n"
        "host = IMPLEMENTATION.open_host(start_ms=1_767_225_600_000)\n"
        "host.load_plugin('schedule')\n"
        "agent = host.create_agent(session_id='s')\n"
        "print(type(agent.call_tool('schedule_list', {}).value).__name__)\n"
        "try:\n    require_seam(host, 'export-shape')\n"
        "except SeamMissing as missing:\n    print('missing:', missing)\n"
        "host.close()\n"
    )
    done = children.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[0] == "list"
    assert done.stdout.splitlines()[1].startswith(
        "missing: the reference host cannot provide the 'export-shape' seam: "
    )



#: The rooms below the pytest side: none of their modules imports pytest, not
#: even inside a function (docs/package-map.md).
PYTEST_FREE_ROOMS = ("contract", "driving", "fake_host", "npm", "official", "strategies")


def _pytest_imports(path: pathlib.Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        found += [f"{path.name}:{node.lineno}: {n}" for n in names
                  if n.split(".")[0] in ("pytest", "_pytest")]
    return found


def test_the_pytest_import_check_sees_a_lazy_one(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from _pytest.outcomes import skip\n    import pytest\n")
    assert _pytest_imports(probe) == ["probe.py:2: _pytest.outcomes", "probe.py:3: pytest"]


@pytest.mark.parametrize("room", PYTEST_FREE_ROOMS)
def test_no_module_below_the_pytest_side_imports_pytest_even_lazily(room):
    folder = pathlib.Path(pytest_dsh.__file__).parent / room
    assert [hit for path in sorted(folder.rglob("*.py")) for hit in _pytest_imports(path)] == []

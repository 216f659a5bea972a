"""The npm path's pytest options, and ``--dsh-impl=npm``.

``--dsh-npm ROLE=SPEC`` / ini ``dsh_npm`` (one ``ROLE=SPEC`` per line)
    A package under test for ``--dsh-impl=npm``; ROLE is ``schedule`` or
    ``time-context``, SPEC anything ``npm install`` accepts. Relative paths are
    taken from the working directory (from the ini file's folder in the ini).
``--dsh-npm-cache PATH`` / ini ``dsh_npm_cache``
    Where installs are kept (default ``$DSH_NPM_CACHE``, else the user cache
    directory, ``~/.cache/pytest-dsh/npm`` on Linux).

The pytest plugin (:mod:`pytest_dsh.plugin`) calls :func:`pytest_addoption`,
:func:`implementation_for` and :func:`prepare`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, cast

import pytest

from pytest_dsh.errors import ImplementationError
from pytest_dsh.implementations import Implementation
from pytest_dsh.npm._implementation import NodeImplementation
from pytest_dsh.npm._specs import ROLES, parse_spec

__all__ = ["IMPL_NAME", "implementation_for", "prepare", "pytest_addoption", "rerun_args"]

#: The ``--dsh-impl`` name of the zero-Python npm path.
IMPL_NAME: Final = "npm"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dsh")
    group.addoption(
        "--dsh-npm",
        dest="dsh_npm",
        action="append",
        default=[],
        metavar="ROLE=SPEC",
        help="with --dsh-impl=npm: a package under test, ROLE schedule or time-context, SPEC "
        "a folder, a tarball or name@version (repeat for both roles; ini: dsh_npm)",
    )
    group.addoption(
        "--dsh-npm-cache",
        dest="dsh_npm_cache",
        default=None,
        metavar="PATH",
        help="where npm installs are kept and reused (default $DSH_NPM_CACHE or "
        "~/.cache/pytest-dsh/npm; ini: dsh_npm_cache)",
    )
    parser.addini("dsh_npm", "packages for --dsh-impl=npm, one ROLE=SPEC per line", type="linelist")
    parser.addini("dsh_npm_cache", "npm install cache folder (see --dsh-npm-cache)", default="")


def _ini_base(config: pytest.Config) -> Path:
    return config.inipath.parent if config.inipath is not None else config.rootpath


def _requested(config: pytest.Config) -> tuple[list[str], Path]:
    given = [str(value) for value in config.getoption("dsh_npm") or []]
    if given:
        return given, config.invocation_params.dir
    return [str(value) for value in config.getini("dsh_npm") or []], _ini_base(config)


def _packages(entries: list[str]) -> dict[str, str]:
    packages: dict[str, str] = {}
    for entry in entries:
        role, sep, spec = entry.partition("=")
        role, spec = role.strip(), spec.strip()
        if not sep or role not in ROLES or not spec:
            raise ImplementationError(
                f"--dsh-npm {entry!r}: expected ROLE=SPEC with ROLE one of {', '.join(ROLES)}"
            )
        if role in packages:
            raise ImplementationError(f"--dsh-npm: {role} given twice")
        packages[role] = spec
    return packages


def rerun_args(config: pytest.Config) -> list[str]:
    """The npm options of this command line, for a rerun command that must
    install the same packages (ini values apply to a rerun by themselves)."""
    args = [f"--dsh-npm={value}" for value in config.getoption("dsh_npm") or []]
    cache = config.getoption("dsh_npm_cache", None)
    if cache:
        args.append(f"--dsh-npm-cache={cache}")
    return args


def implementation_for(config: pytest.Config, name: str) -> Implementation | None:
    """The implementation ``--dsh-impl=npm`` builds from ``--dsh-npm``, or None
    when ``name`` is another implementation (``--dsh-npm`` is then refused)."""
    entries, base = _requested(config)
    if name.strip() != IMPL_NAME:
        if config.getoption("dsh_npm"):
            raise ImplementationError(f"--dsh-npm only applies with --dsh-impl={IMPL_NAME}")
        return None
    if not entries:
        raise ImplementationError(
            f"--dsh-impl={IMPL_NAME} needs the packages under test: "
            f"--dsh-npm schedule=SPEC and/or --dsh-npm time-context=SPEC (ini: dsh_npm)"
        )
    packages = _packages(entries)
    specs = [parse_spec(role, spec, base=base) for role, spec in sorted(packages.items())]
    implementation = NodeImplementation(
        name=" + ".join(spec.name or spec.text for spec in specs),
        version=" + ".join(spec.version or "?" for spec in specs),
        packages=packages,
        base=base,
    )
    # Frozen dataclass fields are read-only, the protocol's attributes settable:
    # structurally the same for every use the kit makes of them.
    return cast(Implementation, implementation)


def _cache_root(config: pytest.Config) -> Path | None:
    option = config.getoption("dsh_npm_cache")
    if option:
        return Path(str(option)).expanduser().resolve()
    ini = str(config.getini("dsh_npm_cache") or "").strip()
    return (_ini_base(config) / Path(ini).expanduser()).resolve() if ini else None


def prepare(config: pytest.Config, implementation: object) -> None:
    """Install and check an npm implementation before any test runs, showing
    progress on the terminal (the first run installs; later runs reuse)."""
    if not isinstance(implementation, NodeImplementation):
        return
    capture = config.pluginmanager.getplugin("capturemanager")

    def progress(message: str) -> None:
        if capture is not None:
            with capture.global_and_fixture_disabled():
                print(message, flush=True)
        else:  # pragma: no cover - capture disabled with -p no:capture
            print(message, flush=True)

    implementation.prepare(progress=progress, cache_root=_cache_root(config))

"""The npm path's pytest options, and ``--dsh-impl=npm``.

``--dsh-npm ROLE=SPEC`` / ini ``dsh_npm`` (one ``ROLE=SPEC`` per line)
    A package under test for ``--dsh-impl=npm``; ROLE is ``schedule`` or
    ``time-context``, SPEC anything ``npm install`` accepts. Relative paths are
    taken from the working directory (from the ini file's folder in the ini).
``--dsh-npm-cache PATH`` / ini ``dsh_npm_cache``
    Where installs are kept (default ``$DSH_NPM_CACHE``, else the user cache
    directory, ``~/.cache/pytest-dsh/npm`` on Linux).
``--dsh-npm-no-invariant`` / ini ``dsh_npm_no_invariant``
    Do not test the packages' ``./invariant`` companions: their tests are
    skipped with the reason. A package without that export is detected when
    it is checked, and tested without it as well.
``--dsh-npm-scripts`` / ini ``dsh_npm_scripts``
    Let npm run the packages' lifecycle scripts (off by default).
``--dsh-host VERSION`` / ini ``dsh_host``
    The DSH host profile the bridge runs on (:mod:`pytest_dsh.npm.hosts`),
    for ``--dsh-impl=npm``, ``official`` or any npm implementation.

The options are declared in :mod:`pytest_dsh.pytest_plugin.options`; the pytest
plugin (:mod:`pytest_dsh.pytest_plugin.plugin`) calls :func:`implementation_for`
and :func:`prepare`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final, TypeVar, cast

import pytest

from pytest_dsh.errors import ImplementationError
from pytest_dsh.implementations import Implementation
from pytest_dsh.npm._implementation import NodeImplementation
from pytest_dsh.npm._install import BridgeRuntime
from pytest_dsh.npm._specs import ROLES, parse_spec

__all__ = [
    "IMPL_NAME",
    "handed_down",
    "host_option",
    "implementation_for",
    "prepare",
    "scripts_option",
]

_Impl = TypeVar("_Impl")

#: The ``--dsh-impl`` name of the zero-Python npm path.
IMPL_NAME: Final = "npm"


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


def implementation_for(config: pytest.Config, name: str) -> Implementation | None:
    """The implementation ``--dsh-impl=npm`` builds from ``--dsh-npm``, or None
    when ``name`` is another implementation (``--dsh-npm`` is then refused)."""
    entries, base = _requested(config)
    if name.strip() != IMPL_NAME:
        if config.getoption("dsh_npm"):
            raise ImplementationError(f"--dsh-npm only applies with --dsh-impl={IMPL_NAME}")
        if config.getoption("dsh_npm_no_invariant"):
            raise ImplementationError(
                f"--dsh-npm-no-invariant only applies with --dsh-impl={IMPL_NAME}"
            )
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
        companions=not _no_invariant(config),
    )
    # Frozen dataclass fields are read-only, the protocol's attributes settable:
    # structurally the same for every use the kit makes of them.
    return cast(Implementation, implementation)


def _no_invariant(config: pytest.Config) -> bool:
    given = config.getoption("dsh_npm_no_invariant")
    return bool(given) if given is not None else bool(config.getini("dsh_npm_no_invariant"))


def _cache_root(config: pytest.Config) -> Path | None:
    option = config.getoption("dsh_npm_cache")
    if option:
        return Path(str(option)).expanduser().resolve()
    ini = str(config.getini("dsh_npm_cache") or "").strip()
    return (_ini_base(config) / Path(ini).expanduser()).resolve() if ini else None


def host_option(config: pytest.Config) -> str | None:
    """``--dsh-host`` or ``dsh_host``, when given."""
    given = config.getoption("dsh_host", None) or str(config.getini("dsh_host") or "").strip()
    return str(given) if given else None


def scripts_option(config: pytest.Config) -> bool:
    """``--dsh-npm-scripts`` or ``dsh_npm_scripts``."""
    given = config.getoption("dsh_npm_scripts", None)
    return bool(given) if given is not None else bool(config.getini("dsh_npm_scripts"))


def prepare(config: pytest.Config, implementation: _Impl) -> _Impl:
    """Install and check an npm implementation before any test runs, showing
    progress on the terminal (the first run installs; later runs reuse).
    Returns the implementation the run tests: on the ``--dsh-host`` profile
    when one is given (a copy; the object given is never changed)."""
    host = host_option(config)
    if not isinstance(implementation, NodeImplementation):
        if host is not None:
            raise ImplementationError(
                "--dsh-host only applies to an npm implementation (npm, official, or a "
                "NodeImplementation)"
            )
        return implementation
    node: NodeImplementation = implementation
    if host is not None and host.strip() != node.host:
        node = node.on_host(host.strip())
    capture = config.pluginmanager.getplugin("capturemanager")

    def progress(message: str) -> None:
        if capture is not None:
            with capture.global_and_fixture_disabled():
                print(message, flush=True)
        else:  # pragma: no cover - capture disabled with -p no:capture
            print(message, flush=True)

    node.prepare(
        progress=progress,
        cache_root=_cache_root(config),
        scripts=scripts_option(config),
        installed=_controller_install(config),
        checked_peers=_controller_peer_notes(config),
    )
    return cast(_Impl, node)


#: The key of the controller's install in what a parallel run hands its workers.
_HANDED_KEY: Final = "npm_install"


def handed_down(implementation: object) -> dict[str, object]:
    """On a parallel run's controller: the install it resolved, for its
    workers (:func:`pytest_dsh.pytest_plugin.parallel.inherited`), so that every worker
    loads exactly that code even if a package folder changed since."""
    if not isinstance(implementation, NodeImplementation):
        return {}
    runtime = implementation.prepare()  # resolved already: the same object
    return {
        _HANDED_KEY: {
            "folder": str(runtime.folder),
            "packages": [list(pair) for pair in runtime.packages],
            "host": runtime.host,
            # The controller checked this install's peer ranges (a conflict
            # stopped the run there): a worker takes its notes, runs no Node.
            "peer_notes": list(implementation.peer_notes()),
        }
    }


def _handed_install(config: pytest.Config) -> dict[str, Any] | None:
    from pytest_dsh.pytest_plugin.parallel import inherited

    handed = (inherited(config) or {}).get(_HANDED_KEY)
    return handed if isinstance(handed, dict) else None


def _controller_peer_notes(config: pytest.Config) -> list[str] | None:
    """On a worker: the notes of its controller's peer check; else None."""
    notes = (_handed_install(config) or {}).get("peer_notes")
    return [str(note) for note in notes] if isinstance(notes, list) else None


def _controller_install(config: pytest.Config) -> BridgeRuntime | None:
    """On a worker: the install its controller resolved; else None."""
    handed = _handed_install(config)
    if handed is None:
        return None
    return BridgeRuntime(
        Path(str(handed["folder"])),
        tuple((str(role), str(name)) for role, name in handed["packages"]),
        str(handed["host"]),
    )

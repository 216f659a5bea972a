"""Any npm build of the DSH plugins under the conformance suite.

* :class:`NodeImplementation`: packages named by what ``npm install``
  accepts, installed with the pinned DSH host and Node runtime into a cache,
  driven by the Node bridge (shipped in the wheel as ``pytest_dsh/_bridge``);
* ``--dsh-impl=npm --dsh-npm ROLE=SPEC``: the same without writing Python
  (:mod:`pytest_dsh.pytest_plugin.npm_options`);
* :mod:`pytest_dsh.npm.known_failures`: known failures as a ``dsh-expectations/1`` file;
* :mod:`pytest_dsh.npm.errors`: one clear error per set-up problem;
* :mod:`pytest_dsh.npm.hosts`: the DSH host profiles the bridge runs on
  (``--dsh-host``), and :func:`install_host` to install one.

See ``docs/validate-your-npm-plugin.md``.
"""

from __future__ import annotations

from pytest_dsh.npm._implementation import NodeImplementation, default_capabilities
from pytest_dsh.npm._install import (
    CACHE_ENV,
    BridgeRuntime,
    bridge_source,
    clean_stale_staging,
    default_cache_root,
    install_host,
    install_packages,
)
from pytest_dsh.npm._specs import ROLES, PackageSpec, parse_spec
from pytest_dsh.npm.errors import (
    NodeTooOldError,
    NotADshPluginError,
    NpmInstallError,
    NpmMissingError,
    NpmSetupError,
    PackageNotFoundError,
    PeerConflictError,
    UnknownHostError,
)
from pytest_dsh.npm.hosts import DEFAULT_HOST, HOST_PROFILES, HostProfile, host_profile

__all__ = [
    "CACHE_ENV",
    "DEFAULT_HOST",
    "HOST_PROFILES",
    "ROLES",
    "BridgeRuntime",
    "HostProfile",
    "NodeImplementation",
    "NodeTooOldError",
    "NotADshPluginError",
    "NpmInstallError",
    "NpmMissingError",
    "NpmSetupError",
    "PackageNotFoundError",
    "PackageSpec",
    "PeerConflictError",
    "UnknownHostError",
    "bridge_source",
    "clean_stale_staging",
    "default_cache_root",
    "default_capabilities",
    "host_profile",
    "install_host",
    "install_packages",
    "parse_spec",
]

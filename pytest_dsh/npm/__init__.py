"""Any npm build of the DSH plugins under the conformance suite.

* :class:`NodeImplementation`: packages named by what ``npm install``
  accepts, installed with the pinned DSH host and Node runtime into a cache,
  driven by the Node bridge (shipped in the wheel as ``pytest_dsh/_bridge``);
* ``--dsh-impl=npm --dsh-npm ROLE=SPEC``: the same without writing Python
  (:mod:`pytest_dsh.npm.options`);
* :mod:`pytest_dsh.npm.expectations`: known failures as a ``dsh-expectations/1`` file;
* :mod:`pytest_dsh.npm.errors`: one clear error per set-up problem.

See ``docs/validate-your-npm-plugin.md``.
"""

from __future__ import annotations

from pytest_dsh.npm._implementation import NodeImplementation, default_capabilities
from pytest_dsh.npm._install import (
    CACHE_ENV,
    BridgeRuntime,
    bridge_source,
    default_cache_root,
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
)

__all__ = [
    "CACHE_ENV",
    "ROLES",
    "BridgeRuntime",
    "NodeImplementation",
    "NodeTooOldError",
    "NotADshPluginError",
    "NpmInstallError",
    "NpmMissingError",
    "NpmSetupError",
    "PackageNotFoundError",
    "PackageSpec",
    "PeerConflictError",
    "bridge_source",
    "default_cache_root",
    "default_capabilities",
    "install_packages",
    "parse_spec",
]

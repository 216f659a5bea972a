"""Errors of the npm path: each one stops the run once, as a usage error,
before any test runs (never one error per test).

::

    ImplementationError
    └── NpmSetupError
        ├── NpmMissingError        no npm to install with
        ├── PackageNotFoundError   a spec names nothing (folder, tarball, registry)
        ├── PeerConflictError      a package's peer range excludes the pinned DSH host
        ├── NotADshPluginError     a package does not export a Cordis plugin
        ├── NodeTooOldError        the Node runtime is older than the bridge needs
        ├── UnknownHostError       --dsh-host names no DSH host profile
        └── NpmInstallError        npm failed for another reason (its output is quoted)
"""

from __future__ import annotations

from pytest_dsh.errors import ImplementationError

__all__ = [
    "NodeTooOldError",
    "NotADshPluginError",
    "NpmInstallError",
    "NpmMissingError",
    "NpmSetupError",
    "PackageNotFoundError",
    "PeerConflictError",
    "UnknownHostError",
]


class NpmSetupError(ImplementationError):
    """An npm implementation cannot be installed or started."""


class NpmMissingError(NpmSetupError):
    pass


class PackageNotFoundError(NpmSetupError):
    pass


class PeerConflictError(NpmSetupError):
    pass


class NotADshPluginError(NpmSetupError):
    pass


class NodeTooOldError(NpmSetupError):
    pass


class NpmInstallError(NpmSetupError):
    pass


class UnknownHostError(NpmSetupError):
    pass

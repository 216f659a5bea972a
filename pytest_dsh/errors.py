"""The kit's errors, shared by both hosts, the npm path and the pytest plugin.

Every error the kit raises is a :class:`DshKitError`; the tree below is all of
them, each with the module that defines it. A second base (``KeyError``,
``ValueError``, ``RuntimeError``) is kept where callers catch that one::

    DshKitError
    ├── PluginLoadError          a plugin refused its config while loading
    ├── UnknownPluginError       (also KeyError) the implementation has no plugin of that name
    ├── AgentVetoedError         an agent-created hook raised; the agent is gone
    ├── HostStuckError           a driver call cannot finish (e.g. a hung flush)
    ├── ImplementationError      --dsh-impl names nothing usable
    │   ├── NpmSetupError        npm.errors: an npm implementation cannot be set up
    │   │   ├── NpmMissingError, PackageNotFoundError, PeerConflictError,
    │   │   ├── NotADshPluginError, NodeTooOldError, UnknownHostError,
    │   │   └── NpmInstallError  (one per problem, described in npm.errors)
    │   ├── BridgeUnavailableError   npm.bridge: no bridge folder, node_modules or Node
    │   ├── BridgeStartError     npm.bridge.channel: the bridge could not put its DSH host together
    │   └── BridgeProtocolError  npm.bridge.protocol: the bridge speaks another protocol version
    ├── ExpectationsError        expectations: a dsh-expectations/1 file cannot be used
    ├── JsonlRootError           driving.jsonl_root: a JSONL root a host cannot use
    │   ├── RootUnusableError    the root cannot hold sessions
    │   └── RootLockedError      another host writes under the same root
    ├── PersistenceRejectedError (also RuntimeError) fake_host.persistence: a flush failed
    │   └── SessionStoreError    fake_host.jsonl_store: the JSONL store refused
    │       ├── StoreRootError       (also RootUnusableError)
    │       ├── StoreLockedError     (also RootLockedError)
    │       ├── SessionIdError       (also ValueError) an id that cannot name a session
    │       ├── SessionExistsError   a new session's id is taken
    │       └── SessionFileError     (also ValueError) a session file corrupt before its last line
    ├── PersistenceDetachedError (also RuntimeError) fake_host.persistence: the session is not live
    ├── UnreadableFileError      (also ValueError) npm._files: a file the kit will not read
    ├── BridgeCrashedError       (also RuntimeError) npm.bridge: the Node process died
    ├── BridgeOperationError     (also RuntimeError) npm.bridge: the Node host raised something else
    ├── UndeclaredOpError        (also TypeError) npm.bridge.protocol: an undeclared op
    ├── ReportPathError          pytest_plugin.reporting: --dsh-report names no usable file
    └── ReportWriteError         pytest_plugin.reporting: the report could not be written

Outside the tree, on purpose:

* the contract's errors (``CompositionError``, ``AppendRejectedError``,
  ``PluginConfigError``, ..., and ``contract.tzdb``'s zone errors) are the
  plugins' vocabulary: :mod:`pytest_dsh.contract` imports nothing of the kit;
* :class:`~pytest_dsh.driving.runaway.RunawayError` is a ``BaseException``, so
  an ``except Exception`` in a plugin or host cannot swallow it;
* :class:`~pytest_dsh.driving.requirements.RequirementMissing` and its
  :class:`~pytest_dsh.driving.seams.SeamMissing` are skips, not errors: a
  ``unittest.SkipTest`` that says a test cannot be assessed here.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "AgentVetoedError",
    "DshKitError",
    "HostStuckError",
    "ImplementationError",
    "PluginLoadError",
    "UnknownPluginError",
]


class DshKitError(Exception):
    """Base class of the kit's own errors."""


class PluginLoadError(DshKitError):
    """A plugin refused its config. ``message`` is the plugin's own text."""

    def __init__(self, plugin: str, message: str) -> None:
        super().__init__(f"plugin {plugin!r} failed to load: {message}")
        self.plugin = plugin
        self.message = message


class UnknownPluginError(DshKitError, KeyError):
    def __init__(self, plugin: str, available: Sequence[str]) -> None:
        listed = ", ".join(available) or "none"
        super().__init__(f"no plugin named {plugin!r} (available: {listed})")
        self.plugin = plugin

    def __str__(self) -> str:
        return str(self.args[0])


class AgentVetoedError(DshKitError):
    def __init__(self, agent_id: str, cause: BaseException) -> None:
        super().__init__(f"agent {agent_id!r} was vetoed by an agent-created hook: {cause!r}")
        self.agent_id = agent_id


class HostStuckError(DshKitError):
    """The operation waits for something that will never happen by itself."""


class ImplementationError(DshKitError):
    """The implementation chosen with ``--dsh-impl`` cannot be used."""

"""Any npm build of the DSH plugins as an implementation under test.

:class:`NodeImplementation` names its packages by what ``npm install``
accepts; before the first host opens, :meth:`NodeImplementation.prepare`
installs them next to the bridge (see :mod:`pytest_dsh.npm._install`), starts
the bridge once and checks that every package exports a DSH plugin
(:mod:`pytest_dsh.npm._shape`). The official build is one instance
(:data:`pytest_dsh.official.IMPLEMENTATION`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, final

from pytest_dsh.npm._files import UnreadableFileError, read_json
from pytest_dsh.npm._install import BridgeRuntime, Progress, install_packages
from pytest_dsh.npm._specs import MAX_MANIFEST_BYTES, ROLES, PackageSpec, parse_spec
from pytest_dsh.npm.hosts import DEFAULT_HOST, HostProfile, host_profile

if TYPE_CHECKING:
    from pytest_dsh.npm.bridge.driver import BridgeHostDriver

__all__ = ["NodeImplementation", "default_capabilities"]

#: Driver capabilities each role brings (its invariant companion included);
#: the bridge host always offers a settable process zone.
_ROLE_CAPABILITIES: Final = {
    "schedule": frozenset({"schedule", "schedule-invariant"}),
    "time-context": frozenset({"time-context", "time-context-invariant"}),
}


def default_capabilities(roles: Iterable[str], *, companions: bool = True) -> frozenset[str]:
    """What a package set declares when the author does not say: each role
    and (unless ``companions`` is false) its invariant companion, plus
    ``process-zone``."""
    found = {"process-zone"}
    for role in roles:
        found |= _ROLE_CAPABILITIES.get(role, frozenset())
        if not companions:
            found.discard(f"{role}-invariant")
    return frozenset(found)


@final
@dataclass(frozen=True)
class NodeImplementation:
    """DSH plugin packages from npm, run by the Node bridge.

    ``packages`` maps a role (``schedule``, ``time-context``) to a SPEC: a
    folder, a tarball, or ``name@version``; relative paths are taken from
    ``base`` (default: the working directory at prepare time).
    ``capabilities`` defaults (when empty) to the roles given, their invariant
    companions and ``process-zone``. ``expected_failures`` (test id -> reason)
    are this implementation's own known failures: nothing is inherited.
    ``npm_overrides`` is written into the install's ``package.json``
    ``overrides`` (for a package whose declared peer ranges are too narrow).
    ``companions`` false leaves the ``./invariant`` companions untested; with
    the default capabilities, a package found without that export is tested
    without it too (:meth:`notes` says so).
    ``cache_dir`` overrides the npm cache root (see ``docs/validate-your-npm-plugin.md``).
    ``host`` is the DSH host version the bridge runs on (a profile of
    :mod:`pytest_dsh.npm.hosts`; default the pinned one, ``--dsh-host``).
    """

    name: str
    version: str
    packages: Mapping[str, str]
    capabilities: frozenset[str] = frozenset()
    expected_failures: Mapping[str, str] = field(default_factory=dict, repr=False)
    npm_overrides: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    cache_dir: Path | None = None
    base: Path | None = None
    host: str = DEFAULT_HOST
    companions: bool = True
    _prepared: dict[str, BridgeRuntime] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    #: Whether ``capabilities`` were given (else the defaults, narrowed by
    #: what the packages turn out to export).
    _declared: bool = field(default=False, init=False, repr=False, compare=False)
    _notes: list[str] = field(default_factory=list, init=False, repr=False, compare=False)
    _peer_notes: list[str] = field(default_factory=list, init=False, repr=False, compare=False)

    def __repr__(self) -> str:
        # The same text in every run (a failing example's message quotes it):
        # capabilities sorted; the known failures left out, as by the fields.
        def value(name: str) -> object:
            return sorted(self.capabilities) if name == "capabilities" else getattr(self, name)

        shown = [f"{f.name}={value(f.name)!r}" for f in dataclasses.fields(self) if f.repr]
        return f"NodeImplementation({', '.join(shown)})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # Hypothesis prints a failing example's arguments field by field,
        # ignoring repr=False (and the known failures run to tens of kB).
        printer.text(repr(self))

    def __post_init__(self) -> None:
        unknown = sorted(set(self.packages) - set(ROLES))
        if unknown or not self.packages:
            raise ValueError(
                f"packages must map roles {', '.join(ROLES)} to package specs; "
                f"got {unknown or 'none'}"
            )
        object.__setattr__(self, "_declared", bool(self.capabilities))
        if not self.capabilities:
            object.__setattr__(
                self,
                "capabilities",
                default_capabilities(self.packages, companions=self.companions),
            )
        if not self.companions:
            self._notes.extend(
                f"{role} companion ./invariant: not tested (--dsh-npm-no-invariant), "
                "its tests skipped"
                for role in sorted(self.packages)
            )

    def notes(self) -> tuple[str, ...]:
        """What the header says about the packages beyond name and version
        (a companion left out, and why; a peer range the run was forced past)."""
        return (*self._notes, *self._peer_notes)

    def peer_notes(self) -> tuple[str, ...]:
        """Each peer range of the packages that excludes a package of the
        host, and what forced the run past it (set by :meth:`prepare`)."""
        return tuple(self._peer_notes)

    def specs(self) -> list[PackageSpec]:
        """The packages, read (local folders and tarballs are opened here)."""
        items = sorted(self.packages.items())
        return [parse_spec(role, spec, base=self.base) for role, spec in items]

    def on_host(self, version: str) -> NodeImplementation:
        """A copy on DSH host ``version``, capabilities as this one has them:
        the defaults stay defaults (a package without ``./invariant`` is then
        tested without it), declared ones stay declared."""
        copy = dataclasses.replace(self, host=version)
        object.__setattr__(copy, "_declared", self._declared)
        if not self._declared:
            object.__setattr__(copy, "capabilities", self.capabilities)
        return copy

    @property
    def host_profile(self) -> HostProfile:
        """The DSH host profile this implementation runs on."""
        return host_profile(self.host)

    def prepare(
        self,
        *,
        progress: Progress | None = None,
        cache_root: Path | None = None,
        scripts: bool = False,
        installed: BridgeRuntime | None = None,
        checked_peers: Sequence[str] | None = None,
    ) -> BridgeRuntime:
        """Install (or reuse) the packages, check their peer ranges against
        the host and their shape, once per object; the install resolved here
        is the one every host of this object runs (a published install never
        changes). ``scripts`` lets npm run the packages' lifecycle scripts.
        ``installed`` is an install another process resolved (a parallel
        run's controller): used as is, nothing resolved again; with
        ``checked_peers``, the notes of the peer check that process made of
        it, taken as they are instead of running Node to check again. Raises an
        :class:`~pytest_dsh.npm.errors.NpmSetupError` (an
        :class:`~pytest_dsh.errors.ImplementationError`) naming the problem."""
        runtime = self._prepared.get("runtime")
        if runtime is not None:
            return runtime
        specs = self.specs()
        profile = self.host_profile
        runtime = installed or _prebuilt_runtime(specs, profile) or install_packages(
            specs,
            overrides=self.npm_overrides,
            cache_root=cache_root or self.cache_dir,
            progress=progress,
            host=profile.version,
            scripts=scripts,
        )
        if installed is not None and checked_peers is not None:
            self._peer_notes[:] = checked_peers
        else:
            self._peer_notes[:] = self._checked_peers(runtime, profile)
        reports = _checked_shape(runtime, specs)
        self._settle_companions(specs, reports)
        self._prepared["runtime"] = runtime
        return runtime

    def _checked_peers(self, runtime: BridgeRuntime, profile: HostProfile) -> list[str]:
        """The packages' peer ranges against ``profile`` (:mod:`pytest_dsh.npm._peers`):
        the header notes of the ranges a run was forced past."""
        from pytest_dsh.npm._peers import check_peers
        from pytest_dsh.npm.bridge.process import BridgeUnavailableError, locate_node

        try:
            node = locate_node(runtime.folder)
        except BridgeUnavailableError:
            return []  # the shape check that follows says the bridge cannot start
        return check_peers(
            runtime.folder, [name for _, name in runtime.packages], profile,
            self.npm_overrides, node=node,
        )

    def _settle_companions(
        self, specs: list[PackageSpec], reports: Mapping[str, Mapping[str, Any]]
    ) -> None:
        """Drop the companion capability of a package without ``./invariant``
        (its tests are then skipped with the reason), or refuse a declared one."""
        from pytest_dsh.npm.errors import NotADshPluginError

        for spec in specs:
            companion = f"{spec.role}-invariant"
            if reports.get(spec.role, {}).get("invariant", True) or (
                companion not in self.capabilities
            ):
                continue
            if self._declared:
                raise NotADshPluginError(
                    f"{spec.role}={spec.text} has no ./invariant export, yet the "
                    f"implementation declares {companion!r}; add the export or drop the "
                    "capability"
                )
            object.__setattr__(self, "capabilities", self.capabilities - {companion})
            self._notes.append(
                f"{spec.role} companion ./invariant: not provided, its tests skipped"
            )

    def open_host(
        self,
        *,
        start_ms: int,
        withhold: frozenset[str] = frozenset(),
        jsonl_root: str | os.PathLike[str] | None = None,
    ) -> BridgeHostDriver:
        from pytest_dsh.npm.bridge.driver import BridgeHostDriver

        return BridgeHostDriver(
            self.name,
            self.version,
            start_ms=start_ms,
            withhold=withhold,
            jsonl_root=jsonl_root,
            runtime=self.prepare(),
        )


def _checked_shape(
    runtime: BridgeRuntime, specs: list[PackageSpec]
) -> Mapping[str, Mapping[str, Any]]:
    """:func:`~pytest_dsh.npm._shape.check_packages`, with a bridge that dies
    while it imports the packages (one ends the process, or crashes Node)
    turned into one closed error naming them, never a traceback."""
    from pytest_dsh.npm._shape import check_packages
    from pytest_dsh.npm.bridge.channel import BridgeCrashedError
    from pytest_dsh.npm.errors import NpmSetupError

    try:
        return check_packages(runtime, specs)
    except BridgeCrashedError as exc:
        asked = ", ".join(f"{spec.role}={spec.text}" for spec in specs)
        raise NpmSetupError(
            f"the bridge could not start with {asked} (a package that ends the process or "
            f"crashes Node while it is imported does this): {exc}"
        ) from exc


def _installed_version(folder: Path, name: str) -> str | None:
    try:
        manifest = read_json(folder / "node_modules" / name / "package.json", MAX_MANIFEST_BYTES)
    except UnreadableFileError:
        return None
    version = manifest.get("version") if isinstance(manifest, dict) else None
    return version if isinstance(version, str) else None


def _prebuilt_runtime(specs: list[PackageSpec], profile: HostProfile) -> BridgeRuntime | None:
    """A ready bridge folder (``DSH_BRIDGE_DIR``, or ``bridge/`` of a checkout
    after ``npm ci``) that already holds every package, and every host package
    of ``profile``, at exactly the version asked for: used as is, nothing
    installed."""
    from pytest_dsh.npm.bridge.process import BridgeUnavailableError, locate_bridge

    if any(spec.local or spec.name is None or not spec.version for spec in specs):
        return None
    try:
        folder = locate_bridge()
    except BridgeUnavailableError:
        # A folder named explicitly must be right: falling back to an install
        # would hide the mistake behind a download.
        if os.environ.get("DSH_BRIDGE_DIR"):
            raise
        return None
    wanted = {str(spec.name): spec.version for spec in specs} | dict(profile.packages)
    if any(_installed_version(folder, name) != version for name, version in wanted.items()):
        return None
    packages = tuple(sorted((spec.role, str(spec.name)) for spec in specs))
    return BridgeRuntime(folder, packages, profile.version)

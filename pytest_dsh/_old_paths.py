"""The module paths of the kit's first, flat layout, kept working.

Until the kit was arranged in rooms (``docs/package-map.md``) every module sat
directly in ``pytest_dsh``. Code written then still imports
``pytest_dsh.host`` or patches ``"pytest_dsh.tools.AgentToolRegistry"``, and
the docs of that time say ``python -m pytest_dsh.version_matrix``. Each old path
here is an alias of its new module: the same module object, so imports,
``python -m``, patch targets and pickled names all reach the code that runs.

Type checkers do not follow the aliases; typed code imports the new paths
(or the names :mod:`pytest_dsh` itself exports, which never moved). Private
modules (a leading underscore) were never promised and have no alias.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Mapping, Sequence
from types import CodeType, ModuleType
from typing import Final

_REPORTING_MODULES = (
    "behaviours", "causes", "collector", "document", "first_screen", "host_limit_rows",
    "html", "markdown", "raised", "readmes", "results", "summary", "verdicts",
)

#: Old module path -> where the module lives now.
MOVED: Final[Mapping[str, str]] = {
    **{f"pytest_dsh.{name}": f"pytest_dsh.contract.{name}" for name in ("tzdb", "frozen_json")},
    **{
        f"pytest_dsh.{name}": f"pytest_dsh.driving.{name}"
        for name in ("agent_actions", "json_limits", "pending", "seams", "trace")
    },
    **{
        f"pytest_dsh.{name}": f"pytest_dsh.fake_host.{name}"
        for name in (
            "agent", "clock", "driver", "host", "jsonl_store", "model", "persistence",
            "schema_check", "session", "tools", "virtual_loop",
        )
    },
    **{
        f"pytest_dsh.{name}": f"pytest_dsh.pytest_plugin.{name}"
        for name in (
            "budget", "conformance_cli", "fixture_options", "hypothesis_scope", "parallel",
            "plugin", "probes", "reporting", "rerun_options", "roles", "suite_items",
            "version_matrix",
        )
    },
    **{
        f"pytest_dsh.reporting.{name}": f"pytest_dsh.pytest_plugin.reporting.{name}"
        for name in _REPORTING_MODULES
    },
    "pytest_dsh.npm.options": "pytest_dsh.pytest_plugin.npm_options",
}

#: Old paths that had submodules of their own.
_PACKAGES: Final = frozenset(old.rpartition(".")[0] for old in MOVED)


class _OldPathFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path and loads it as the module now at its new path."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=fullname in _PACKAGES)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(MOVED[spec.name])
        # The import system stamps the alias spec on the module it gets; keep
        # the real one to restore (the module keeps its own name and file).
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        alias = module.__spec__
        if alias is not None and isinstance(alias.loader_state, importlib.machinery.ModuleSpec):
            module.__spec__ = alias.loader_state

    def get_code(self, fullname: str) -> CodeType | None:
        """The new module's code, for ``python -m OLD.PATH``."""
        spec = importlib.util.find_spec(MOVED[fullname])
        loader = None if spec is None else spec.loader
        if not isinstance(loader, importlib.abc.InspectLoader):
            return None
        return loader.get_code(MOVED[fullname])


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once): the path finder would
    otherwise load an old submodule of a moved package a second time."""
    if not any(isinstance(finder, _OldPathFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _OldPathFinder())

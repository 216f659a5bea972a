"""One error tree: every exception class the kit defines is a ``DshKitError``
(or is named as outside the tree, with the reason), and ``pytest_dsh/errors.py``
draws all of them. Level: kit API (no README sentence)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest_dsh
from pytest_dsh import errors
from pytest_dsh.errors import DshKitError

#: Exception classes outside the tree, and why (errors.py says so too).
OUTSIDE = {
    # The plugins' vocabulary: the contract imports nothing of the kit.
    "pytest_dsh.contract",
    "pytest_dsh.contract.tzdb",
    # A BaseException, so that no ``except Exception`` swallows a runaway.
    "pytest_dsh.driving.runaway.RunawayError",
    # A skip, not an error: a ``unittest.SkipTest`` that the plugin reports as one.
    "pytest_dsh.driving.requirements.RequirementMissing",
    "pytest_dsh.driving.seams.SeamMissing",
    # Signals inside one module's machinery, caught there, never raised to a caller.
    "pytest_dsh.fake_host.schema_check.Undecided",
    "pytest_dsh.npm.bridge.channel.RequestFailedError",
    "pytest_dsh.npm.bridge.channel.ChannelBroken",
}


def _kit_exceptions() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.walk_packages(pytest_dsh.__path__, "pytest_dsh."):
        if info.name.rsplit(".", 1)[-1].startswith("_") and not info.ispkg:
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == info.name
                and not name.startswith("_")
            ):
                found.append(value)
    return found


def _outside(error: type[BaseException]) -> bool:
    return error.__module__ in OUTSIDE or f"{error.__module__}.{error.__name__}" in OUTSIDE


def test_every_kit_error_is_a_dsh_kit_error() -> None:
    stray = sorted(
        f"{error.__module__}.{error.__name__}"
        for error in _kit_exceptions()
        if not _outside(error) and not issubclass(error, DshKitError)
    )
    assert stray == []


def test_errors_py_draws_every_kit_error() -> None:
    tree = errors.__doc__ or ""
    missing = sorted(
        error.__name__
        for error in _kit_exceptions()
        if issubclass(error, DshKitError) and not re.search(rf"[─ ]{error.__name__}[\s,]", tree)
    )
    assert missing == []


def test_the_second_bases_callers_catch_are_kept() -> None:
    from pytest_dsh.fake_host.jsonl_store import SessionFileError, SessionIdError
    from pytest_dsh.fake_host.persistence import PersistenceDetachedError, PersistenceRejectedError
    from pytest_dsh.npm._files import UnreadableFileError
    from pytest_dsh.npm.bridge import BridgeCrashedError, BridgeOperationError

    assert issubclass(errors.UnknownPluginError, KeyError)
    assert issubclass(UnreadableFileError, ValueError)
    assert issubclass(SessionIdError, ValueError) and issubclass(SessionFileError, ValueError)
    for error in (
        PersistenceRejectedError, PersistenceDetachedError, BridgeCrashedError, BridgeOperationError
    ):
        assert issubclass(error, RuntimeError)

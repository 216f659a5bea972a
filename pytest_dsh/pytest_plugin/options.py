"""Every pytest option of the kit, in one table.

:data:`OPTIONS` declares each ``--dsh-*`` option once: its flag, destination,
help, default, its ini twin and whether a rerun command carries it.
:func:`pytest_addoption` registers the table; :mod:`rerun_options
<pytest_dsh.pytest_plugin.rerun_options>` reads it to leave out what a rerun
sets itself. The modules that act on an option (``budget``, ``exploration``,
``fixture_options``, ``npm_options``, ``plugin``) read it by destination with
``config.getoption``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal

import pytest

from pytest_dsh.npm.hosts import DEFAULT_HOST, HOST_PROFILES
from pytest_dsh.pytest_plugin.budget import (
    DEFAULT_GROWTH_BUDGET,
    DEFAULT_MAX_RUNAWAYS,
    DEFAULT_STEP_BUDGET,
    DEFAULT_WALL_BUDGET_S,
)

__all__ = [
    "GROUP", "NO_DEFAULT", "OPTIONS", "Ini", "Option", "configured", "not_carried",
    "pytest_addoption",
]

#: The ``--help`` section every option is listed in.
GROUP: Final = ("dsh", "DSH plugin conformance (pytest-dsh)")

#: An ini twin with no default of its own (pytest's for its type).
NO_DEFAULT: Final = object()


@dataclass(frozen=True, slots=True)
class Ini:
    """An option's ini twin (read with ``config.getini`` when the option is not given)."""

    name: str
    help: str
    type: Literal["string", "bool", "linelist"] = "string"
    default: Any = ""


@dataclass(frozen=True, slots=True)
class Option:
    """One ``--dsh-*`` option. ``carried``: a rerun command repeats it as given
    (false for what selects, writes or is set by the rerun command itself)."""

    flag: str
    dest: str
    help: str
    default: Any = None
    carried: bool = True
    action: str | None = None
    type: Callable[[str], Any] | None = None
    choices: tuple[str, ...] | None = None
    metavar: str | None = None
    ini: Ini | None = None

    def register(self, group: pytest.OptionGroup) -> None:
        extra: dict[str, Any] = {
            key: value
            for key, value in (
                ("action", self.action), ("type", self.type), ("choices", self.choices),
                ("metavar", self.metavar),
            )
            if value is not None
        }
        group.addoption(self.flag, dest=self.dest, default=self.default, help=self.help, **extra)


OPTIONS: Final[tuple[Option, ...]] = (
    # -- the implementation under test and what to run (plugin)
    Option(
        "--dsh-impl", "dsh_impl", metavar="NAME", carried=False,  # the rerun names it first
        help="implementation under test: a dsh.impl entry-point name (reference, official), "
        "npm (the packages given with --dsh-npm) or package.module:attr (ini: dsh_impl)",
        ini=Ini("dsh_impl", "default implementation under test (see --dsh-impl)"),
    ),
    Option(
        "--dsh-list-impls", "dsh_list_impls", action="store_true", default=False,
        carried=False, help="list the installed DSH implementations and exit",
    ),
    Option(
        "--dsh-level", "dsh_level", choices=("readme", "compat", "all"),
        help="requirement levels to run: readme (README sentences), compat (details the "
        "README leaves open, pinned to the official build) or all (default; ini: dsh_level)",
        ini=Ini("dsh_level", "requirement levels to run (see --dsh-level)", default="all"),
    ),
    Option(
        "--dsh-expectations", "dsh_expectations", metavar="PATH",
        help="known failures (dsh-expectations/1 JSON) added to the implementation's own "
        "(ini: dsh_expectations)",
        ini=Ini("dsh_expectations", "known-failures file (see --dsh-expectations)"),
    ),
    Option(
        "--dsh-report", "dsh_report", metavar="PATH", carried=False,  # the run's output
        help="write the conformance report: PATH.html, PATH.json or PATH.md, or a folder "
        "with all three (ini: dsh_report)",
        ini=Ini("dsh_report", "conformance report path (see --dsh-report)"),
    ),
    Option(
        "--dsh-dst-table", "dsh_dst_table", choices=("sample", "full"), default="sample",
        help="replay a deterministic sample of the DST regression tables (default) "
        "or the full table",
    ),
    # -- fixture data (fixture_options)
    Option(
        "--dsh-update-golden", "dsh_update_golden", action="store_true", default=False,
        help="regenerate golden fixture files instead of failing when they differ from their "
        "generator (local use only; CI never passes it)",
    ),
    # -- exploration: the rerun command names the seed and example count itself
    Option(
        "--dsh-explore", "dsh_explore", action="store_true", carried=False,
        help="draw a random Hypothesis seed for the suite's property tests instead of the "
        "kit's fixed one; the seed and a replay command are printed (ini: dsh_explore)",
        ini=Ini("dsh_explore", "explore with a random seed (see --dsh-explore)", type="bool",
                default=False),
    ),
    Option(
        "--dsh-explore-examples", "dsh_explore_examples", metavar="N", carried=False,
        help="run N examples in every property test of the suite instead of each test's "
        "own count (ini: dsh_explore_examples)",
        ini=Ini("dsh_explore_examples", "examples per property test (see "
                "--dsh-explore-examples)"),
    ),
    # -- the npm path (npm_options)
    Option(
        "--dsh-npm", "dsh_npm", action="append", default=[], metavar="ROLE=SPEC",
        help="with --dsh-impl=npm: a package under test, ROLE schedule or time-context, SPEC "
        "a folder, a tarball or name@version (repeat for both roles; ini: dsh_npm)",
        ini=Ini("dsh_npm", "packages for --dsh-impl=npm, one ROLE=SPEC per line",
                type="linelist", default=NO_DEFAULT),
    ),
    Option(
        "--dsh-npm-cache", "dsh_npm_cache", metavar="PATH",
        help="where npm installs are kept and reused (default $DSH_NPM_CACHE or "
        "~/.cache/pytest-dsh/npm; ini: dsh_npm_cache)",
        ini=Ini("dsh_npm_cache", "npm install cache folder (see --dsh-npm-cache)"),
    ),
    Option(
        "--dsh-npm-scripts", "dsh_npm_scripts", action="store_true",
        help="let npm run the packages' install lifecycle scripts (preinstall, install, "
        "postinstall, a folder's prepare) with this environment; off by default "
        "(ini: dsh_npm_scripts)",
        ini=Ini("dsh_npm_scripts", "let npm run lifecycle scripts (see --dsh-npm-scripts)",
                type="bool", default=False),
    ),
    Option(
        "--dsh-host", "dsh_host", metavar="VERSION",
        help=f"the DSH host the npm bridge runs on: {', '.join(HOST_PROFILES)} "
        f"(default {DEFAULT_HOST}; ini: dsh_host)",
        ini=Ini("dsh_host", "DSH host profile of the npm bridge (see --dsh-host)"),
    ),
    Option(
        "--dsh-npm-no-invariant", "dsh_npm_no_invariant", action="store_true",
        help="with --dsh-impl=npm: do not test the packages' ./invariant companions (their "
        "tests are skipped; a package without the export is detected by itself; "
        "ini: dsh_npm_no_invariant)",
        ini=Ini("dsh_npm_no_invariant",
                "do not test ./invariant companions (see --dsh-npm-no-invariant)",
                type="bool", default=False),
    ),
    # -- per-test budgets (budget)
    Option(
        "--dsh-step-budget", "dsh_step_budget", type=int, metavar="N",
        help="event-loop iterations one test phase may run on the fake host; 0 = unlimited "
        f"(default {DEFAULT_STEP_BUDGET}; ini: dsh_step_budget)",
        ini=Ini("dsh_step_budget", "default for --dsh-step-budget"),
    ),
    Option(
        "--dsh-wall-budget", "dsh_wall_budget", type=float, metavar="SECONDS",
        help="real seconds one test phase may take; 0 = unlimited "
        f"(default {DEFAULT_WALL_BUDGET_S:g}; ini: dsh_wall_budget)",
        ini=Ini("dsh_wall_budget", "default for --dsh-wall-budget"),
    ),
    Option(
        "--dsh-growth-budget", "dsh_growth_budget", type=int, metavar="N",
        help="events appended plus follow-ups queued one test phase may make, on either "
        f"host; 0 = unlimited (default {DEFAULT_GROWTH_BUDGET}; ini: dsh_growth_budget)",
        ini=Ini("dsh_growth_budget", "default for --dsh-growth-budget"),
    ),
    Option(
        "--dsh-max-runaways", "dsh_max_runaways", type=int, metavar="N",
        help="stop the run after N tests ran away (budget exhausted); the rest are not run "
        f"and the run does not conform; 0 = never stop (default {DEFAULT_MAX_RUNAWAYS}; "
        "ini: dsh_max_runaways)",
        ini=Ini("dsh_max_runaways", "default for --dsh-max-runaways"),
    ),
)


def not_carried() -> frozenset[str]:
    """Destinations of the kit's options a rerun command leaves out."""
    return frozenset(option.dest for option in OPTIONS if not option.carried)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup(*GROUP)
    for option in OPTIONS:
        option.register(group)
    for option in OPTIONS:
        ini = option.ini
        if ini is None:
            continue
        extra: dict[str, Any] = {} if ini.type == "string" else {"type": ini.type}
        if ini.default is not NO_DEFAULT:
            extra["default"] = ini.default
        parser.addini(ini.name, ini.help, **extra)


def configured(config: pytest.Config, name: str) -> str | None:
    """The option ``name`` if given, else its ini twin, else ``None``."""
    option = config.getoption(name)
    if option is not None:
        return str(option)
    ini = str(config.getini(name) or "").strip()
    return ini or None

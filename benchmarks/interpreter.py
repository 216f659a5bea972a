"""Which CPython build ran a benchmark: its figures depend on it.

The same code runs measurably faster on an interpreter whose executable
carries libpython than on one built without optimisation options that calls
a shared libpython (the figures: docs/performance.md, "The interpreter's
build"). So the benchmarks print, beside the version, how the running
interpreter was linked and which optimisation options its build recorded.
"""

from __future__ import annotations

import platform
import shlex
import sysconfig
from pathlib import Path

#: The configure options that change the interpreter's own speed.
OPTIMISATIONS = ("--enable-optimizations", "--with-lto")


def describe(version: str, maps: str | None, config_args: str, shared: bool) -> str:
    """``version``, its libpython linkage and recorded optimisation options.

    ``maps`` is the process's memory map (``/proc/self/maps``), or None where
    there is none: then the linkage is what the build's configuration says.
    """
    if maps is not None:
        # A mapped file's name ends its line; a libpython among them is shared.
        shared_library = any(line.rsplit("/", 1)[-1].startswith("libpython")
                             for line in maps.splitlines())
        linked = ("libpython as a shared library" if shared_library
                  else "libpython in the executable")
    else:
        linked = f"libpython {'shared' if shared else 'static'} by its configuration"
    recorded = [option for option in OPTIMISATIONS if _enabled(option, config_args)]
    options = (", ".join(recorded) + " recorded" if recorded
               else "neither " + " nor ".join(OPTIMISATIONS) + " recorded")
    return f"{version} ({linked}; {options})"


def _enabled(option: str, config_args: str) -> bool:
    # ``--with-lto`` also takes a value (full, thin, yes, no): ``no`` or
    # ``false`` turns the option off, any other value or none leaves it on.
    try:
        words = shlex.split(config_args)
    except ValueError:  # an unbalanced quote: read it word by word
        words = config_args.replace("'", " ").split()
    values = [word.partition("=")[2] for word in words if word.partition("=")[0] == option]
    return any(value.lower() not in ("no", "false") for value in values)


def interpreter(maps_path: Path = Path("/proc/self/maps")) -> str:
    """The running interpreter, as :func:`describe` puts it (``maps_path``:
    where the process's memory map is read)."""
    try:
        # A mapped file's path may be any bytes: never a decoding error.
        maps: str | None = maps_path.read_text(errors="surrogateescape")
    except OSError:  # not Linux: the build's configuration says
        maps = None
    return describe(
        f"{platform.python_implementation()} {platform.python_version()}",
        maps,
        str(sysconfig.get_config_var("CONFIG_ARGS") or ""),
        bool(sysconfig.get_config_var("Py_ENABLE_SHARED")),
    )

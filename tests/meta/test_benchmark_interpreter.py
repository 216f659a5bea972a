"""The benchmarks name the interpreter build that produced their figures:
its libpython linkage and the optimisation options its build recorded."""

from __future__ import annotations

import platform

_SHARED_MAPS = (
    "7f90bae00000-7f90bb100000 r-xp 00000000 08:01 42 /opt/py/lib/libpython3.11.so.1.0\n"
    "7f90bac1e000-7f90bac40000 r-xp 00000000 08:01 43 /lib/x86_64-linux-gnu/libc.so.6\n"
)
_STATIC_MAPS = "55d0c0000000-55d0c0600000 r-xp 00000000 08:01 44 /usr/bin/python3.11\n"


def test_a_shared_libpython_in_the_memory_map_is_named(interpreter):
    described = interpreter.describe("CPython 3.11.7", _SHARED_MAPS, "'--enable-shared'", True)
    assert described == (
        "CPython 3.11.7 (libpython as a shared library; "
        "neither --enable-optimizations nor --with-lto recorded)"
    )


def test_an_executable_that_carries_libpython_is_told_from_its_configuration(interpreter):
    # A distribution may record the options of its shared build while the
    # executable itself is linked statically: the memory map decides.
    described = interpreter.describe("CPython 3.11.2", _STATIC_MAPS, "'--enable-shared'", True)
    assert described.startswith("CPython 3.11.2 (libpython in the executable; ")


def test_recorded_optimisations_are_listed_quoted_or_not(interpreter):
    for args in ("'--enable-optimizations' '--with-lto'", "--enable-optimizations --with-lto"):
        described = interpreter.describe("CPython 3.13.0", _STATIC_MAPS, args, False)
        assert described.endswith("; --enable-optimizations, --with-lto recorded)")
    described = interpreter.describe("CPython 3.13.0", _STATIC_MAPS, "'--with-lto=thin'", False)
    assert described.endswith("; --with-lto recorded)")
    # Turned off, or an option that only starts like one, is not recorded.
    for args in ("--with-lto=no --enable-optimizations=no", "--with-ltofoo"):
        described = interpreter.describe("CPython 3.13.0", _STATIC_MAPS, args, False)
        assert described.endswith("; neither --enable-optimizations nor --with-lto recorded)")


def test_without_a_memory_map_the_configuration_says(interpreter):
    described = interpreter.describe("CPython 3.12.1", None, "", True)
    assert described.startswith("CPython 3.12.1 (libpython shared by its configuration; ")
    described = interpreter.describe("CPython 3.12.1", None, "", False)
    assert described.startswith("CPython 3.12.1 (libpython static by its configuration; ")


def test_the_running_interpreter_is_described(interpreter):
    described = interpreter.interpreter()
    assert described.startswith(
        f"{platform.python_implementation()} {platform.python_version()} (libpython "
    )
    assert described.endswith(" recorded)")


def test_a_memory_map_that_is_not_utf8_or_not_there_is_no_crash(interpreter, tmp_path):
    # A mapped file's path may hold any bytes.
    maps = tmp_path / "maps"
    maps.write_bytes(b"7f90bae00000-7f90bb100000 r-xp 00000000 08:01 42 "
                     b"/opt/\xff\xfe/lib/libpython3.11.so.1.0\n")
    assert "(libpython as a shared library; " in interpreter.interpreter(maps)
    assert " by its configuration; " in interpreter.interpreter(tmp_path / "absent")

"""Hypothesis strategies for implementers of the DSH plugins.

The conformance suite draws from these; they are public so that an
implementation's own tests can reuse them::

    from hypothesis import given
    from pytest_dsh.strategies.schedule import invalid_create_arguments

    @given(invalid_create_arguments())
    def test_my_validator(case): ...

* :mod:`pytest_dsh.strategies.schedule`: ``schedule_create`` arguments (valid
  and invalid, each with its expected result), offset and malformed ``at``
  strings, local at-selectors near DST transitions of the pinned tzdata, valid
  and corrupt ``schedule/change`` event logs.
* :mod:`pytest_dsh.strategies.time_context`: instants, zone keys, refresh
  intervals and configs (valid and invalid).
"""

from __future__ import annotations

from pytest_dsh.strategies import schedule, time_context

__all__ = ["schedule", "time_context"]

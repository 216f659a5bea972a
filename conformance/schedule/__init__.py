"""Conformance suite for dsh-schedule, one folder per section of its README.

``overview/``, ``composition/``, ``durable_state/``, ``absolute_time_input/``,
``management_tools/``, ``delivery_lifecycle/``, ``model_experience/``,
``known_limitations/`` (``dsh_conformance.sections``); ``conftest.py``,
``session_logs.py``, ``written_logs.py`` and ``tool_values.py`` hold what they
share.

Run it with ``pytest --pyargs dsh_conformance.schedule --dsh-impl=NAME``.
:mod:`pytest_dsh.strategies.schedule` exports Hypothesis strategies that
implementers can reuse in their own tests.
"""

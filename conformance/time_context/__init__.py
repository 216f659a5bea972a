"""Conformance suite for dsh-time-context, one folder per section of its README.

``overview/``, ``configuration/``, ``timing_semantics/``, ``model_experience/``,
``known_limitations/`` (``dsh_conformance.sections``); ``readings.py`` holds
the reading helpers they share.

Run it with ``pytest --pyargs dsh_conformance.time_context --dsh-impl=NAME``.
:mod:`pytest_dsh.strategies.time_context` exports Hypothesis strategies
that implementers can reuse in their own tests.
"""

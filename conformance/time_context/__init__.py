"""Conformance suite for dsh-time-context, organised by the sections of its README.

Run it with ``pytest --pyargs dsh_conformance.time_context --dsh-impl=NAME``.
:mod:`pytest_dsh.strategies.time_context` exports Hypothesis strategies
that implementers can reuse in their own tests.
"""

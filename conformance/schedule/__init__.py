"""Conformance suite for dsh-schedule, organised by the sections of its README.

Run it with ``pytest --pyargs dsh_conformance.schedule --dsh-impl=NAME``.
:mod:`pytest_dsh.strategies.schedule` exports Hypothesis strategies that
implementers can reuse in their own tests.
"""

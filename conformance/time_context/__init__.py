"""Conformance suite for dsh-time-context, organised by the sections of its README.

Run it with ``pytest --pyargs dsh_conformance.time_context --dsh-impl=NAME``.
:mod:`dsh_conformance.time_context.strategies` exports Hypothesis strategies
that implementers can reuse in their own tests.
"""

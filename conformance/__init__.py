"""The DSH plugin conformance suite.

Run it with ``pytest --pyargs dsh_conformance --dsh-impl=NAME``.
"""

"""The DSH plugin conformance suite (run with ``pytest --pyargs dsh_conformance --dsh-impl=NAME``)."""

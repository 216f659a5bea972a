"""The spec every other package cites: the two plugin READMEs, vendored.

``sentences`` gives every README sentence a stable id (``SCH-012``,
``TC-003``) and its English text; ``pins`` reads the details the READMEs leave
open, pinned to the official build (``pinned_details.json``, PIN-IDs);
``versions`` says which release of each README is vendored here.

The kit, the suite, the fixtures and the reference all import this package;
it imports the standard library only, so citing the spec never loads pytest,
a host or the suite.

PYTEST_DONT_REWRITE: it holds no assertions, and ``dsh-conformance`` reads it
before pytest starts, so pytest must not try to rewrite it.
"""

"""The pytest side: the plugin that runs the conformance suite on an
implementation and tells its author what it found.

* :mod:`~pytest_dsh.pytest_plugin.plugin`: the ``pytest11`` entry point: options,
  fixtures, the implementation under test;
* :mod:`~pytest_dsh.pytest_plugin.options`: every ``--dsh-*`` option, in one table;
  :mod:`~pytest_dsh.pytest_plugin.fixture_options`,
  :mod:`~pytest_dsh.pytest_plugin.npm_options`: what some of them do;
  :mod:`~pytest_dsh.pytest_plugin.rerun_options`: how a rerun repeats them;
* :mod:`~pytest_dsh.pytest_plugin.suite_items`, :mod:`~pytest_dsh.pytest_plugin.roles`,
  :mod:`~pytest_dsh.pytest_plugin.probes`: which tests apply, and how each is named;
* :mod:`~pytest_dsh.pytest_plugin.hypothesis_scope`: property tests' settings;
* :mod:`~pytest_dsh.pytest_plugin.budget`: per-test budgets and runaway stops;
* :mod:`~pytest_dsh.pytest_plugin.parallel`: runs split over pytest-xdist workers;
* :mod:`~pytest_dsh.pytest_plugin.reporting`: verdicts, causes and reports;
* :mod:`~pytest_dsh.pytest_plugin.conformance_cli`: the ``dsh-conformance`` command.

Importing this package imports nothing else: a plugin module is loaded by pytest.
"""

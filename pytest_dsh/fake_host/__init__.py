"""The fake host: a deterministic, in-process DSH host for Python plugins.

* :mod:`~pytest_dsh.fake_host.host`: :class:`FakeHost`, agents' lifecycle,
  crash and resume;
* :mod:`~pytest_dsh.fake_host.agent`: one agent, its turns, steps and follow-ups;
* :mod:`~pytest_dsh.fake_host.session`: the session event log and derived history;
* :mod:`~pytest_dsh.fake_host.tools`, :mod:`~pytest_dsh.fake_host.schema_check`:
  tool registration, argument validation and execution;
* :mod:`~pytest_dsh.fake_host.model`: the scripted model;
* :mod:`~pytest_dsh.fake_host.persistence`, :mod:`~pytest_dsh.fake_host.jsonl_store`:
  durable storage in memory or as DSH session files;
* :mod:`~pytest_dsh.fake_host.clock`, :mod:`~pytest_dsh.fake_host.virtual_loop`:
  the virtual clocks and the event loop that runs on them;
* :mod:`~pytest_dsh.fake_host.driver`: the driver API over all of it.

It implements :mod:`pytest_dsh.contract` for plugins and :mod:`pytest_dsh.driving`
for tests; it knows nothing of pytest, npm or the bridge.
"""

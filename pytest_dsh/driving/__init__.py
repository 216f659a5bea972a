"""The driver API: what a conformance test talks to, whichever host runs the
implementation, and the vocabulary both hosts share.

* :mod:`~pytest_dsh.driving.api`: the :class:`HostDriver` and :class:`AgentDriver`
  protocols, pre-step watchers, envelope and action-point checks;
* :mod:`~pytest_dsh.driving.faults`: the fault plan and the record of each flush;
* :mod:`~pytest_dsh.driving.replies`: a scripted model's replies;
* :mod:`~pytest_dsh.driving.tool_outcomes`: what a host answers for a tool call;
* :mod:`~pytest_dsh.driving.pending`: operations a test starts and finishes later,
  and the per-agent counters;
* :mod:`~pytest_dsh.driving.agent_actions`: host actions a test runs at a chosen point;
* :mod:`~pytest_dsh.driving.requirements`: what a test may need that an implementation,
  a host or a host profile may lack (capabilities, seams, host behaviours), in one registry;
* :mod:`~pytest_dsh.driving.seams`: the seams a host may lack, and how a test asks for one;
* :mod:`~pytest_dsh.driving.trace`: the host trace a failing test prints;
* :mod:`~pytest_dsh.driving.json_limits`: the JSON values a host accepts as arguments;
* :mod:`~pytest_dsh.driving.jsonl_root`: one writer per JSONL root, on either host;
* :mod:`~pytest_dsh.driving.runaway`: the per-test budget and the runaway error.

Two hosts implement it: the in-process fake host (:mod:`pytest_dsh.fake_host`)
and the Node bridge (:mod:`pytest_dsh.npm.bridge`). Nothing here imports either,
nor pytest: a helper that stops a test raises
:class:`~pytest_dsh.driving.requirements.RequirementMissing`, which the pytest
plugin reports as a skip.
"""

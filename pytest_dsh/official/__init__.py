"""The official npm build of the DSH plugins, driven through a Node bridge.

``--dsh-impl=official`` (or ``pytest_dsh.official:IMPLEMENTATION``) runs the
conformance suite against ``@deepseek-ai/dsh-schedule@0.1.0-rc.8`` and the
two-line ``@deepseek-ai/dsh-time-context@0.0.1-rc.1`` inside the real DSH host
services. It is one :class:`~pytest_dsh.npm.NodeImplementation`: the bridge
(``bridge/`` in a checkout, ``pytest_dsh/_bridge`` in the wheel) runs from
``bridge/`` after ``npm ci --prefix bridge`` (or from ``DSH_BRIDGE_DIR``), else
from the kit's npm cache, installed on first use.

The bridge names (``BridgeHostDriver``, ``locate_node``, ...) belong to
:mod:`pytest_dsh.npm.bridge`.
"""

from __future__ import annotations

from pytest_dsh.official._domain import OfficialDomain, Thrown, official_domain
from pytest_dsh.official._implementation import (
    IMPLEMENTATION,
    OFFICIAL_PACKAGE_NAMES,
    OFFICIAL_PACKAGES,
    OFFICIAL_SCHEDULE_VERSION,
    OFFICIAL_TIME_CONTEXT_VERSION,
    load_expectations,
)

__all__ = [
    "IMPLEMENTATION",
    "OFFICIAL_PACKAGES",
    "OFFICIAL_PACKAGE_NAMES",
    "OFFICIAL_SCHEDULE_VERSION",
    "OFFICIAL_TIME_CONTEXT_VERSION",
    "OfficialDomain",
    "Thrown",
    "load_expectations",
    "official_domain",
]

"""README section "Configuration": behaviours mutation runs of the reference showed the
suite did not yet pin.
"""

from __future__ import annotations

import pytest

from dsh_conformance.expect import pinned, readme
from pytest_dsh import PluginLoadError


# A timeZone that is not a string is no IANA identifier: the load fails (TC-011).
@pytest.mark.dsh_requires("time-context")
@pytest.mark.spec("TC-011")
def test_a_list_given_as_time_zone_fails_the_load(dsh_host):
    try:
        dsh_host.load_plugin("time-context", {"timeZone": ["Not/A_Real_Zone"]})
    except PluginLoadError:
        return
    pytest.fail(readme("TC-011", "a timeZone that is not an IANA identifier string (a list) to "
                       "fail the plugin load; it loaded"))


# Its diagnostic names the key, not whatever error the zone lookup happens to
# raise. (The wording differs: the official host refuses it by the config
# schema first.)
@pytest.mark.dsh_requires("time-context")
@pytest.mark.compat("TC-LOAD-MESSAGES")
@pytest.mark.spec("TC-011")
def test_a_list_given_as_time_zone_fails_the_load_naming_the_key(dsh_host):
    with pytest.raises(PluginLoadError) as caught:
        dsh_host.load_plugin("time-context", {"timeZone": ["Not/A_Real_Zone"]})
    assert "timeZone" in caught.value.message, pinned(
        "TC-LOAD-MESSAGES", "a timeZone that is not a string to fail the load with a "
        "diagnostic naming the timeZone key", caught.value.message)

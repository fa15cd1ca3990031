"""
The pytest plugin users enable for their DAG tests (``messaging_platform_emulator.pytest_plugin``), run as a user
runs it: a pytest session of its own (``pytester``, in this process) whose conftest.py has only the plugin line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from messaging_platform_emulator.pytest_plugin import CONN_ENV, using_emulator
from messaging_platform_emulator.server import EmulatorServer
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

USERS_CONFTEST = 'pytest_plugins = ["messaging_platform_emulator.pytest_plugin"]\n'

# Four tests in one session, in this order: the first leaves a campaign, a fault, a frozen clock and a request
# record behind; the second finds none of it on the same server; the third, without the fixture, finds no
# connection; the fourth fails, after which the session must still stop the server.
USERS_TESTS = """
import json
import os

import httpx

CONN_ENV = "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT"
URLS = []


def campaigns(conn):
    extra = conn["extra"]
    url = f"{extra['base_url']}/account/{extra['account_id']}/campaign"
    return url, (conn["login"], conn["password"])


def test_the_connection_points_at_the_emulator_and_the_test_leaves_state_behind(messaging_platform):
    URLS.append(messaging_platform.url)
    conn = json.loads(os.environ[CONN_ENV])
    assert conn["conn_type"] == "messaging_platform"
    assert conn["extra"] == {"base_url": messaging_platform.base_url, "account_id": messaging_platform.seed.account_id}
    assert messaging_platform.base_url.startswith(messaging_platform.url + "/")
    url, auth = campaigns(conn)
    assert httpx.get(url, auth=auth, trust_env=False).status_code == 204  # the seed has no campaign
    created = httpx.post(url, json={"Name": "Left behind", "CampaignTypeId": 1}, auth=auth, trust_env=False)
    assert created.status_code == 201
    messaging_platform.control.add_fault("status", status=500, count=5)
    messaging_platform.control.set_clock(scale=0)


def test_the_next_test_finds_the_seed_again_on_the_same_server(messaging_platform):
    assert URLS == [messaging_platform.url]
    assert messaging_platform.control.faults() == []
    assert messaging_platform.control.requests() == []
    assert messaging_platform.control.clock()["scale"] == 1
    url, auth = campaigns(json.loads(os.environ[CONN_ENV]))
    assert httpx.get(url, auth=auth, trust_env=False).status_code == 204  # no fault, no campaign


def test_without_the_fixture_there_is_no_connection():
    assert CONN_ENV not in os.environ


def test_a_failing_test(messaging_platform):
    assert False, "fails on purpose"
"""


class ServerSpy:
    """A plugin for the inner session that keeps the emulator servers its fixture starts."""

    def __init__(self) -> None:
        self.servers: list[EmulatorServer] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest) -> Any:
        value = yield
        if fixturedef.argname == "messaging_platform_server":
            self.servers.append(value)
        return value


def test_each_test_gets_the_seed_and_the_connection_and_the_server_stops_after_a_failure(pytester, monkeypatch):
    monkeypatch.delenv(CONN_ENV, raising=False)
    pytester.makeconftest(USERS_CONFTEST)
    pytester.makepyfile(test_users_dag=USERS_TESTS)
    spy = ServerSpy()

    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:randomly", plugins=[spy])

    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*fails on purpose*"])
    assert len(spy.servers) == 1  # one emulator for the session
    assert not spy.servers[0].running  # stopped at the end of the session, although a test failed
    assert CONN_ENV not in os.environ


def test_using_emulator_points_the_connection_at_a_reset_server_until_the_block_ends(
    messaging_platform_server, monkeypatch
):
    monkeypatch.setenv(CONN_ENV, "messaging-platform://before")
    messaging_platform_server.control.add_fault("status", status=500)
    with using_emulator(messaging_platform_server) as platform:
        assert json.loads(os.environ[CONN_ENV])["extra"]["base_url"] == platform.base_url
        assert platform.control.faults() == []
    assert os.environ[CONN_ENV] == "messaging-platform://before"


def test_connection_json_takes_overrides_and_merges_extras(messaging_platform):
    seed = messaging_platform.seed
    conn = json.loads(messaging_platform.connection_json(password="wrong", extra={"read_timeout": 5}))
    assert conn == {
        "conn_type": "messaging_platform",
        "login": seed.api_key,
        "password": "wrong",
        "extra": {"base_url": messaging_platform.base_url, "account_id": seed.account_id, "read_timeout": 5},
    }
    assert json.loads(os.environ[CONN_ENV])["password"] == seed.api_secret  # the fixture's connection is unchanged


def test_the_emulator_package_does_not_import_pytest():
    """pytest is a test dependency: only a conftest.py imports the plugin module."""
    code = "import sys, messaging_platform_emulator, messaging_platform_emulator.cli; print('pytest' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "False"


def test_a_hook_in_a_test_reaches_the_emulator_without_a_metadata_database(messaging_platform):
    """The hook example of docs/testing-your-dags.md: no DAG run, so no metadata database."""
    hook = MessagingPlatformHook()  # messaging_platform_default: the emulator
    created = hook.create_campaign("Spring launch", "Coupon")
    assert [campaign["Id"] for campaign in hook.list_campaigns()] == [created["Id"]]

"""
The pytest plugin users enable for their DAG tests (``messaging_platform_emulator.pytest_plugin``), run as a user
runs it: a pytest session of its own (``pytester``, in this process) whose conftest.py has only the plugin line.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from messaging_platform_emulator import pytest_plugin
from messaging_platform_emulator.pytest_plugin import CONN_ENV, using_emulator
from messaging_platform_emulator.server import EmulatorServer
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from tests.support.paths import REPO

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
    assert conn["conn_type"] == "messagingplatform"
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
    monkeypatch.setenv(CONN_ENV, "messagingplatform://before")
    messaging_platform_server.control.add_fault("status", status=500)
    with using_emulator(messaging_platform_server) as platform:
        assert json.loads(os.environ[CONN_ENV])["extra"]["base_url"] == platform.base_url
        assert platform.control.faults() == []
    assert os.environ[CONN_ENV] == "messagingplatform://before"


def test_connection_json_takes_overrides_and_merges_extras(messaging_platform):
    seed = messaging_platform.seed
    conn = json.loads(messaging_platform.connection_json(password="wrong", extra={"read_timeout": 5}))
    assert conn == {
        "conn_type": "messagingplatform",
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


# -- violations: the fixture's list, and a setting that fails the tests that caused them ------------------------

# The first test sends the .NET client library's "Url"; the second does too and then resets the emulator; the third
# is marked as sending it on purpose; the fourth sends "URL", as the API reference spells it.
VIOLATING_TESTS = """
import httpx
import pytest


def post_callback(platform, url_name):
    seed = platform.seed
    return httpx.post(
        f"{platform.base_url}/account/{seed.account_id}/callback",
        json={"CallbackType": 1, url_name: "https://example.com/hook", "Active": True},
        auth=(seed.api_key, seed.api_secret),
        trust_env=False,
    )


def test_sends_url_as_the_dotnet_library_does(messaging_platform):
    assert post_callback(messaging_platform, "Url").status_code == 201
    [violation] = messaging_platform.violations
    assert (violation["property"], violation["rule"]) == ("URL", "property-case")


def test_a_reset_does_not_hide_them(messaging_platform):
    assert post_callback(messaging_platform, "Url").status_code == 201
    messaging_platform.control.reset()
    assert messaging_platform.violations == []


@pytest.mark.messaging_platform_allow_violations("checks the emulator reads Url")
def test_sends_url_on_purpose(messaging_platform):
    assert post_callback(messaging_platform, "Url").status_code == 201


def test_sends_what_the_reference_says(messaging_platform):
    assert post_callback(messaging_platform, "URL").status_code == 201
    assert messaging_platform.violations == []
"""


def run_users_session(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makeconftest(USERS_CONFTEST)
    pytester.makepyfile(test_users_dag=VIOLATING_TESTS)
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:randomly", *args)


def test_violations_fail_the_tests_that_caused_them_when_the_ini_says_so(pytester, monkeypatch):
    monkeypatch.delenv(CONN_ENV, raising=False)
    pytester.makeini("[pytest]\nmessaging_platform_fail_on_violations = true\n")
    result = run_users_session(pytester)
    result.assert_outcomes(passed=4, errors=2)  # the calls passed; the teardowns of the first two failed
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_sends_url_as_the_dotnet_library_does*",
            "*recorded 1 departure(s) from the API reference*",
            "*POST /api/v2.1/account/1001/callback (answered 201): URL: property-case: sent as 'Url'*",
            "*@pytest.mark.messaging_platform_allow_violations*",
            "*ERROR at teardown of test_a_reset_does_not_hide_them*",
        ]
    )
    assert "test_sends_url_on_purpose" not in result.stdout.str().split("short test summary info")[-1]


def test_the_command_line_option_turns_it_on_too_and_it_is_off_by_default(pytester, monkeypatch):
    monkeypatch.delenv(CONN_ENV, raising=False)
    run_users_session(pytester, "--messaging-platform-fail-on-violations").assert_outcomes(passed=4, errors=2)
    run_users_session(pytester).assert_outcomes(passed=4)


def test_the_strict_setting_starts_a_strict_emulator(pytester, monkeypatch):
    monkeypatch.delenv(CONN_ENV, raising=False)
    pytester.makeini("[pytest]\nmessaging_platform_strict = true\n")
    pytester.makeconftest(USERS_CONFTEST)
    pytester.makepyfile(
        test_strict=VIOLATING_TESTS.split("def test_sends_url_as")[0]
        + """
def test_url_is_refused(messaging_platform):
    assert messaging_platform.server.strict
    refused = post_callback(messaging_platform, "Url")
    assert (refused.status_code, refused.json()[0]["PropertyName"]) == (400, "URL")
    assert post_callback(messaging_platform, "URL").status_code == 201
"""
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    assert run_users_session(pytester, "--messaging-platform-strict").parseoutcomes()["failed"] == 3


def test_this_projects_tests_fail_on_violations(pytestconfig):
    assert pytestconfig.getini("messaging_platform_fail_on_violations") is True


def plugin_fixtures() -> dict[str, str]:
    """The fixtures the plugin module defines, with their scopes ("test" for a function-scoped one)."""
    found = {}
    for node in ast.parse(Path(pytest_plugin.__file__).read_text()).body:
        for decorator in node.decorator_list if isinstance(node, ast.FunctionDef) else []:
            call = decorator if isinstance(decorator, ast.Call) else None
            if ast.unparse(call.func if call else decorator) == "pytest.fixture":
                scopes = [k.value for k in (call.keywords if call else []) if k.arg == "scope"]
                scope = ast.literal_eval(scopes[0]) if scopes else "function"
                found[node.name] = "test" if scope == "function" else scope
    return found


def test_the_docs_table_lists_every_fixture_of_the_plugin_with_its_scope():
    page = (REPO / "docs" / "testing-your-dags.md").read_text()
    section = page.split("## The fixtures", 1)[1].split("\n## ", 1)[0]
    table = dict(re.findall(r"^\| `(\w+)` \| (\w+) \|", section, re.MULTILINE))
    assert {"messaging_platform", "airflow_api_server"} <= set(plugin_fixtures())  # the module was read
    assert table == plugin_fixtures()

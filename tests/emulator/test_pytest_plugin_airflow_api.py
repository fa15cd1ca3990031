"""
The pytest plugin's Airflow API server fixtures (``airflow_api_server``, ``airflow_api``), run as a user runs them: a
pytest session of its own, in a process of its own (an inner session in this process would import Airflow's models
again after pytester drops them, and break this worker's later tests), whose conftest.py has the plugin line, on
this session's AIRFLOW_HOME and its migrated metadata database (``airflow_db``, the user's ``airflow db migrate``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from messaging_platform_emulator.airflow_api import AIRFLOW_API_CONN_ENV, FERNET_KEY_ENV, AirflowApiCallError

PROBE_ENV = "MESSAGING_PLATFORM_PLUGIN_PROBE"
# The plugin line, and what the outer test reads afterwards: the server's process group, and the environment at the
# very end of the session (after its fixtures were torn down).
USERS_CONFTEST = f"""
import json, os

pytest_plugins = ["messaging_platform_emulator.pytest_plugin"]
FERNET_BEFORE = os.environ.get("{FERNET_KEY_ENV}")


def pytest_sessionfinish(session):
    with open(os.environ["{PROBE_ENV}"] + ".end", "w") as out:
        restored = os.environ.get("{FERNET_KEY_ENV}") == FERNET_BEFORE
        json.dump({{"conn_env": "{AIRFLOW_API_CONN_ENV}" in os.environ, "fernet_restored": restored}}, out)
"""

# Three tests in one session: the first puts a connection twice (created, then its fields replaced) and reads its
# password back from the metadata database in this process, which only a shared Fernet key allows; the second, without
# the fixture, finds no airflow_api_default; the third fails, after which the session must still stop the server.
USERS_TESTS = """
import json
import os

import requests

CONN_ENV = "AIRFLOW_CONN_AIRFLOW_API_DEFAULT"


def stored(conn_id):
    from airflow.models import Connection
    from airflow.utils.session import create_session
    from sqlalchemy import select

    with create_session() as session:
        conn = session.scalar(select(Connection).where(Connection.conn_id == conn_id))
        return conn.conn_type, conn.login, conn.password


def test_the_connection_points_at_the_server_and_connections_go_into_the_database(airflow_api, airflow_api_server):
    assert airflow_api is airflow_api_server
    with open(os.environ["MESSAGING_PLATFORM_PLUGIN_PROBE"], "w") as out:
        out.write(str(airflow_api_server.proc.pid))
    assert os.environ[CONN_ENV] == airflow_api.url and airflow_api.url.startswith("http://127.0.0.1:")
    assert requests.get(airflow_api.url + "/api/v2/monitor/health", timeout=10).ok
    airflow_api.put_connection("plugin_probe", "generic", login="first", password="pr0be-s3cret", extra={"a": 1})
    assert stored("plugin_probe") == ("generic", "first", "pr0be-s3cret")
    airflow_api.put_connection("plugin_probe", "http", login="second")  # it exists (409): the fields given replaced
    assert stored("plugin_probe") == ("http", "second", "pr0be-s3cret")
    shown = airflow_api.get_connection("plugin_probe")
    assert (shown["login"], json.loads(shown["extra"])) == ("second", {"a": 1})


def test_without_the_fixture_there_is_no_connection():
    assert CONN_ENV not in os.environ


def test_a_failing_test(airflow_api):
    assert False, "fails on purpose"
"""


@pytest.mark.slow
def test_the_api_server_fixture_gives_airflow_api_default_and_stops_after_a_failure(
    airflow_db, pytester, monkeypatch, tmp_path
):
    monkeypatch.delenv(AIRFLOW_API_CONN_ENV, raising=False)
    probe = tmp_path / "probe"
    monkeypatch.setenv(PROBE_ENV, str(probe))
    pytester.makeconftest(USERS_CONFTEST)
    pytester.makepyfile(test_users_rotation=USERS_TESTS)

    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly", timeout=300)

    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*fails on purpose*"])
    pid = int(probe.read_text())  # one server for the session, stopped after a failure, its workers too
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)
    end = json.loads(Path(f"{probe}.end").read_text())
    assert end == {"conn_env": False, "fernet_restored": True}  # the connection and the shared key put back


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_a_refused_connection_names_the_status_and_never_the_password(airflow_api):
    """FastAPI's validation errors repeat the request body: only their messages are kept."""
    with pytest.raises(AirflowApiCallError) as caught:
        airflow_api.put_connection("refused_probe", "generic", port="no port", password="p4ss-put-probe")
    assert caught.value.status == 422 and "port" in str(caught.value)
    assert "p4ss-put-probe" not in str(caught.value)

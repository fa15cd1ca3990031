"""The printed connection URI round-trips through Airflow's Connection."""

from __future__ import annotations

from messaging_platform_emulator import connection_uri
from tests.support.airflow_versions import CORE_CONNECTION_URI_EXTRA_IS_JSON, connection_from_uri


def test_server_uri_round_trips(emulator_server):
    conn = connection_from_uri(emulator_server.connection_uri(), conn_id="messaging_platform_default")
    assert (conn.conn_type, conn.login, conn.password) == (
        "messaging_platform",
        emulator_server.seed.api_key,
        emulator_server.seed.api_secret,
    )
    assert conn.extra_dejson["base_url"] == emulator_server.base_url
    assert int(conn.extra_dejson["account_id"]) == emulator_server.seed.account_id


def test_awkward_credentials_are_quoted():
    key, secret = "k/+:@ y", "s%3A:/@?#&="
    uri = connection_uri("http://127.0.0.1:8080/api/v2.1", key, secret, 1001)
    conn = connection_from_uri(uri, conn_id="x")
    assert (conn.conn_type, conn.login, conn.password) == ("messaging_platform", key, secret)
    assert conn.extra_dejson == {"base_url": "http://127.0.0.1:8080/api/v2.1", "account_id": "1001"}


def test_hidden_secret(emulator_server):
    uri = emulator_server.connection_uri(hide_secret=True)
    assert emulator_server.seed.api_secret not in uri and ":***@" in uri


def test_uri_works_with_the_core_connection_model(emulator_server):
    from airflow.models import Connection  # a hard dependency: a broken import fails the test

    conn = Connection(conn_id="messaging_platform_default", uri=emulator_server.connection_uri())
    assert (conn.conn_type, conn.login, conn.password) == (
        "messaging_platform",
        emulator_server.seed.api_key,
        emulator_server.seed.api_secret,
    )
    account_id = (
        emulator_server.seed.account_id if CORE_CONNECTION_URI_EXTRA_IS_JSON else str(emulator_server.seed.account_id)
    )
    assert conn.extra_dejson == {"base_url": emulator_server.base_url, "account_id": account_id}

"""The printed connection URI round-trips through Airflow's Connection, its account id a number."""

from __future__ import annotations

import pytest

from messaging_platform_emulator import connection_uri
from messaging_platform_emulator.connection import uri_extras
from tests.support.airflow_versions import connection_from_uri


def test_server_uri_round_trips(emulator_server):
    conn = connection_from_uri(emulator_server.connection_uri(), conn_id="messaging_platform_default")
    assert (conn.conn_type, conn.login, conn.password) == (
        "messagingplatform",
        emulator_server.seed.api_key,
        emulator_server.seed.api_secret,
    )
    # The extras travel as one JSON object: the account id stays a number (a text one makes the masker warn).
    assert conn.extra_dejson == {"base_url": emulator_server.base_url, "account_id": emulator_server.seed.account_id}


def test_awkward_credentials_are_quoted():
    key, secret = "k/+:@ y", "s%3A:/@?#&="
    uri = connection_uri("http://127.0.0.1:8080/api/v2.1", key, secret, 1001)
    conn = connection_from_uri(uri, conn_id="x")
    assert (conn.conn_type, conn.login, conn.password) == ("messagingplatform", key, secret)
    assert conn.extra_dejson == {"base_url": "http://127.0.0.1:8080/api/v2.1", "account_id": 1001}


def test_hidden_secret(emulator_server):
    uri = emulator_server.connection_uri(hide_secret=True)
    assert emulator_server.seed.api_secret not in uri and ":***@" in uri


def test_uri_works_with_the_core_connection_model(emulator_server):
    from airflow.models import Connection  # a hard dependency: a broken import fails the test

    conn = Connection(conn_id="messaging_platform_default", uri=emulator_server.connection_uri())
    assert (conn.conn_type, conn.login, conn.password) == (
        "messagingplatform",
        emulator_server.seed.api_key,
        emulator_server.seed.api_secret,
    )
    assert conn.extra_dejson == {"base_url": emulator_server.base_url, "account_id": emulator_server.seed.account_id}


@pytest.mark.parametrize(
    "uri",
    [
        connection_uri("http://127.0.0.1:8080/api/v2.1", "k", "s", 1001),
        "messagingplatform://k:s@/?base_url=http%3A%2F%2F127.0.0.1%3A8080%2Fapi%2Fv2.1&account_id=1001",
    ],
    ids=["__extra__", "query values"],
)
def test_uri_extras_reads_either_form_as_airflow_does(uri):
    extras = uri_extras(uri)
    assert extras == connection_from_uri(uri, conn_id="x").extra_dejson
    assert extras["base_url"] == "http://127.0.0.1:8080/api/v2.1" and int(extras["account_id"]) == 1001


def test_uri_extras_refuses_an_extra_that_is_not_an_object():
    with pytest.raises(ValueError, match="__extra__ is not a JSON object"):
        uri_extras("messagingplatform://k:s@/?__extra__=%5B1%5D")

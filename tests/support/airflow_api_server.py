"""
Pytest fixtures around a real Airflow API server on loopback (the launcher is ``tests.support.airflow_api_harness``),
registered for every test by ``tests/conftest.py``. There is one server per session (per xdist worker): the tests
that use it are marked ``xdist_group("airflow_api_server")``, so that ``--dist loadgroup`` runs them all on one
worker and starts one server. The server mounts the callback receiver through our plugin, with a token and a SQLite
store of its own (``callbacks_database_url``), as a deployment configures it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from messaging_platform_provider.callbacks.settings import DATABASE_URL_ENV, TOKENS_ENV
from messaging_platform_provider.client.client import MessagingPlatformClient
from tests.support.airflow_api_harness import (
    AIRFLOW_API_CONN_ID,
    AirflowApiServer,
    prepare_rotated_connection,
    restore_fernet_key,
    share_fernet_key,
)
from tests.support.callback_helpers import BOUND_TOKEN


def callbacks_database_url(server: AirflowApiServer) -> str:
    """The store of the callbacks that the server's receiver (mounted by our plugin) accepts."""
    return f"sqlite:///{server.home / 'callbacks.db'}"


@pytest.fixture(scope="session")
def airflow_api_server(airflow_db: None) -> Iterator[AirflowApiServer]:
    """
    One API server per session, on the test AIRFLOW_HOME (migrated by ``airflow_db``) and its database; its
    callback receiver accepts ``BOUND_TOKEN``.
    """
    previous = share_fernet_key()
    server = AirflowApiServer(os.environ["AIRFLOW_HOME"])
    server.env.update({TOKENS_ENV: BOUND_TOKEN, DATABASE_URL_ENV: callbacks_database_url(server)})
    try:
        yield server.start()  # a start that fails stops its server before raising
    finally:
        server.stop()
        restore_fernet_key(previous)


@pytest.fixture
def airflow_api(airflow_api_server: AirflowApiServer, monkeypatch: pytest.MonkeyPatch) -> AirflowApiServer:
    """The server, with ``airflow_api_default`` pointing at it for tasks run by the test."""
    monkeypatch.setenv(f"AIRFLOW_CONN_{AIRFLOW_API_CONN_ID.upper()}", airflow_api_server.connection_uri)
    return airflow_api_server


@pytest.fixture
def rotation_example_connections(platform: Any, airflow_api: AirflowApiServer) -> dict[str, Any]:
    """
    What the rotation example DAG needs besides the emulator: ``airflow_api_default`` (set by ``airflow_api``)
    and the database connection ``messaging_platform_rotated`` holding a fresh key. Returns that key's id/label.
    """
    with MessagingPlatformClient(
        platform.base_url, platform.seed.api_key, platform.seed.api_secret, account_id=platform.seed.account_id
    ) as manager:
        return prepare_rotated_connection(airflow_api.api(), manager)

"""
The suite's Airflow API server fixtures, registered for every test by ``tests/conftest.py`` after the emulator's
pytest plugin, whose ``airflow_api_server`` the one here overrides (the later plugin's fixture of a name wins): the
suite's server is the plugin's launcher (``messaging_platform_emulator.airflow_api``), started the same way
(``serving_airflow_api``: the test process's Fernet key shared), with three additions. It waits for the suite's
migrated metadata database (``airflow_db``); it is the harness's ``AirflowApiServer``, whose ``api()`` is the
provider's REST client; and it mounts the callback receiver through our plugin, with a token and a SQLite store of
its own (``callbacks_database_url``), as a deployment configures it. The plugin's ``airflow_api`` (the server, with
``airflow_api_default`` pointing at it for the test) then gives this server.

There is one server per session (per xdist worker): the tests that use it are marked
``xdist_group("airflow_api_server")``, so that ``--dist loadgroup`` runs them all on one worker and starts one
server.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from messaging_platform_emulator.airflow_api import AirflowApiServer as Launcher, serving_airflow_api
from messaging_platform_provider.callbacks.settings import DATABASE_URL_ENV, TOKENS_ENV
from messaging_platform_provider.client.client import MessagingPlatformClient
from tests.support.airflow_api_harness import AirflowApiServer, prepare_rotated_connection
from tests.support.callback_helpers import BOUND_TOKEN
from tests.support.running_airflow_api import RUNNING_HOME_ENV, RUNNING_URL_ENV


def callbacks_database_url(server: Launcher) -> str:
    """The store of the callbacks that the server's receiver (mounted by our plugin) accepts."""
    return f"sqlite:///{server.home / 'callbacks.db'}"


@pytest.fixture(scope="session")
def airflow_api_server(request: pytest.FixtureRequest) -> Iterator[AirflowApiServer]:
    """
    One API server per session, on the test AIRFLOW_HOME (migrated by ``airflow_db``) and its database; its
    callback receiver accepts ``BOUND_TOKEN``. In a mutation run, the run's server (``running_airflow_api``), which
    the tests share: those that write connections use ``unique_conn_id``.
    """
    if RUNNING_URL_ENV in os.environ:
        yield AirflowApiServer.running_at(os.environ[RUNNING_HOME_ENV], os.environ[RUNNING_URL_ENV])
        return
    request.getfixturevalue("airflow_db")
    server = AirflowApiServer(os.environ["AIRFLOW_HOME"])
    server.env.update({TOKENS_ENV: BOUND_TOKEN, DATABASE_URL_ENV: callbacks_database_url(server)})
    with serving_airflow_api(server) as started:  # a start that fails stops its server before raising
        yield started


@pytest.fixture
def unique_conn_id(request: pytest.FixtureRequest) -> str:
    """A connection id no other test (no other session on a shared server) uses: the test's name and a random part."""
    return f"{request.node.originalname}_{uuid.uuid4().hex[:8]}"


@pytest.fixture
def rotation_example_connections(platform: Any, airflow_api: AirflowApiServer) -> dict[str, Any]:
    """
    What the rotation example DAG needs besides the emulator: ``airflow_api_default`` (set by ``airflow_api``)
    and the database connection ``messaging_platform_rotated`` holding a fresh key. Returns that key's id/label.
    """
    with MessagingPlatformClient(
        platform.base_url, platform.seed.api_key, platform.seed.api_secret, account_id=platform.seed.account_id
    ) as manager:
        return prepare_rotated_connection(airflow_api, manager)

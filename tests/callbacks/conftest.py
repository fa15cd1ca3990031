"""
Fixtures for the callback tests: a callback store in a fresh SQLite file (and the environment pointing at it, as
a deployment would) and receivers served on loopback. ``any_database_url`` is the same over SQLite and a real
PostgreSQL server (one per session, started here and stopped at the end, also on failure; a fresh database per
test); test modules of store-facing tests override ``database_url`` with it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from callback_helpers import BOUND_TOKEN
from postgres_server import PostgresServer

from messaging_platform_provider.callbacks.server import ReceiverServer
from messaging_platform_provider.callbacks.settings import DATABASE_URL_ENV, TOKENS_ENV
from messaging_platform_provider.callbacks.store import CallbackStore


@pytest.fixture
def database_url(tmp_path, monkeypatch) -> str:
    url = f"sqlite:///{tmp_path / 'callbacks.db'}"
    monkeypatch.setenv(DATABASE_URL_ENV, url)
    monkeypatch.delenv(TOKENS_ENV, raising=False)
    return url


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    server = PostgresServer()
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def any_database_url(request, tmp_path, monkeypatch) -> str:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'callbacks.db'}"
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        url = server.create_database()
        request.addfinalizer(lambda: server.drop_database(url))
    monkeypatch.setenv(DATABASE_URL_ENV, url)
    monkeypatch.delenv(TOKENS_ENV, raising=False)
    return url


@pytest.fixture
def store(database_url) -> Iterator[CallbackStore]:
    opened = CallbackStore(database_url)
    yield opened
    opened.close()


@pytest.fixture
def receiver(database_url) -> Iterator[ReceiverServer]:
    with ReceiverServer(tokens=[BOUND_TOKEN], database_url=database_url) as server:
        yield server


@pytest.fixture
def receiver_for(platform, database_url) -> Iterator[ReceiverServer]:
    """A receiver accepting the emulator's callback token."""
    with ReceiverServer(
        tokens=[f"{platform.seed.account_id}:{platform.seed.callback_token}"], database_url=database_url
    ) as server:
        yield server

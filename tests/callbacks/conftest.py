"""
Fixtures of the callback store-facing tests: ``any_database_url`` is the same over SQLite and a real PostgreSQL
server (one per session, started here and stopped at the end, also on failure; an emptied database per test); test
modules override ``database_url`` (``tests/support/callback_fixtures.py``) with it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from messaging_platform_provider.callbacks.settings import DATABASE_URL_ENV, TOKENS_ENV
from tests.support.postgres_server import PostgresServer


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
        url = server.emptied_database()
    monkeypatch.setenv(DATABASE_URL_ENV, url)
    monkeypatch.delenv(TOKENS_ENV, raising=False)
    return url

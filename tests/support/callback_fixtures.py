"""
Fixtures of the tests around the callback receiver (``tests/callbacks``, the callback sensor and trigger, the keyword
DAG end to end), registered for every test by ``tests/conftest.py``: a callback store in a fresh SQLite file (and
the environment pointing at it, as a deployment would) and receivers served on loopback. The store-facing tests of
``tests/callbacks`` override ``database_url`` with ``any_database_url`` (SQLite and PostgreSQL, in their conftest).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from messaging_platform_provider.callbacks.server import ReceiverServer
from messaging_platform_provider.callbacks.settings import DATABASE_URL_ENV, TOKENS_ENV
from messaging_platform_provider.callbacks.store import CallbackStore
from tests.support.callback_helpers import BOUND_TOKEN


@pytest.fixture
def database_url(tmp_path, monkeypatch) -> str:
    url = f"sqlite:///{tmp_path / 'callbacks.db'}"
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

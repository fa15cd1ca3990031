"""
Reading the callback store: ``read_after`` pages (what the watcher, ``messaging-platform-callbacks list`` and
``claim_callbacks_for_run`` read), ``first_match`` (the sensor's query), and ``shared_store``. Over SQLite and
PostgreSQL. Every expected value is written out here, never computed by the code under test.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from messaging_platform_provider.callbacks.filters import CallbackFilter
from messaging_platform_provider.callbacks.models import parse_callback
from messaging_platform_provider.callbacks.settings import DATABASE_URL_ENV
from messaging_platform_provider.callbacks.store import CallbackStore, NewCallback, shared_store
from tests.support.callback_helpers import callback

RECEIVED = datetime(2026, 1, 2, 3, 4, 5)


@pytest.fixture
def database_url(any_database_url: str) -> str:
    """Every test here runs over SQLite and over PostgreSQL."""
    return any_database_url


def add(store: CallbackStore, *bodies: dict[str, Any], received_at: datetime = RECEIVED) -> None:
    store.add_many([replace(NewCallback.from_model(parse_callback(b)), received_at=received_at) for b in bodies])


def test_read_after_pages_a_hundred_at_a_time_oldest_first(store: CallbackStore) -> None:
    add(store, *(callback(1) for _ in range(230)))
    first = [c.seq for c in store.read_after(0)]
    assert first == list(range(1, 101))
    assert [c.seq for c in store.read_after(first[-1])] == list(range(101, 201))
    assert [c.seq for c in store.read_after(200)] == list(range(201, 231))
    assert [c.seq for c in store.read_after(5, limit=3)] == [6, 7, 8]


def test_callbacks_of_several_types_are_read_in_the_order_they_were_stored(store: CallbackStore) -> None:
    # A Dialog answer, then a keyword text, then again: a filter on both types reads them as stored, not by type.
    add(store, callback(3), callback(1, Keyword="JOIN"), callback(3), callback(1, Keyword="JOIN"))
    both = CallbackFilter.build(["Keyword", "Dialog"])
    assert [(c.seq, c.callback_type) for c in store.read_after(0, both)] == [(1, 3), (2, 1), (3, 3), (4, 1)]
    assert [(c.seq, c.callback_type) for c in store.read_after(0, both, limit=2)] == [(1, 3), (2, 1)]
    found = store.first_match(both)
    assert found is not None and (found.seq, found.callback_type) == (1, 3)


def test_the_sensors_query_finds_a_callback_received_at_the_instant_itself(store: CallbackStore) -> None:
    """``received_after`` is "at or after": a callback received at that very instant matches."""
    add(store, callback(1, Keyword="JOIN"), received_at=RECEIVED - timedelta(microseconds=1))
    add(store, callback(1, Keyword="JOIN"), received_at=RECEIVED)
    add(store, callback(1, Keyword="JOIN"), received_at=RECEIVED + timedelta(seconds=1))
    keyword = CallbackFilter.build("Keyword", "JOIN")
    found = store.first_match(keyword, received_after=RECEIVED)
    assert found is not None and (found.seq, found.received_at) == (2, RECEIVED)
    later = store.first_match(keyword, after_seq=2, received_after=RECEIVED)
    assert later is not None and later.seq == 3


def test_shared_store_opens_the_database_it_is_given(
    database_url: str, store: CallbackStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not the configured one (the environment names another, empty database here)."""
    monkeypatch.setenv(DATABASE_URL_ENV, f"sqlite:///{tmp_path / 'configured-elsewhere.db'}")
    body = callback(1, Keyword="JOIN")
    add(store, body)
    shared = shared_store(database_url)
    assert [c.transaction_id for c in shared.read_after(0)] == [body["TransactionId"]]
    assert shared_store(database_url) is shared  # one store (one pool) per database in the process

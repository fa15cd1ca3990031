"""
Concurrent store transactions on PostgreSQL, where writers are not serialised by the database as on SQLite (one
writer at a time there, ``BEGIN IMMEDIATE``): opening a consumer, claiming and pruning take the counter row's lock
first, so two of them never act on what the other has half done. Each test holds a table lock in a third
transaction to stop the writers at a known statement, then lets them go: no timing, no sleeps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import text

from messaging_platform_provider.callbacks.models import parse_callback
from messaging_platform_provider.callbacks.settings import DATABASE_URL_ENV, TOKENS_ENV
from messaging_platform_provider.callbacks.store import CallbackStore, NewCallback, PruneResult
from tests.support.callback_helpers import callback, wait_until
from tests.support.postgres_server import PostgresServer


@pytest.fixture(params=["postgresql"])
def database_url(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """PostgreSQL only (the parameter keeps ``-k "not postgresql"`` selecting these out, as elsewhere)."""
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = server.emptied_database()
    monkeypatch.setenv(DATABASE_URL_ENV, url)
    monkeypatch.delenv(TOKENS_ENV, raising=False)
    return url


def waiting_on_locks(store: CallbackStore) -> int:
    with store.engine.connect() as conn:
        query = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
        return int(conn.execute(text(query)).scalar_one())


@contextmanager
def table_held(store: CallbackStore, table: str) -> Iterator[None]:
    """``table`` locked in SHARE mode (readers pass, writers wait) until the block ends."""
    with store.engine.begin() as conn:  # committed when the block ends (SQLAlchemy 1.4 and 2)
        conn.execute(text(f"LOCK TABLE {table} IN SHARE MODE"))
        yield


def both_stopped(store: CallbackStore, pool: ThreadPoolExecutor, *calls: Callable[[], Any]) -> list[Future[Any]]:
    """Start the calls, each once the ones before it are waiting on a lock."""
    futures = []
    for n, call in enumerate(calls, start=1):
        futures.append(pool.submit(call))
        wait_until(lambda: waiting_on_locks(store) == len(futures), what=f"{n} transaction(s) waiting on a lock")
    return futures


def test_two_triggerers_opening_a_new_consumer_at_once_both_get_its_position(store: CallbackStore) -> None:
    def open_position() -> int:
        return store.open_position("hand-over", "earliest")

    with ThreadPoolExecutor(2) as pool:
        with table_held(store, "mp_callback_consumer"):  # the first one stops at its INSERT
            opened = both_stopped(store, pool, open_position, open_position)
        assert [f.result() for f in opened] == [0, 0]  # the second found the first one's row; no error
    assert store.position("hand-over") == 0


def test_two_runs_claiming_one_callback_at_once_one_gets_it_and_neither_fails(store: CallbackStore) -> None:
    tid = "locking-claimed-by-one-run"
    with ThreadPoolExecutor(2) as pool:
        with table_held(store, "mp_callback_claim"):  # the first one stops at its INSERT
            claims = both_stopped(
                store,
                pool,
                lambda: store.claim("welcome", "run-1", [tid]),
                lambda: store.claim("welcome", "run-2", [tid]),
            )
        assert [f.result() for f in claims] == [{tid}, set()]
    assert store.claim("welcome", "run-1", [tid]) == {tid} and store.claim("welcome", "run-2", [tid]) == set()


def test_a_consumer_opened_while_prune_runs_reads_all_or_none_of_the_old_callbacks(store: CallbackStore) -> None:
    """Never some: the ones it has not read yet are not deleted under it."""
    old = datetime(2026, 1, 2, 3, 4, 5)
    store.add_many([replace(NewCallback.from_model(parse_callback(callback(1))), received_at=old) for _ in range(3)])

    def open_and_read() -> list[int]:
        position = store.open_position("late", "earliest")
        return [c.seq for c in store.read_after(position, limit=1)]

    with ThreadPoolExecutor(2) as pool:
        with table_held(store, "mp_callback_event"):  # prune stops at its DELETE
            pruning = pool.submit(store.prune, old + timedelta(days=1))
            wait_until(lambda: waiting_on_locks(store) == 1, what="prune waiting on a lock")
            reading = pool.submit(open_and_read)
            wait_until(lambda: reading.done() or waiting_on_locks(store) == 2, what="the consumer opened or waiting")
        pruned, read = pruning.result(), reading.result()
    read += [c.seq for c in store.read_after(read[-1] if read else 0)]
    assert read in ([], [1, 2, 3])
    # Here the consumer waited for prune (which saw no consumer): it starts after the deleted callbacks.
    assert (pruned, read, store.position("late")) == (PruneResult(callbacks=3, claims=0), [], 0)

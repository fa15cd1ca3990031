"""
The details of ``CallbackStore.add_many``, the receiver's batch add, that the batch tests leave open: a resend
recognised wherever it falls in a batch of more than a thousand ids, the resend check read 500 ids at a time, the
next number after retention emptied the store, the payload's stored text, and (PostgreSQL, where writers are not
serialised by the database) two batches stored at once taking turns for their numbers. Every expected value is
written out here, never computed by the code under test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event, text

from messaging_platform_provider.callbacks.settings import DATABASE_URL_ENV, TOKENS_ENV
from messaging_platform_provider.callbacks.store import CallbackStore, NewCallback, PruneResult
from tests.callbacks.test_store_locking import table_held, waiting_on_locks
from tests.support.callback_helpers import wait_until
from tests.support.postgres_server import PostgresServer

A = "5d1c0e3a-77b2-4c1e-8a00-00000000000a"
B = "5d1c0e3a-77b2-4c1e-8a00-00000000000b"
C = "5d1c0e3a-77b2-4c1e-8a00-00000000000c"
D = "5d1c0e3a-77b2-4c1e-8a00-00000000000d"
RECEIVED = datetime(2026, 1, 2, 3, 4, 5)


@pytest.fixture
def database_url(any_database_url: str) -> str:
    """The tests without a database of their own run over SQLite and over PostgreSQL."""
    return any_database_url


def new(transaction_id: str, payload: dict[str, Any] | None = None) -> NewCallback:
    return NewCallback(
        transaction_id=transaction_id,
        callback_type=1,
        account_id=1001,
        keyword="JOIN",
        phone_number="+15550100001",
        callback_timestamp="2026-01-02T03:04:05",
        payload=payload if payload is not None else {"Keyword": "JOIN", "PhoneNumber": "+15550100001"},
        received_at=RECEIVED,
    )


def numbered(count: int) -> list[NewCallback]:
    return [new(f"resend-check-{n:04d}") for n in range(count)]


# -- a resend among many ids ------------------------------------------------------------------------------------------


def test_a_resend_is_recognised_wherever_it_falls_in_a_batch_of_more_than_a_thousand_ids(store: CallbackStore) -> None:
    """
    The platform resends 1,200 callbacks already stored, with one new one among them (the receiver's group commit
    takes whatever is waiting): each resend is answered as a duplicate, and only the new one is stored.
    """
    assert store.add_many(numbered(1200)) == [True] * 1200
    assert store.add_many([*numbered(1200), new(D)]) == [False] * 1200 + [True]
    assert (store.count(), store.last_seq()) == (1201, 1201)
    assert [(c.seq, c.transaction_id) for c in store.read_after(1199)] == [(1200, "resend-check-1199"), (1201, D)]


def test_the_resend_check_reads_the_stored_ids_500_at_a_time(store: CallbackStore) -> None:
    """A batch of 1,201 ids is checked in three queries (500, 500 and 201 ids), not one per id."""
    store.add_many(numbered(3))
    checks: list[int] = []

    def seen(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        if " ".join(statement.split()).startswith("SELECT mp_callback_event.transaction_id FROM mp_callback_event"):
            checks.append(len(parameters))

    event.listen(store.engine, "before_cursor_execute", seen)
    try:
        flags = store.add_many([*numbered(1200), new(D)])
    finally:
        event.remove(store.engine, "before_cursor_execute", seen)
    assert flags == [False] * 3 + [True] * 1198
    assert checks == [500, 500, 201]


# -- numbers and stored text ------------------------------------------------------------------------------------------


def test_after_retention_emptied_the_store_the_next_callback_gets_the_next_number(store: CallbackStore) -> None:
    """
    A watcher read callbacks 1 to 3, and ``prune`` deleted them all. The next callback is number 4, never a number
    the watcher has passed: it would never see it.
    """
    assert store.add_many([new(A), new(B), new(C)]) == [True, True, True]
    assert store.open_position("watcher", "latest") == 3
    assert store.prune(RECEIVED + timedelta(days=1)) == PruneResult(callbacks=3, claims=0)
    assert store.count() == 0

    assert store.add_many([new(D)]) == [True]
    assert [(c.seq, c.transaction_id) for c in store.read_after(3)] == [(4, D)]
    assert store.last_seq() == 4


def test_a_payload_is_stored_as_compact_json_text(store: CallbackStore) -> None:
    """No space after a comma or a colon (every stored byte is the store's size), non-ASCII text as it is."""
    payload = {"Keyword": "JOIN", "PhoneNumber": "+15550100001", "Message": "Grüße, 😀: [1, 2]", "Parts": [1, 2]}
    assert store.add_many([new(A, payload)]) == [True]
    with store.engine.connect() as conn:
        raw = conn.execute(text("SELECT payload FROM mp_callback_event")).scalar_one()
    assert raw == '{"Keyword":"JOIN","PhoneNumber":"+15550100001","Message":"Grüße, 😀: [1, 2]","Parts":[1,2]}'
    assert store.read_after(0)[0].payload == payload


# -- two batches at once (PostgreSQL) ---------------------------------------------------------------------------------


@pytest.fixture(params=["postgresql"])
def pg_store(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[CallbackStore]:
    """
    A store in an emptied PostgreSQL database (the parameter keeps ``-k "not postgresql"`` selecting this out). SQLite
    serialises writers itself (``BEGIN IMMEDIATE``): only PostgreSQL can show whether the store does.
    """
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = server.emptied_database()
    monkeypatch.setenv(DATABASE_URL_ENV, url)
    monkeypatch.delenv(TOKENS_ENV, raising=False)
    opened = CallbackStore(url)
    try:
        yield opened
    finally:
        opened.close()


def started_in_turn(store: CallbackStore, pool: ThreadPoolExecutor, *calls: Callable[[], Any]) -> list[Future[Any]]:
    """Start the calls, each once the ones before it are waiting on a lock."""
    futures: list[Future[Any]] = []
    for n, call in enumerate(calls, start=1):
        futures.append(pool.submit(call))
        wait_until(lambda: waiting_on_locks(store) == len(futures), what=f"{n} transaction(s) waiting on a lock")
    return futures


def test_two_batches_stored_at_once_take_turns_for_their_numbers(pg_store: CallbackStore) -> None:
    """
    Two receivers store a callback each at the same moment. The first stops at its INSERT (the callbacks table is
    held); the second must wait for the first's numbers before it reads the counter, so both are stored, one after
    the other, and neither fails on a number the other took.
    """
    with ThreadPoolExecutor(2) as pool:
        with table_held(pg_store, "mp_callback_event"):
            stored = started_in_turn(
                pg_store, pool, lambda: pg_store.add_many([new(A)]), lambda: pg_store.add_many([new(B)])
            )
        assert [f.result() for f in stored] == [[True], [True]]
    assert [(c.seq, c.transaction_id) for c in pg_store.read_after(0)] == [(1, A), (2, B)]
    assert pg_store.last_seq() == 2

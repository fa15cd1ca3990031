"""
De-duplication by ``TransactionId`` inside one store transaction: a resend that lands in the same batch as its
original (the receiver's group commit takes whatever is waiting), and a batch that mixes an id stored earlier with
a repeat of its own. Over SQLite and PostgreSQL. Every expected value is written out here, never computed by the
code under test.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import pytest

from messaging_platform_provider.callbacks.models import parse_callback
from messaging_platform_provider.callbacks.store import CallbackStore, NewCallback
from messaging_platform_provider.callbacks.writer import BatchWriter
from tests.support.callback_helpers import callback, transaction_sizes

A = "0b7f6a52-1c1e-4d5e-9f00-00000000000a"
B = "0b7f6a52-1c1e-4d5e-9f00-00000000000b"
C = "0b7f6a52-1c1e-4d5e-9f00-00000000000c"
RECEIVED = datetime(2026, 1, 2, 3, 4, 5)


@pytest.fixture
def database_url(any_database_url: str) -> str:
    """Every test here runs over SQLite and over PostgreSQL."""
    return any_database_url


def new(transaction_id: str, keyword: str, phone: str) -> NewCallback:
    return NewCallback(
        transaction_id=transaction_id,
        callback_type=1,
        account_id=1001,
        keyword=keyword,
        phone_number=phone,
        callback_timestamp="2026-01-02T03:04:05",
        payload={"Keyword": keyword, "PhoneNumber": phone},
        received_at=RECEIVED,
    )


def rows(store: CallbackStore) -> list[tuple[Any, ...]]:
    return [
        (s.seq, s.transaction_id, s.keyword, s.phone_number, s.payload, s.received_at)
        for s in store.read_after(0, limit=100)
    ]


def test_a_transaction_id_repeated_within_one_batch_is_stored_once_as_first_received(store):
    batch = [
        new(A, "JOIN", "+15550100001"),
        new(B, "STOP", "+15550100002"),
        new(A, "RESENT", "+15550100009"),  # the same TransactionId: a resend; its values are never stored
        new(C, "HELP", "+15550100003"),
        new(A, "AGAIN", "+15550100009"),
    ]
    assert store.add_many(batch) == [True, True, False, True, False]
    assert rows(store) == [
        (1, A, "JOIN", "+15550100001", {"Keyword": "JOIN", "PhoneNumber": "+15550100001"}, RECEIVED),
        (2, B, "STOP", "+15550100002", {"Keyword": "STOP", "PhoneNumber": "+15550100002"}, RECEIVED),
        (3, C, "HELP", "+15550100003", {"Keyword": "HELP", "PhoneNumber": "+15550100003"}, RECEIVED),
    ]
    assert store.count() == 3 and store.last_seq() == 3  # no seq spent on a repeat


def test_a_batch_mixing_a_stored_id_and_a_repeat_of_its_own_stores_each_id_once(store):
    assert store.add_many([new(A, "JOIN", "+15550100001")]) == [True]
    batch = [
        new(B, "STOP", "+15550100002"),
        new(A, "RESENT", "+15550100009"),  # stored by the earlier transaction
        new(B, "RESENT", "+15550100009"),  # earlier in this batch
        new(C, "HELP", "+15550100003"),
    ]
    assert store.add_many(batch) == [True, False, False, True]
    assert store.add_many([new(C, "LATE", "+15550100009")]) == [False]
    assert rows(store) == [
        (1, A, "JOIN", "+15550100001", {"Keyword": "JOIN", "PhoneNumber": "+15550100001"}, RECEIVED),
        (2, B, "STOP", "+15550100002", {"Keyword": "STOP", "PhoneNumber": "+15550100002"}, RECEIVED),
        (3, C, "HELP", "+15550100003", {"Keyword": "HELP", "PhoneNumber": "+15550100003"}, RECEIVED),
    ]
    assert store.count() == 3 and store.last_seq() == 3


def test_the_writer_stores_a_resend_within_its_batch_once_in_the_same_transaction(store, monkeypatch):
    """
    What the receiver does with a resend that arrives while its original waits for the commit: both in one batch.
    The batch must commit as it is (a repeat is no reason to fail it and store its callbacks one by one), the
    original answered "stored" and the resend, in whatever spelling of the GUID, "duplicate".
    """
    transactions = transaction_sizes(store, monkeypatch)
    bodies = [
        callback(1, TransactionId=A, Keyword="join", PhoneNumber="+1 555 010 0001"),
        callback(1, TransactionId=B, Keyword="stop", PhoneNumber="+15550100002"),
        callback(1, TransactionId="{" + A.upper() + "}", Keyword="resent", PhoneNumber="+15550100009"),
        callback(1, TransactionId=C, Keyword="help", PhoneNumber="+15550100003"),
    ]
    items = [NewCallback.from_model(parse_callback(b)) for b in bodies]
    writer = BatchWriter(store)

    async def run() -> list[Any]:
        try:  # submitted in one turn of the loop: the writer takes them all as one batch
            return await asyncio.gather(*(writer.submit(i) for i in items), return_exceptions=True)
        finally:
            await writer.aclose()

    assert asyncio.run(run()) == [True, True, False, True]
    assert transactions == [4] and writer.batches == 1  # one transaction, not retried one by one
    stored = [(s.seq, s.transaction_id, s.keyword, s.phone_number, s.payload["Keyword"]) for s in store.read_after(0)]
    assert stored == [
        (1, A, "JOIN", "+15550100001", "join"),
        (2, B, "STOP", "+15550100002", "stop"),
        (3, C, "HELP", "+15550100003", "help"),
    ]

"""
Claiming callbacks in DAG runs (``callbacks.claims``): each callback handled by one run, including callbacks whose
asset events Airflow put in no run (see docs/callbacks.md, "What a run receives"); on SQLite and PostgreSQL.
"""

from __future__ import annotations

from typing import Any

import pytest

from messaging_platform_provider.callbacks.claims import claim_callbacks, claim_callbacks_for_run
from messaging_platform_provider.callbacks.models import parse_callback
from messaging_platform_provider.callbacks.store import CallbackStore, NewCallback
from messaging_platform_provider.triggers.callback import MessagingPlatformCallbackTrigger
from tests.support.callback_helpers import callback


@pytest.fixture
def database_url(any_database_url):
    return any_database_url


@pytest.fixture
def watcher(database_url) -> MessagingPlatformCallbackTrigger:
    return MessagingPlatformCallbackTrigger(callback_types=["Keyword"], keywords=["join"], consumer="welcome")


def stored(store: CallbackStore, *bodies: dict[str, Any]) -> list[dict[str, Any]]:
    """Store the callbacks; each as the watcher's asset event carries it (``extra["payload"]``)."""
    store.add_many([NewCallback.from_model(parse_callback(b)) for b in bodies])
    by_id = {b["TransactionId"] for b in bodies}
    return [
        {"extra": {"payload": row.to_event()}} for row in store.read_after(0, limit=1000) if row.transaction_id in by_id
    ]


def tids(callbacks: list[dict[str, Any]]) -> list[str]:
    return [c["transaction_id"] for c in callbacks]


def test_a_run_takes_on_later_matching_callbacks_that_no_run_received(store, watcher):
    first, second, other, third = (
        callback(1, Keyword="JOIN"),
        callback(1, Keyword="join"),
        callback(1, Keyword="STOPALL"),
        callback(1, Keyword="JOIN"),
    )
    events = stored(store, first, second, other, third)
    run_1 = claim_callbacks_for_run(events[:1], watcher=watcher, owner="run-1")  # the only event it received
    assert tids(run_1) == [first["TransactionId"], second["TransactionId"], third["TransactionId"]]
    # The runs the later events may still start find them claimed; a retry of run 1 gets its claims back.
    assert claim_callbacks_for_run(events[1:2], watcher=watcher, owner="run-2") == []
    assert claim_callbacks_for_run(events[3:], watcher=watcher, owner="run-3") == []
    assert tids(claim_callbacks_for_run(events[:1], watcher=watcher, owner="run-1")) == tids(run_1)
    # A callback stored later is the next run's.
    (later,) = stored(store, callback(1, Keyword="JOIN"))
    assert len(claim_callbacks_for_run([later], watcher=watcher, owner="run-4")) == 1


def test_a_run_without_events_claims_nothing(store, watcher):
    stored(store, callback(1, Keyword="JOIN"))
    assert claim_callbacks_for_run([], watcher=watcher, owner="by-hand") == []


def test_the_same_transaction_twice_in_one_run_is_handled_once(store, watcher):
    (event,) = stored(store, callback(1, Keyword="JOIN"))
    mine = claim_callbacks_for_run([event, event], watcher=watcher, owner="run-1")
    assert len(mine) == 1
    assert claim_callbacks([event["extra"]["payload"]], consumer="welcome", owner="run-2") == []

"""
Claiming callbacks in DAG runs (``callbacks.claims``): each callback handled by one run, including callbacks whose
asset events Airflow put in no run (see docs/callbacks.md, "What a run receives"); on SQLite and PostgreSQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from messaging_platform_provider.callbacks.claims import (
    callbacks_from_asset_events,
    claim_callbacks,
    claim_callbacks_for_run,
)
from messaging_platform_provider.callbacks.models import parse_callback
from messaging_platform_provider.callbacks.schema import StoredCallback
from messaging_platform_provider.callbacks.settings import DATABASE_URL_ENV
from messaging_platform_provider.callbacks.store import CallbackStore, NewCallback
from messaging_platform_provider.triggers.callback import MessagingPlatformCallbackTrigger
from tests.support.callback_helpers import callback


@pytest.fixture
def database_url(any_database_url):
    return any_database_url


@pytest.fixture
def watcher(database_url) -> MessagingPlatformCallbackTrigger:
    return MessagingPlatformCallbackTrigger(callback_types=["Keyword"], keywords=["join"], consumer="welcome")


def stored_rows(store: CallbackStore, *bodies: dict[str, Any]) -> list[StoredCallback]:
    """Store the callbacks; the stored rows, oldest first."""
    store.add_many([NewCallback.from_model(parse_callback(b)) for b in bodies])
    by_id = {b["TransactionId"] for b in bodies}
    return [row for row in store.read_after(0, limit=1000) if row.transaction_id in by_id]


def stored(store: CallbackStore, *bodies: dict[str, Any]) -> list[dict[str, Any]]:
    """Store the callbacks; each as the watcher's asset event carries it (``extra["payload"]``)."""
    return [{"extra": {"payload": row.to_event()}} for row in stored_rows(store, *bodies)]


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


@dataclass(frozen=True)
class AssetEvent:
    """What ``triggering_asset_events[asset]`` holds in a task: Airflow's objects (an ``extra``, no ``get``)."""

    extra: Any


def test_the_callbacks_of_a_runs_asset_events_are_read_oldest_first_and_other_events_skipped(
    store: CallbackStore,
) -> None:
    first, second, third = (row.to_event() for row in stored_rows(store, *(callback(1) for _ in range(3))))
    events: list[Any] = [
        AssetEvent(extra={"payload": third}),  # Airflow's objects, in no particular order
        AssetEvent(extra={}),  # events the asset got from elsewhere (a producer task, the API): none is a callback
        {"extra": {"payload": first}},  # the same as a mapping
        {"extra": ["not", "a", "mapping"]},
        {"extra": {"payload": {"note": "no transaction_id"}}},
        AssetEvent(extra={"payload": None}),
        AssetEvent(extra={"payload": second}),
    ]
    assert callbacks_from_asset_events(events) == [first, second, third]


def test_a_run_takes_on_nothing_stored_before_its_first_event(
    store: CallbackStore, watcher: MessagingPlatformCallbackTrigger
) -> None:
    """A callback stored before the run's first one (before the watcher started, say) was never the run's."""
    before, own = callback(1, Keyword="JOIN"), callback(1, Keyword="JOIN")
    stored(store, before)
    events = stored(store, own)
    assert tids(claim_callbacks_for_run(events, watcher=watcher, owner="run-1")) == [own["TransactionId"]]


@pytest.mark.parametrize("seq", [None, 0, -1, "2", True, 1.5], ids=repr)
def test_an_asset_event_made_elsewhere_with_a_transaction_id_takes_on_nothing(
    store: CallbackStore, watcher: MessagingPlatformCallbackTrigger, seq: Any
) -> None:
    """
    An asset event made in the UI or by the REST API may carry a ``transaction_id`` without the store's ``seq``.
    It is not the watcher's: read as seq 0 it would claim every matching callback in the store.
    """
    stored(store, callback(1, Keyword="JOIN"), callback(1, Keyword="JOIN"))
    made_by_hand = {"transaction_id": "by-hand-1", "callback_type": "Keyword"}
    if seq is not None:
        made_by_hand["seq"] = seq
    events = [AssetEvent(extra={"payload": made_by_hand})]
    assert callbacks_from_asset_events(events) == []
    assert claim_callbacks_for_run(events, watcher=watcher, owner="run-by-hand") == []


def test_a_run_handles_its_own_and_the_later_callbacks_in_the_order_they_were_stored(
    store: CallbackStore, watcher: MessagingPlatformCallbackTrigger
) -> None:
    bodies = [callback(1, Keyword="JOIN") for _ in range(4)]
    events = stored(store, *bodies)
    # The run received the third and the first (asset events in any order); the second and fourth reached no run.
    mine = claim_callbacks_for_run([events[2], events[0]], watcher=watcher, owner="run-1")
    assert tids(mine) == [b["TransactionId"] for b in bodies]


def test_a_run_takes_on_at_most_limit_later_callbacks(
    store: CallbackStore, watcher: MessagingPlatformCallbackTrigger
) -> None:
    bodies = [callback(1, Keyword="JOIN") for _ in range(4)]
    events = stored(store, *bodies)
    mine = claim_callbacks_for_run(events[:1], watcher=watcher, owner="run-1", limit=2)
    assert tids(mine) == [b["TransactionId"] for b in bodies[:3]]
    # The one left over is the next run's.
    assert tids(claim_callbacks_for_run(events[3:], watcher=watcher, owner="run-2")) == [bodies[3]["TransactionId"]]


def test_a_watcher_with_its_own_database_claims_there_not_in_the_configured_one(
    database_url: str, store: CallbackStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watcher names its store; the configured (environment) store is another, empty one."""
    monkeypatch.setenv(DATABASE_URL_ENV, f"sqlite:///{tmp_path / 'configured-elsewhere.db'}")
    watcher = MessagingPlatformCallbackTrigger(
        callback_types=["Keyword"], keywords=["join"], consumer="welcome", database_url=database_url
    )
    bodies = [callback(1, Keyword="JOIN") for _ in range(2)]
    events = stored(store, *bodies)
    mine = claim_callbacks_for_run(events[:1], watcher=watcher, owner="run-1")
    assert tids(mine) == [b["TransactionId"] for b in bodies]  # the later one read from the watcher's store
    # The claims are in the watcher's store: another run claiming there, by either function, gets nothing.
    assert claim_callbacks(mine, consumer="welcome", owner="run-2", database_url=database_url) == []
    assert store.claim("welcome", "run-2", tids(mine)) == set()


def test_claim_callbacks_claims_in_the_database_it_is_given(
    database_url: str, store: CallbackStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DATABASE_URL_ENV, f"sqlite:///{tmp_path / 'configured-elsewhere.db'}")
    (event,) = stored(store, callback(1, Keyword="JOIN"))
    payload = event["extra"]["payload"]
    assert claim_callbacks([payload], consumer="welcome", owner="run-1", database_url=database_url) == [payload]
    assert store.claim("welcome", "run-2", [payload["transaction_id"]]) == set()


def test_each_consumer_claims_a_callback_for_itself(store: CallbackStore) -> None:
    """Two DAGs (two consumers) both handle the callback; within each, one run does."""
    (tid,) = (row.transaction_id for row in stored_rows(store, callback(1, Keyword="JOIN")))
    assert store.claim("welcome", "welcome-run-1", [tid]) == {tid}
    assert store.claim("billing", "billing-run-1", [tid]) == {tid}
    assert store.claim("welcome", "welcome-run-2", [tid]) == set()
    assert store.claim("billing", "billing-run-2", [tid]) == set()


def test_a_retry_gets_back_the_claims_it_asks_for_and_no_others(store: CallbackStore) -> None:
    a, b, c = (row.transaction_id for row in stored_rows(store, *(callback(1) for _ in range(3))))
    assert store.claim("welcome", "run-1", [a, b]) == {a, b}
    assert store.claim("welcome", "run-1", [a, c]) == {a, c}
    assert store.claim("welcome", "run-1", [b]) == {b}
    assert store.claim("welcome", "run-2", [a, b, c]) == set()


def test_claims_of_more_callbacks_than_one_query_takes_are_all_checked(store: CallbackStore) -> None:
    """1,200 ids (a run's own plus the 1,000 it may take on): checked in several queries, every one of them."""
    ids = [f"claims-many-{n:05d}" for n in range(1200)]
    assert store.claim("welcome", "run-1", ids) == set(ids)
    assert store.claim("welcome", "run-1", ids) == set(ids)  # a retry gets every claim back
    assert store.claim("welcome", "run-2", [*ids, "claims-many-new"]) == {"claims-many-new"}
